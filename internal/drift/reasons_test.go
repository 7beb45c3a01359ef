package drift

import (
	"reflect"
	"testing"
)

// The table is Karpenter's order: the core's static and requirement drift, then the AWS
// provider's class hash, image, security groups, subnet and capacity reservation.
func TestChecksOrder(t *testing.T) {
	var got []string
	for _, c := range Checks() {
		if c.Compares == "" {
			t.Errorf("%s: says nothing of what it compares", c.Reason)
		}
		got = append(got, c.Reason)
	}
	want := []string{ReasonNodePool, ReasonRequirements, ReasonTypeNotFound, ReasonNodeClass, ReasonAMI, ReasonSecurityGroups, ReasonSubnet, ReasonReservation, ReasonPlacementGroup}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checks %v, want %v", got, want)
	}
}

// A node that drifts for several reasons counts under the first in the table; the pool verdict
// lists every reason, in the same order.
func TestFirstReasonFollowsTheTable(t *testing.T) {
	prior, planned := base(), base()
	prior.AMIs, planned.AMIs = []string{"ami-a"}, []string{"ami-b"}
	prior.Subnets, planned.Subnets = []string{"subnet-1", "subnet-2"}, []string{"subnet-2"}
	prior.SecurityGroups, planned.SecurityGroups = []string{"sg-1"}, []string{"sg-2"}
	v := Compare(prior, planned)
	if got, want := v.Reasons(), []string{ReasonAMI, ReasonSecurityGroups, ReasonSubnet}; !reflect.DeepEqual(got, want) {
		t.Errorf("verdict reasons %v, want %v", got, want)
	}
	n := Node{Name: "n", ImageID: "ami-a", SubnetID: "subnet-1"}
	c := CountNodes([]Node{n}, &prior, planned, v)
	if want := map[string]int{ReasonAMI: 1}; !reflect.DeepEqual(c.ByReason, want) {
		t.Errorf("by reason %v, want %v", c.ByReason, want)
	}
	n.ImageID = "ami-b"
	c = CountNodes([]Node{n}, &prior, planned, v)
	if want := map[string]int{ReasonSecurityGroups: 1}; !reflect.DeepEqual(c.ByReason, want) {
		t.Errorf("by reason %v, want %v", c.ByReason, want)
	}
}
