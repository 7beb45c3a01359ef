package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func autoModePoolInput(replicas *int) PoolInput {
	in := poolInput(replicas)
	in.Class = launchplan.Class{Name: "private-compute", Subnets: in.Class.Subnets, SecurityGroupIDs: []string{"sg-1"},
		AutoMode: &capacity.AutoMode{}}
	in.ClassName = "private-compute"
	return in
}

// A pool on an Auto Mode NodeClass names it in its nodeClassRef and plans with Auto Mode's max
// pods; Karpenter's labels, NodeOverlays and the provider's own launcher are refused on their
// attributes, and a static pool Karpenter keeps needs no feature gate.
func TestPoolOnAutoMode(t *testing.T) {
	var f poolPorts
	res := Pool(context.Background(), f.ports(false), poolFacts, autoModePoolInput(nil))
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	if res.Manifest == nil || !strings.Contains(*res.Manifest, "nodeClassRef:\n        group: eks.amazonaws.com\n        kind: NodeClass\n        name: private-compute") {
		t.Errorf("manifest: %v", *res.Manifest)
	}
	if got := res.Plan.InstanceTypes[0].MaxPods; got != 110 {
		t.Errorf("m5.large max pods %d, want 110", got)
	}
	if len(res.Plan.LaunchTemplates) != 0 {
		t.Errorf("launch templates on Auto Mode: %v", res.Plan.LaunchTemplates)
	}

	in := autoModePoolInput(nil)
	in.Template.Requirements = append(in.Template.Requirements, requirements.Requirement{Key: requirements.LabelInstanceFamily,
		Operator: requirements.OpIn, Values: []string{"m5"}})
	in.Overlays = []nodeoverlay.Config{{Name: "cheap"}}
	res = Pool(context.Background(), f.ports(false), poolFacts, in)
	var paths []string
	for _, e := range res.Errors {
		paths = append(paths, e.Path.String())
	}
	if got := strings.Join(paths, " "); got != "template.requirements[1].key node_overlays" {
		t.Errorf("errors on %q: %v", got, res.Errors)
	}

	two := 2
	in = autoModePoolInput(&two) // the provider's own launcher
	res = Pool(context.Background(), f.ports(false), poolFacts, in)
	if len(res.Errors) != 1 || res.Errors[0].Path.String() != "launcher" || !strings.Contains(res.Errors[0].Message, "EC2 managed instances") {
		t.Errorf("a static pool the provider would launch: %v", res.Errors)
	}
	karpenter := "karpenter"
	in.Launcher = &karpenter
	if res = Pool(context.Background(), f.ports(false), poolFacts, in); len(res.Errors) > 0 {
		t.Errorf("a static pool Auto Mode keeps, without the StaticCapacity gate: %v", res.Errors)
	}
}

// A static interface layout on the class caps the pods below the plan's max pods: a warning.
func TestPoolOnAutoModeStaticInterfaces(t *testing.T) {
	var f poolPorts
	in := autoModePoolInput(nil)
	n := int64(42)
	in.Class.AutoModeStaticAddresses = &n
	res := Pool(context.Background(), f.ports(false), poolFacts, in)
	var found bool
	for _, w := range res.Warnings {
		found = found || w.Summary == "Static interfaces cap pods" && w.Path.String() == "node_class" && strings.Contains(w.Message, "at most its 42")
	}
	if len(res.Errors) > 0 || !found {
		t.Errorf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	in.Class.AutoModeStaticAddresses = nil
	for _, w := range Pool(context.Background(), f.ports(false), poolFacts, in).Warnings {
		if w.Summary == "Static interfaces cap pods" {
			t.Errorf("a warning without a layout: %v", w)
		}
	}
}
