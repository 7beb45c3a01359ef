package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

var liveOverlay = map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
	"metadata": map[string]any{"name": "cheap", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
	"spec": map[string]any{"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": []any{"m5.large"}}},
		"price": "0.05", "weight": float64(10), "futureField": true}}

// TestImportOverlay: a NodeOverlay of the cluster is read with every field, and the import names
// what it leaves out; without cluster access it reads nothing and says so; a missing overlay, or
// a cluster without the NodeOverlay CRD, fails naming the fix.
func TestImportOverlay(t *testing.T) {
	ctx := context.Background()
	read := liveObjects(map[string]map[string]any{"nodeoverlays/cheap": liveOverlay})
	o, errs, warnings := ImportOverlay(ctx, read, "cheap")
	if len(errs) > 0 || o == nil || o.Config.Name != "cheap" || *o.Config.Price != "0.05" || *o.Config.Weight != 10 || len(o.Config.Requirements) != 1 {
		t.Fatalf("overlay: %+v %v", o, errs)
	}
	if len(warnings) != 1 || warnings[0].Summary != "Imported NodeOverlay cheap from the cluster" ||
		!strings.Contains(warnings[0].Message, "cannot carry (applying its manifest would drop or change them): spec.futureField") ||
		!strings.Contains(warnings[0].Message, "left to the cluster: kubectl.kubernetes.io/last-applied-configuration") {
		t.Errorf("warnings: %s", dump(warnings))
	}
	o, errs, warnings = ImportOverlay(ctx, nil, "cheap")
	if o != nil || len(errs) > 0 || len(warnings) != 1 || warnings[0].Summary != "Imported by name only" ||
		!strings.Contains(warnings[0].Message, "get on nodeoverlays.karpenter.sh") {
		t.Errorf("no cluster access: %+v %v %s", o, errs, dump(warnings))
	}
	if _, errs, _ = ImportOverlay(ctx, read, "absent"); len(errs) != 1 || errs[0].Summary != "Cannot import NodeOverlay absent" ||
		!strings.Contains(errs[0].Message, "kubectl get nodeoverlays.karpenter.sh") {
		t.Errorf("absent overlay: %s", dump(errs))
	}
	notServed := func(context.Context, string, string, string) (map[string]any, error) {
		return nil, fmt.Errorf("%w: answered 404 for /apis/karpenter.sh/v1alpha1/nodeoverlays/cheap", kubeclient.ErrNotInstalled)
	}
	if _, errs, _ = ImportOverlay(ctx, notServed, "cheap"); len(errs) != 1 || strings.Contains(errs[0].Message, "NodeClaim") ||
		!strings.Contains(errs[0].Message, "does not serve nodeoverlays.karpenter.sh") {
		t.Errorf("CRD not installed: %s", dump(errs))
	}
	wrong := liveObjects(map[string]map[string]any{"nodeoverlays/cheap": livePool})
	if _, errs, _ = ImportOverlay(ctx, wrong, "cheap"); len(errs) != 1 || !strings.Contains(errs[0].Message, "not a "+manifest.NodeOverlayAPIVersion) {
		t.Errorf("not an overlay: %s", dump(errs))
	}
}

// TestValidateOverlayImportID: an overlay's import ID is a Kubernetes object name.
func TestValidateOverlayImportID(t *testing.T) {
	if errs := ValidateOverlayImportID("cheap-m5.large"); len(errs) != 0 {
		t.Errorf("valid name: %s", dump(errs))
	}
	if errs := ValidateOverlayImportID("Cheap_M5"); len(errs) != 1 || !strings.Contains(errs[0].Message, `"Cheap_M5" is not a valid Kubernetes object name`) {
		t.Errorf("invalid name: %s", dump(errs))
	}
}
