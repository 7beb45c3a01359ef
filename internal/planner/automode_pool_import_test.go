package planner

import (
	"context"
	"strings"
	"testing"
)

// A NodePool on an EKS Auto Mode NodeClass brings that class's values (the class read as a
// karpenter_auto_mode_node_class) and says to replace them; its class missing fails naming both.
func TestPoolFromClusterOnAutoMode(t *testing.T) {
	ctx := context.Background()
	autoClass := map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": map[string]any{"name": "private"},
		"spec": map[string]any{"role": "MyNodeRole", "subnetSelectorTerms": []any{map[string]any{"tags": map[string]any{"team": "a"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"id": "sg-1"}}}}
	pool := map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "general"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"requirements": []any{map[string]any{"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": []any{"m"}}},
			"nodeClassRef": map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "private"}}}}}
	read := liveObjects(map[string]map[string]any{"nodeclasses/private": autoClass, "nodepools/general": pool})
	p, class, found, errs, warnings := PoolFromCluster(ctx, read, "general")
	if !found || len(errs) > 0 || !p.AutoMode || p.AutoModeClass == nil || p.AutoModeClass.Config.Role != "MyNodeRole" || class.Config.Name != "" {
		t.Fatalf("pool: found %v, auto mode %v, class %+v, errors %v", found, p.AutoMode, p.AutoModeClass, errs)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "karpenter_auto_mode_node_class.<name>.resolved") {
		t.Errorf("warnings %v", warnings)
	}
	read = liveObjects(map[string]map[string]any{"nodepools/general": pool})
	if _, _, _, errs, _ := PoolFromCluster(ctx, read, "general"); len(errs) != 1 ||
		!strings.Contains(errs[0].Message, `names EKS Auto Mode NodeClass "private" in its nodeClassRef`) {
		t.Errorf("a pool whose Auto Mode class is missing: %v", errs)
	}
}
