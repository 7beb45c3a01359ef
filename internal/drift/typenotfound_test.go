package drift

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// typeNotFoundSide is a pool whose requirements allow every type below, in a region of zones
// z1, z2 and z3 (z3 offers t3.micro alone), with one reservation of p5.48xlarge in z1.
func typeNotFoundSide() Side {
	hvm := func(name string, arch string, zones []string, usage ...string) catalog.InstanceType {
		return catalog.InstanceType{Name: name, SupportsHVM: true, Architectures: []string{arch}, Zones: zones, UsageClasses: usage}
	}
	s := base()
	s.InstanceTypes = []string{"m5.large", "m5.xlarge", "a1.large", "p5.48xlarge", "t3.micro", "mac2.metal"}
	s.Zones = []string{"z1", "z2", "z3"}
	s.CapacityTypes = []string{"on-demand", "spot", "reserved"}
	s.Catalog = catalog.New([]catalog.InstanceType{
		hvm("m5.large", "x86_64", []string{"z1"}, "on-demand", "spot"),
		hvm("m5.xlarge", "x86_64", []string{"z1", "z2"}, "on-demand"), // no spot usage class
		hvm("a1.large", "arm64", []string{"z1", "z2"}, "on-demand", "spot"),
		hvm("p5.48xlarge", "x86_64", []string{"z1", "z2"}, "capacity-block"), // Capacity Blocks only
		hvm("t3.micro", "x86_64", []string{"z1", "z2", "z3"}, "on-demand", "spot"),
		hvm("mac2.metal", "arm64_mac", []string{"z1"}, "on-demand"), // not a type Karpenter lists
	})
	s.Reservations = []reservations.Reservation{{ID: "cr-1", InstanceType: "p5.48xlarge", Zone: "z1", Type: reservations.TypeCapacityBlock}}
	return s
}

// Each of Karpenter's InstanceTypeNotFound cases, and the look-alikes it keeps, on one NodeClaim.
func TestTypeNotFound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		node  Node
		drift bool
	}{
		{"offered: kept", Node{InstanceType: "m5.large", Zone: "z1", CapacityType: "spot", ImageID: "ami-a"}, false},
		{"case 1: launched without the instance-type label", Node{Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a"}, true},
		{"not launched yet (no label, no image): Karpenter judges no drift", Node{}, false},
		{"case 2: the type left the region", Node{InstanceType: "c4.large", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a"}, true},
		{"case 2: a type Karpenter does not list (mac)", Node{InstanceType: "mac2.metal", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a"}, true},
		{"a1 on an AL2023 class stays listed (offerings unavailable only)", Node{InstanceType: "a1.large", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a"}, false},
		{"case 3: the type is no longer offered as spot", Node{InstanceType: "m5.xlarge", Zone: "z1", CapacityType: "spot", ImageID: "ami-a"}, true},
		{"case 3: a zone of no type of the region", Node{InstanceType: "m5.large", Zone: "z9", CapacityType: "on-demand", ImageID: "ami-a"}, true},
		{"the type is not offered in the node's zone, another type is: offerings span the region's zones",
			Node{InstanceType: "m5.large", Zone: "z3", CapacityType: "on-demand", ImageID: "ami-a"}, false},
		{"case 3: a capacity type Karpenter has no offering of", Node{InstanceType: "m5.large", Zone: "z1", CapacityType: "capacity-block", ImageID: "ami-a"}, true},
		{"case 3: an on-demand node carrying a reservation label", Node{InstanceType: "m5.large", Zone: "z1", CapacityType: "on-demand", ImageID: "ami-a",
			CapacityReservationID: "cr-0"}, true},
		{"reserved counts as on-demand too", Node{InstanceType: "m5.large", Zone: "z1", CapacityType: "reserved", ImageID: "ami-a", CapacityReservationID: "cr-gone"}, false},
		{"reserved on a Capacity Block type, the class's reservation in its zone", Node{InstanceType: "p5.48xlarge", Zone: "z1", CapacityType: "reserved", ImageID: "ami-a",
			CapacityReservationID: "cr-old"}, false},
		{"case 3: reserved on a Capacity Block type, no reservation of the class in its zone", Node{InstanceType: "p5.48xlarge", Zone: "z2", CapacityType: "reserved",
			ImageID: "ami-a", CapacityReservationID: "cr-2"}, true},
		{"no zone or capacity-type label: well known, allowed undefined", Node{InstanceType: "m5.xlarge", ImageID: "ami-a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := typeNotFound(tc.node, typeNotFoundSide()); got != tc.drift {
				t.Errorf("InstanceTypeNotFound %v, want %v", got, tc.drift)
			}
		})
	}
	if typeNotFound(Node{InstanceType: "c4.large", ImageID: "ami-a"}, base()) {
		t.Error("without a catalog the type is not judged")
	}
}

// The node count on NodeClaims hitting each case: InstanceTypeNotFound comes after the NodePool's
// own reasons and before the class's.
func TestCountNodesInstanceTypeNotFound(t *testing.T) {
	prior, planned := typeNotFoundSide(), typeNotFoundSide()
	at := func(name, typ, zone, ct string) Node {
		return Node{Name: name, InstanceType: typ, Zone: zone, CapacityType: ct, ImageID: "ami-a", SubnetID: "subnet-1", NodePoolHash: "111",
			Labels: map[string]string{"node.kubernetes.io/instance-type": typ}}
	}
	ns := []Node{
		at("kept", "m5.large", "z1", "on-demand"),
		at("unlabelled", "", "z1", "on-demand"),
		at("gone", "c4.large", "z1", "on-demand"),
		at("spot", "m5.xlarge", "z2", "spot"),
		at("a1", "a1.large", "z2", "on-demand"),
		at("other-zone", "m5.large", "z2", "spot"),
		at("block", "p5.48xlarge", "z2", "reserved"),
	}
	c := CountNodes(ns, &prior, planned, Compare(prior, planned))
	if want := "drifts 4 of 7 nodes: InstanceTypeNotFound 4 (gone, spot, unlabelled and 1 more)"; c.Summary() != want {
		t.Errorf("summary %q, want %q", c.Summary(), want)
	}
	// A requirement change that drops m5.xlarge is RequirementsDrifted first; a type gone from
	// the catalog is judged by its labels, which still meet the requirements.
	planned.InstanceTypes = []string{"m5.large", "a1.large", "p5.48xlarge", "t3.micro"}
	c = CountNodes(ns, &prior, planned, Compare(prior, planned))
	if c.ByReason[ReasonRequirements] != 1 || c.ByReason[ReasonTypeNotFound] != 3 { // spot; then unlabelled, gone, block
		t.Errorf("by reason %v", c.ByReason)
	}
	// Without the node's labels, a type outside the catalog fails the requirements' types.
	ns[2].Labels = nil
	if c = CountNodes(ns[2:3], &prior, planned, Compare(prior, planned)); c.ByReason[ReasonRequirements] != 1 {
		t.Errorf("labels not read: %v", c.ByReason)
	}
	// The class's reservation in z2: the Capacity Block node is kept.
	planned = typeNotFoundSide()
	planned.Reservations = append(planned.Reservations, reservations.Reservation{ID: "cr-2", InstanceType: "p5.48xlarge", Zone: "z2"})
	if c = CountNodes(ns[6:], &prior, planned, Compare(prior, planned)); c.Drifted != 0 {
		t.Errorf("reserved with the class's reservation in its zone: %s", c.Summary())
	}
}

// The types InstanceTypeNotFound looks a node up in: every type of the region for an
// EC2NodeClass of any AMI family and release; Auto Mode's families for an Auto Mode class.
func TestClassAllows(t *testing.T) {
	if classAllows(launchplan.Class{AMIFamily: capacity.FamilyAL2023}) != nil {
		t.Error("an EC2NodeClass narrows nothing: Karpenter lists a1 under AL2023, its offerings unavailable")
	}
	auto := classAllows(launchplan.Class{AutoMode: &capacity.AutoMode{}})
	if auto == nil || auto("a1.large") || !auto("m5.large") {
		t.Error("Auto Mode's families")
	}
}
