package drift

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func TestSideOf(t *testing.T) {
	c := launchplan.Class{Hash: "h", HashVersion: "v6", SecurityGroupIDs: []string{"sg-1"}, CapacityReservationIDs: []string{"cr-1"},
		AMIs:    []nodeclass.AMI{{ID: "ami-1"}, {ID: "ami-2"}},
		Subnets: []launchplan.Subnet{{ID: "subnet-1"}, {ID: "subnet-2"}}}
	a := launchplan.Allowed{InstanceTypes: []string{"m5.large"}, Zones: []string{"z1"}, CapacityTypes: []string{"spot"}}
	s := SideOf("p", c, a)
	if s.NodePoolHash != "p" || s.NodeClassHash != "h" || s.NodeClassHashVersion != "v6" || strings.Join(s.AMIs, ",") != "ami-1,ami-2" ||
		strings.Join(s.Subnets, ",") != "subnet-1,subnet-2" || s.InstanceTypes[0] != "m5.large" || s.CapacityReservations[0] != "cr-1" {
		t.Errorf("side %+v", s)
	}
	// Images left to Karpenter (an alias it resolves at runtime) are not compared.
	c.AMIUnresolved = "alias"
	if s := SideOf("p", c, a); s.AMIs != nil {
		t.Errorf("unresolved images compared: %v", s.AMIs)
	}
}

func TestJudge(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	planned := base()
	planned.NodePoolHash = "999"

	// Per pool: every node drifts, at the default budget's pace over the pool's size.
	a := Judge(Change{Prior: base(), Planned: planned, Nodes: 40, Now: now})
	if len(a.Warnings) != 1 || a.Warnings[0].Summary != "Karpenter will replace every node of the pool" || !a.Warnings[0].Path.IsEmpty() ||
		!strings.Contains(a.Pace, "counted at 40 nodes") || len(a.Reasons) == 0 {
		t.Errorf("per pool: %+v", a)
	}
	// Frozen budgets add a warning on disruption.
	frozen := []nodepool.Budget{{Nodes: "0", Reasons: []string{"Drifted"}}}
	a = Judge(Change{Prior: base(), Planned: planned, Budgets: frozen, Nodes: 40, Now: now})
	if len(a.Warnings) != 2 || a.Warnings[1].Summary != "Disruption budgets never let drift proceed" || a.Warnings[1].Path.String() != "disruption" {
		t.Errorf("frozen: %+v", a.Warnings)
	}
	// A budget that cannot be read is a warning on disruption, and the verdict still stands.
	a = Judge(Change{Prior: base(), Planned: planned, Budgets: []nodepool.Budget{{Nodes: "1", Duration: "forever", Schedule: "@daily"}}, Nodes: 40, Now: now})
	if len(a.Warnings) == 0 || a.Warnings[0].Summary != "Cannot count the drift pace" || a.Warnings[0].Path.String() != "disruption" {
		t.Errorf("bad budget: %+v", a.Warnings)
	}
	// Counted nodes: the verdict and the pace are the count's; some nodes drift.
	count := &Count{Total: 5, Drifted: 2, ByReason: map[string]int{"NodePoolDrifted": 2}, Examples: map[string][]string{"NodePoolDrifted": {"a", "b"}}}
	a = Judge(Change{Prior: base(), Planned: planned, Nodes: 40, Count: count, Now: now})
	if len(a.Warnings) != 1 || a.Warnings[0].Summary != "Karpenter will replace some nodes of the pool" || !strings.Contains(a.Pace, "the pool's 5 nodes") {
		t.Errorf("counted: %+v", a)
	}
	// No change: no drift, no warning.
	if a := Judge(Change{Prior: base(), Planned: base(), Nodes: 40, Now: now}); len(a.Warnings) != 0 {
		t.Errorf("unchanged: %+v", a.Warnings)
	}
}

// A new pool's drift shows its hashes only; a change that narrows the requirements drifts the
// nodes of the types no longer allowed, judged against the prior requirements.
func TestPlanPool(t *testing.T) {
	doc := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: c}\n      requirements: []\n"
	it := func(name string) catalog.InstanceType {
		return catalog.InstanceType{Name: name, VCPUs: 2, MemoryMiB: 8192, Architectures: []string{"x86_64"}, SupportsHVM: true,
			CurrentGeneration: true, UsageClasses: []string{"on-demand"}, Zones: []string{"us-east-1a"}}
	}
	cat := catalog.New([]catalog.InstanceType{it("m5.large"), it("c5.large")})
	class := launchplan.Class{Hash: "111"}
	fresh, warnings := PlanPool(PoolPlan{Manifest: doc, Class: class, Catalog: cat, Region: "us-east-1"})
	if fresh.NodePoolHash == nil || *fresh.NodePoolHash == "" || *fresh.NodeClassHash != "111" || fresh.Verdict != nil || warnings != nil {
		t.Fatalf("a new pool: %+v, %v", fresh, warnings)
	}
	if NodePoolHash("not a manifest") != "" {
		t.Error("a manifest that does not decode must have no hash")
	}
	only := []requirements.Requirement{{Key: "node.kubernetes.io/instance-type", Operator: requirements.OpIn, Values: []string{"m5.large"}}}
	counted := false
	out, _ := PlanPool(PoolPlan{Manifest: doc, Class: class, Catalog: cat, Region: "us-east-1", Requirements: only, Nodes: 10,
		Prior: &PriorPool{Output: fresh, Class: class}, Now: time.Unix(0, 0).UTC(),
		Count: func(prior *Side, planned Side) *Count { counted = true; return nil }})
	if out.Verdict == nil || !slices.Contains(out.Reasons, ReasonRequirements) || !strings.Contains(*out.Verdict, "c5.large") || !counted {
		t.Errorf("narrowed requirements: %+v (counted %v)", out, counted)
	}
}
