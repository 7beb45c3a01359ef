package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
)

var liveAutoModeClass = map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
	"metadata": map[string]any{"name": "private", "labels": map[string]any{"team": "web"}},
	"spec": map[string]any{"role": "MyNodeRole", "subnetSelectorTerms": []any{map[string]any{"tags": map[string]any{"Name": "node-subnet"}}},
		"securityGroupSelectorTerms": []any{map[string]any{"tags": map[string]any{"Name": "eks-cluster-sg"}}},
		"placementGroupSelector":     map[string]any{"name": "pg"}},
	"status": map[string]any{"conditions": []any{}}}

// TestImportAutoModeClass: the live NodeClass is read by its group's version and resource into
// the configuration, with one warning naming what it cannot carry and the status left to the
// cluster; a missing object, a cluster without Auto Mode and no cluster access say what to do.
func TestImportAutoModeClass(t *testing.T) {
	ctx := context.Background()
	var asked string
	read := func(ctx context.Context, apiVersion, resource, name string) (map[string]any, error) {
		asked = apiVersion + " " + resource
		return liveObjects(map[string]map[string]any{"nodeclasses/private": liveAutoModeClass})(ctx, apiVersion, resource, name)
	}
	c, errs, warnings := ImportAutoModeClass(ctx, read, "private")
	if len(errs) > 0 || c == nil || c.Config.Role != "MyNodeRole" || asked != "eks.amazonaws.com/v1 nodeclasses" {
		t.Fatalf("import: %+v %v (asked %q)", c, errs, asked)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "cannot carry (applying its manifest would drop or change them): metadata.labels.team;") ||
		!strings.Contains(warnings[0].Message, "status EKS Auto Mode writes") {
		t.Errorf("warnings %v", warnings)
	}
	if _, errs, _ := ImportAutoModeClass(ctx, read, "absent"); len(errs) != 1 ||
		!strings.Contains(errs[0].Message, "kubectl get nodeclasses.eks.amazonaws.com") {
		t.Errorf("absent: %v", errs)
	}
	notServed := func(context.Context, string, string, string) (map[string]any, error) {
		return nil, fmt.Errorf("%w: 404", kubeclient.ErrNotInstalled)
	}
	if _, errs, _ := ImportAutoModeClass(ctx, notServed, "private"); len(errs) != 1 || !strings.Contains(errs[0].Message, "EKS Auto Mode is not enabled") ||
		strings.Contains(errs[0].Message, "NodeClaim") {
		t.Errorf("not served: %v", errs)
	}
	if c, errs, warnings := ImportAutoModeClass(ctx, nil, "private"); c != nil || len(errs) > 0 || len(warnings) != 1 ||
		!strings.Contains(warnings[0].Message, "get on nodeclasses.eks.amazonaws.com") {
		t.Errorf("no cluster access: %v %v %v", c, errs, warnings)
	}
	if errs := ValidateAutoModeImportID("default"); len(errs) != 1 || !strings.Contains(errs[0].Message, "built-in node pools") {
		t.Errorf("default: %v", errs)
	}
	if errs := ValidateAutoModeImportID("private"); len(errs) != 0 {
		t.Errorf("private: %v", errs)
	}
}
