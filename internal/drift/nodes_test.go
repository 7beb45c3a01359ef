package drift

import (
	"reflect"
	"strings"
	"testing"
)

func nodes() []Node {
	return []Node{
		{Name: "n1", InstanceType: "m5.large", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a", SubnetID: "subnet-1", NodePoolHash: "111"},
		{Name: "n2", InstanceType: "m5.xlarge", Zone: "z2", CapacityType: "spot", ImageID: "ami-a", SubnetID: "subnet-2", NodePoolHash: "111"},
		{Name: "n3", InstanceType: "c5.large", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-b", SubnetID: "subnet-1", NodePoolHash: "111"},
	}
}

func TestCountNodes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*Side)
		drifted int
		by      map[string]int
		summary string
	}{
		{"nothing changes", func(*Side) {}, 0, map[string]int{}, "no drift: the pool's 3 nodes are kept"},
		{"a newer image replaces ami-a: the two nodes on it", func(s *Side) { s.AMIs = []string{"ami-c", "ami-b"} }, 2,
			map[string]int{ReasonAMI: 2}, "drifts 2 of 3 nodes: AMIDrift 2 (n1, n2)"},
		{"c5.large no longer allowed", func(s *Side) { s.InstanceTypes = []string{"m5.large", "m5.xlarge"} }, 1,
			map[string]int{ReasonRequirements: 1}, "drifts 1 of 3 nodes: RequirementsDrifted 1 (n3)"},
		{"spot no longer allowed", func(s *Side) { s.CapacityTypes = []string{"on-demand"} }, 1,
			map[string]int{ReasonRequirements: 1}, "drifts 1 of 3 nodes: RequirementsDrifted 1 (n2)"},
		{"subnet-2 no longer selected", func(s *Side) { s.Subnets = []string{"subnet-1"} }, 1,
			map[string]int{ReasonSubnet: 1}, "drifts 1 of 3 nodes: SubnetDrift 1 (n2)"},
		{"a taint: every node's hash differs; the first reason counts once", func(s *Side) {
			s.NodePoolHash, s.AMIs = "999", []string{"ami-b"}
		}, 3, map[string]int{ReasonNodePool: 3}, "drifts 3 of 3 nodes: NodePoolDrifted 3 (n1, n2, n3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			planned := base()
			planned.AMIs = []string{"ami-a", "ami-b"}
			tc.change(&planned)
			prior := base()
			prior.AMIs = []string{"ami-a", "ami-b"}
			c := CountNodes(nodes(), &prior, planned, Compare(prior, planned))
			if c.Drifted != tc.drifted || !reflect.DeepEqual(c.ByReason, tc.by) || c.Summary() != tc.summary {
				t.Errorf("count %+v, summary %q; want %d %v %q", c, c.Summary(), tc.drifted, tc.by, tc.summary)
			}
		})
	}
}

// The class hash and the security groups are not on the NodeClaim: a pool-wide finding drifts
// every node for them, after the node's own reasons.
func TestCountNodesPoolWideReasons(t *testing.T) {
	prior, planned := base(), base()
	planned.NodeClassHash = "999"
	planned.InstanceTypes = []string{"m5.large", "m5.xlarge"}
	c := CountNodes(nodes(), &prior, planned, Compare(prior, planned))
	if want := map[string]int{ReasonRequirements: 1, ReasonNodeClass: 2}; !reflect.DeepEqual(c.ByReason, want) || c.Drifted != 3 {
		t.Errorf("by reason %v", c.ByReason)
	}
	if got := c.Reasons(); !reflect.DeepEqual(got, []string{ReasonRequirements, ReasonNodeClass}) {
		t.Errorf("reasons %v", got)
	}
	// Nodes launched before an earlier change (their hash is neither side's) are counted apart.
	ns := nodes()
	ns[0].NodePoolHash = "000"
	planned = base()
	planned.NodePoolHash = "999"
	c = CountNodes(ns, &prior, planned, Compare(prior, planned))
	if c.Already != 1 || c.Drifted != 3 {
		t.Errorf("already %d, drifted %d", c.Already, c.Drifted)
	}
	if (Count{}).Summary() != "the pool has no nodes: nothing to replace" {
		t.Error("empty pool summary")
	}
}

// A capacity reservation no longer selected drifts the nodes launched into it, and the class hash
// comes before the image in Karpenter's order.
func TestCapacityReservationDriftAndOrder(t *testing.T) {
	prior, planned := base(), base()
	prior.CapacityReservations = []string{"cr-1", "cr-2"}
	planned.CapacityReservations = []string{"cr-2"}
	v := Compare(prior, planned)
	if got := v.Reasons(); !reflect.DeepEqual(got, []string{ReasonReservation}) || v.AllNodes ||
		v.Summary() != "some nodes drift: nodes in capacity reservation cr-1 drift" {
		t.Errorf("verdict %v %q", got, v.Summary())
	}
	ns := nodes()
	ns[0].CapacityReservationID = "cr-1"
	ns[1].CapacityReservationID = "cr-2"
	c := CountNodes(ns, &prior, planned, v)
	if c.Drifted != 1 || c.ByReason[ReasonReservation] != 1 || c.Examples[ReasonReservation][0] != "n1" {
		t.Errorf("count %+v", c)
	}
	// Class hash and image both change: Karpenter reports the class hash (checked first).
	planned.NodeClassHash, planned.AMIs, planned.CapacityReservations = "999", []string{"ami-z"}, prior.CapacityReservations
	prior.AMIs = []string{"ami-a", "ami-b"}
	c = CountNodes(nodes(), &prior, planned, Compare(prior, planned))
	if !reflect.DeepEqual(c.ByReason, map[string]int{ReasonNodeClass: 3}) {
		t.Errorf("by reason %v", c.ByReason)
	}
	if got := Compare(prior, planned).Reasons(); !reflect.DeepEqual(got, []string{ReasonNodeClass, ReasonAMI}) {
		t.Errorf("reasons %v, want the class hash first", got)
	}
}

// PlacementGroupDrift (Karpenter 1.11+): the class's placement group changed, or a counted node
// carries another group's id than the class selects.
func TestPlacementGroupDrift(t *testing.T) {
	prior, planned := base(), base()
	prior.PlacementGroup, planned.PlacementGroup = "pg-1", "pg-2"
	v := Compare(prior, planned)
	if !reflect.DeepEqual(v.Reasons(), []string{ReasonPlacementGroup}) || !v.AllNodes || v.Summary() != "every node of the pool drifts: the placement group changed (pg-1 → pg-2)" {
		t.Errorf("pool: %v %q", v.Reasons(), v.Summary())
	}
	planned.PlacementGroup = ""
	if v = Compare(prior, planned); !strings.Contains(v.Summary(), "(pg-1 → none)") {
		t.Errorf("selector removed: %q", v.Summary())
	}
	planned.PlacementGroup = "pg-1"
	ns := nodes()
	ns[0].Labels = map[string]string{"karpenter.k8s.aws/placement-group-id": "pg-1"}
	ns[1].Labels = map[string]string{"karpenter.k8s.aws/placement-group-id": "pg-0"}
	c := CountNodes(ns, &prior, planned, Compare(prior, planned))
	if want := "drifts 1 of 3 nodes: PlacementGroupDrift 1 (n2)"; c.Summary() != want { // n3's labels were not read
		t.Errorf("nodes: %q, want %q", c.Summary(), want)
	}
}
