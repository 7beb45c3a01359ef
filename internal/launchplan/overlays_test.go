package launchplan

import (
	"math"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func overlay(name, change string, reqs ...nodeoverlay.Requirement) nodeoverlay.Config {
	c := nodeoverlay.Config{Name: name, Requirements: reqs}
	if strings.HasPrefix(change, "+") || strings.HasPrefix(change, "-") {
		c.PriceAdjustment = &change
	} else {
		c.Price = &change
	}
	return c
}

func overlayIn(key string, values ...string) nodeoverlay.Requirement {
	return nodeoverlay.Requirement{Key: key, Operator: requirements.OpIn, Values: values}
}

// A -90 % overlay on m4.large (the dearest of the three 2-vCPU x86 types) puts it first in the
// launch and in the cost, and the summary names it.
func TestPriceOverlayReordersLaunchAndCost(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large", "m5.xlarge"), req(requirements.LabelCapacityType, requirements.OpIn, "on-demand")}
	in.Limits = map[string]string{"nodes": "10"}
	before := mustBuild(t, in)
	if before.LaunchTypes[0] != "m5.large" {
		t.Fatalf("without overlays the launch starts %v", before.LaunchTypes)
	}
	in.Overlays = []nodeoverlay.Config{overlay("cheap-m4", "-90%", overlayIn(requirements.LabelInstanceType, "m4.large"))}
	p := mustBuild(t, in)
	if p.LaunchTypes[0] != "m4.large" || math.Abs(findType(t, p, "m4.large").Price-0.01) > 1e-12 {
		t.Fatalf("launch %v, m4.large at %v; want m4.large first at 0.01", p.LaunchTypes, findType(t, p, "m4.large").Price)
	}
	if p.Cost.InstanceType != "m4.large" || math.Abs(p.Cost.Hourly-0.1) > 1e-12 {
		t.Errorf("cost %+v, want 10 × m4.large at 0.01", p.Cost)
	}
	s := p.Summary()
	if !strings.HasPrefix(s.FirstInstanceTypes, "m4.large 0.01 on-demand") || s.NodeOverlays != "cheap-m4 (price -90%) on m4.large" {
		t.Errorf("summary %q / %q", s.FirstInstanceTypes, s.NodeOverlays)
	}
	if findType(t, p, "m5.large").Price != 0.096 {
		t.Errorf("m5.large changed without an overlay selecting it")
	}
}

// Karpenter's spot filter runs on the overlaid prices: a spot overlay that raises spot above
// the cheapest on-demand leaves the type's spot offerings out.
func TestSpotOverlayMeetsTheSpotFilter(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large")}
	in.Overlays = []nodeoverlay.Config{overlay("dear-spot", "+1", overlayIn(requirements.LabelCapacityType, "spot"),
		overlayIn(requirements.LabelInstanceType, "m5.large"))}
	p := mustBuild(t, in)
	for _, o := range p.LaunchPlan {
		if o.InstanceType == "m5.large" && o.CapacityType == "spot" {
			t.Fatalf("m5.large spot launched at an overlaid price above on-demand: %+v", o)
		}
	}
	if p.LaunchTypes[0] != "m4.large" {
		t.Errorf("launch %v: m4.large spot (0.03) is now the cheapest", p.LaunchTypes)
	}
}

// Overlays of one weight on one offering: Karpenter ignores one of them, and the pool warns.
func TestOverlayConflictWarns(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large")}
	in.Overlays = []nodeoverlay.Config{
		overlay("a-half", "-50%", overlayIn(requirements.LabelInstanceType, "m5.large")),
		overlay("b-fixed", "0.5", overlayIn(requirements.LabelInstanceFamily, "m5")),
	}
	p := mustBuild(t, in)
	if !hasProblem(p.Warnings, "node_overlays", "Karpenter ignores a-half") {
		t.Errorf("warnings %v", p.Warnings)
	}
	if got := findType(t, p, "m5.large").OnDemandPrice; got == nil || *got != 0.5 {
		t.Errorf("m5.large on-demand %v, want b-fixed's 0.5", got)
	}
}

// Karpenter judges conflicts over every NodePool: two overlays of one weight that meet only on
// another NodePool of the class (its template label) conflict there, and Karpenter ignores the
// loser in this pool too. Without the cluster's NodePools the conflict is not seen, and the
// warning of a conflict found on this pool alone says so.
func TestOverlayConflictInAnotherPool(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large"), req(requirements.LabelCapacityType, requirements.OpIn, "on-demand")}
	in.Overlays = []nodeoverlay.Config{
		overlay("a-half", "-50%", overlayIn(requirements.LabelInstanceType, "m5.large")),
		overlay("b-batch", "0.5", overlayIn("team", "batch")),
	}
	alone := mustBuild(t, in)
	if hasProblem(alone.Warnings, "node_overlays", "Karpenter ignores") {
		t.Fatalf("no conflict on this pool's types: %v", alone.Warnings)
	}
	if got := findType(t, alone, "m5.large").OnDemandPrice; got == nil || math.Abs(*got-0.048) > 1e-12 {
		t.Fatalf("m5.large on-demand %v, want a-half's 0.048", got)
	}
	in.SiblingPools = []SiblingPool{{Name: "batch", TemplateLabels: map[string]string{"team": "batch"}}, {Name: "web"}}
	p := mustBuild(t, in)
	if !hasProblem(p.Warnings, "node_overlays", "changes m5.large in NodePool batch too: Karpenter ignores a-half") ||
		!hasProblem(p.Warnings, "node_overlays", "judged over the types of this pool and of the cluster's 2 other NodePools") {
		t.Errorf("warnings %v", p.Warnings)
	}
	if got := findType(t, p, "m5.large").OnDemandPrice; got == nil || *got != 0.096 {
		t.Errorf("m5.large on-demand %v, want its own 0.096: a-half is ignored in every pool", got)
	}
	if s := p.Summary(); strings.Contains(s.NodeOverlays, "a-half") {
		t.Errorf("summary names the ignored overlay: %q", s.NodeOverlays)
	}
	in.SiblingPools = nil
	in.Overlays = append(in.Overlays, overlay("c-m5", "0.2", overlayIn(requirements.LabelInstanceFamily, "m5")))
	if p := mustBuild(t, in); !hasProblem(p.Warnings, "node_overlays", "judged over this pool's types alone") {
		t.Errorf("a conflict judged without the cluster's NodePools must say so: %v", p.Warnings)
	}
}

// Overlays select by the pool's name and its template labels; the capacity they add is on the
// type's plan.
func TestOverlaySelectsThePoolAndAddsCapacity(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	in.TemplateLabels = map[string]string{"example.com/team": "ml"}
	slot := nodeoverlay.Config{Name: "slots", Requirements: []nodeoverlay.Requirement{overlayIn("example.com/team", "ml")},
		Capacity: map[string]string{"example.com/slot": "4"}}
	other := overlay("batch-only", "0.001", overlayIn(requirements.LabelNodePool, "batch"))
	in.Overlays = []nodeoverlay.Config{slot, other}
	p := mustBuild(t, in)
	m5 := findType(t, p, "m5.large")
	if m5.Extended["example.com/slot"] != "4" || m5.Price == 0.001 {
		t.Errorf("m5.large: extended %v, price %v", m5.Extended, m5.Price)
	}
	if got := p.Summary().NodeOverlays; got != "slots (example.com/slot=4) on m5.large" {
		t.Errorf("summary %q", got)
	}
}

// Workload fit sees the capacity overlays add: pods that request an extended resource fit only
// the types an overlay gives it, as many per node as its quantity allows.
func TestWorkloadFitSeesOverlayCapacity(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m5.xlarge"), req(requirements.LabelCapacityType, requirements.OpIn, "on-demand")}
	in.Workloads = map[string]workloadfit.Workload{"infer": {CPU: "100m", Replicas: 6, DaemonSetPods: 2, Extended: map[string]string{"example.com/slice": "1"}}}
	if _, errs := Build(in); !hasProblem(errs, "workloads[\"infer\"]", "no candidate type has the extended resources") {
		t.Fatalf("without an overlay: %v", errs)
	}
	in.Overlays = []nodeoverlay.Config{{Name: "slices", Requirements: []nodeoverlay.Requirement{overlayIn(requirements.LabelInstanceType, "m5.xlarge")},
		Capacity: map[string]string{"example.com/slice": "3"}}}
	p := mustBuild(t, in)
	r := p.Workloads["infer"]
	if !r.Fits || r.Type != "m5.xlarge" || r.PodsPerNode != 3 || r.BoundBy != "example.com/slice" || r.Nodes != 2 {
		t.Errorf("fit %+v, want 2 × m5.xlarge, 3 pods each, bound by example.com/slice", r)
	}
}
