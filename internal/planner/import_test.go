package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

// liveObjects serves objects by resource/name; the others are kubeclient.ErrNotFound.
func liveObjects(objs map[string]map[string]any) LiveObject {
	return func(_ context.Context, _, resource, name string) (map[string]any, error) {
		if o, ok := objs[resource+"/"+name]; ok {
			return o, nil
		}
		return nil, fmt.Errorf("%w: no %s named %q", kubeclient.ErrNotFound, resource, name)
	}
}

var (
	liveRoleClass = map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": map[string]any{"name": "default"},
		"spec": map[string]any{"role": "KarpenterNodeRole", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}}}}
	livePool = map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "general"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"requirements": []any{},
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
)

// TestImportFromCluster: a class with role says the import plans the provider's own profile
// (unless it holds one already); a pool brings its class's values and says to replace them; a
// pool not in the cluster is not found without a finding (EC2 is asked next); a pool whose class
// is missing fails naming both.
func TestImportFromCluster(t *testing.T) {
	ctx := context.Background()
	read := liveObjects(map[string]map[string]any{"ec2nodeclasses/default": liveRoleClass, "nodepools/general": livePool,
		"nodepools/orphan": withClassRef(livePool, "gone")})
	c, errs, warnings := ClassFromCluster(ctx, read, "default", false)
	if len(errs) > 0 || c.Config.Role != "KarpenterNodeRole" || len(warnings) != 1 || !strings.Contains(warnings[0].Message, "creates one of its own") {
		t.Errorf("class: %+v %v %v", c.Config, errs, warnings)
	}
	if _, _, warnings := ClassFromCluster(ctx, read, "default", true); len(warnings) != 0 {
		t.Errorf("class with the provider's profile: %v", warnings)
	}
	p, class, found, errs, warnings := PoolFromCluster(ctx, read, "general")
	if !found || len(errs) > 0 || p.NodeClass != "default" || class.Config.Name != "default" || len(warnings) != 1 ||
		!strings.Contains(warnings[0].Message, "karpenter_node_class.<name>.resolved") {
		t.Errorf("pool: %v %v %v %v", found, p.NodeClass, errs, warnings)
	}
	if _, _, found, errs, _ := PoolFromCluster(ctx, read, "absent"); found || len(errs) > 0 {
		t.Errorf("absent pool: found %v, %v", found, errs)
	}
	if _, _, _, errs, _ := PoolFromCluster(ctx, read, "orphan"); len(errs) != 1 ||
		!strings.Contains(errs[0].Message, `names EC2NodeClass "gone" in its nodeClassRef`) || !strings.Contains(errs[0].Message, "kubectl get ec2nodeclasses") {
		t.Errorf("orphan pool: %v", errs)
	}
}

// withClassRef is a copy of pool whose nodeClassRef names class.
func withClassRef(pool map[string]any, class string) map[string]any {
	return map[string]any{"apiVersion": pool["apiVersion"], "kind": pool["kind"], "metadata": map[string]any{"name": "orphan"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"requirements": []any{},
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class}}}}}
}
