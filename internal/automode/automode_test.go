package automode

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// fakeEC2 answers filters by the tag "role" (node, pod) and ids.
type fakeEC2 struct {
	subnets      []discovery.Subnet
	groups       []discovery.SecurityGroup
	reservations []discovery.CapacityReservation
	pgErr        error
}

func matches(filters discovery.FilterSet, id string, tags map[string]string) bool {
	for _, f := range filters {
		switch {
		case f.Name == "subnet-id" || f.Name == "group-id":
			if !contains(f.Values, id) {
				return false
			}
		case strings.HasPrefix(f.Name, "tag:"):
			if v, ok := tags[strings.TrimPrefix(f.Name, "tag:")]; !ok || (!contains(f.Values, "*") && !contains(f.Values, v)) {
				return false
			}
		}
	}
	return true
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func (f *fakeEC2) FindSubnets(_ context.Context, fs discovery.FilterSet) ([]discovery.Subnet, error) {
	var out []discovery.Subnet
	for _, s := range f.subnets {
		if matches(fs, s.ID, s.Tags) {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeEC2) FindSecurityGroups(_ context.Context, fs discovery.FilterSet) ([]discovery.SecurityGroup, error) {
	var out []discovery.SecurityGroup
	for _, g := range f.groups {
		if matches(fs, g.ID, g.Tags) {
			out = append(out, g)
		}
	}
	return out, nil
}

func (f *fakeEC2) FindCapacityReservations(_ context.Context, q discovery.CapacityReservationQuery) ([]discovery.CapacityReservation, error) {
	var out []discovery.CapacityReservation
	for _, r := range f.reservations {
		if contains(q.IDs, r.ID) {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeEC2) FindPlacementGroups(context.Context, discovery.PlacementGroupSelector) ([]discovery.PlacementGroup, error) {
	return nil, f.pgErr
}

func vpc() *fakeEC2 {
	sub := func(id, zone, role string, free int) discovery.Subnet {
		return discovery.Subnet{ID: id, VPCID: "vpc-1", Zone: zone, ZoneID: "use1-" + zone[len(zone)-1:], AvailableIPAddressCount: free,
			Tags: map[string]string{"role": role}}
	}
	return &fakeEC2{
		subnets: []discovery.Subnet{sub("subnet-a", "us-east-1a", "node", 200), sub("subnet-b", "us-east-1b", "node", 100),
			sub("subnet-pa", "us-east-1a", "pod", 4000), sub("subnet-pa2", "us-east-1a", "pod", 10), sub("subnet-pb", "us-east-1b", "pod", 3000)},
		groups: []discovery.SecurityGroup{{ID: "sg-node", VPCID: "vpc-1", Tags: map[string]string{"role": "node"}},
			{ID: "sg-pod", VPCID: "vpc-1", Tags: map[string]string{"role": "pod"}}},
		reservations: []discovery.CapacityReservation{{ID: "cr-1", Zone: "us-east-1a", InstanceType: "m5.large", State: discovery.CapacityReservationStateActive,
			InstanceMatchCriteria: "targeted", AvailableInstanceCount: 2, TotalInstanceCount: 2}},
	}
}

func config() Config {
	return Config{Name: "private-compute", Role: "MyNodeRole",
		SubnetSelectorTerms:        []discovery.SubnetTerm{{Tags: map[string]string{"role": "node"}}},
		SecurityGroupSelectorTerms: []discovery.SecurityGroupTerm{{Tags: map[string]string{"role": "node"}}}}
}

func TestResolveWithPodSubnetsAndReservations(t *testing.T) {
	c := config()
	c.PodSubnetSelectorTerms = []discovery.SubnetTerm{{Tags: map[string]string{"role": "pod"}}}
	c.PodSecurityGroupSelectorTerms = []PodSecurityGroupTerm{{Tags: map[string]string{"role": "pod"}}}
	c.CapacityReservationSelectorTerms = []ReservationTerm{{ID: "cr-1"}}
	c.AdvancedNetworking = &AdvancedNetworking{IPv4PrefixSize: PrefixSize32}
	res, err := Resolve(context.Background(), vpc(), c, time.Now())
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("Resolve: %v %v", err, res.Errors)
	}
	v := res.Value(c, nil)
	if v.AutoMode == nil || v.AutoMode.IPv4PrefixSize != "32" || len(v.AutoMode.PodSecurityGroupIDs) != 1 || v.AutoMode.PodSecurityGroupIDs[0] != "sg-pod" {
		t.Errorf("auto mode part %+v", v.AutoMode)
	}
	// The pod subnet of each node zone with the most free IPs.
	if v.PodSubnets["us-east-1a"].ID != "subnet-pa" || v.PodSubnets["us-east-1b"].ID != "subnet-pb" || len(v.PodSubnets) != 2 {
		t.Errorf("pod subnets %+v", v.PodSubnets)
	}
	if len(v.Subnets) != 2 || len(v.SecurityGroupIDs) != 1 || len(v.CapacityReservationIDs) != 1 {
		t.Errorf("selection %+v", v)
	}
	ref := v.Ref()
	if ref.Group != manifest.AutoModeNodeClassGroup || ref.Kind != manifest.AutoModeNodeClassKind {
		t.Errorf("reference %s/%s", ref.Group, ref.Kind)
	}
	back, err := ref.Value()
	if err != nil || back.AutoMode == nil || back.AutoMode.IPv4PrefixSize != "32" {
		t.Errorf("the reference reads back as %+v, %v", back.AutoMode, err)
	}
	// A reference whose kind says EC2NodeClass but carries Auto Mode's resolution is refused.
	ref.Group, ref.Kind = launchplan.EC2NodeClassGroup, launchplan.EC2NodeClassKind
	if _, err := ref.Value(); err == nil {
		t.Error("an EC2NodeClass reference with an Auto Mode resolution was read")
	}
}

func TestResolveFindings(t *testing.T) {
	c := config()
	c.PodSubnetSelectorTerms = []discovery.SubnetTerm{{ID: "subnet-pa"}} // zone a only
	c.PodSecurityGroupSelectorTerms = []PodSecurityGroupTerm{{ID: "sg-none"}}
	c.CapacityReservationSelectorTerms = []ReservationTerm{{ID: "cr-gone"}}
	res, err := Resolve(context.Background(), vpc(), c, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range res.Errors {
		paths = append(paths, f.Path.String())
	}
	if strings.Join(paths, " ") != "pod_subnet_selector_terms pod_security_group_selector_terms" {
		t.Errorf("errors on %v: %+v", paths, res.Errors)
	}
	if !strings.Contains(res.Errors[0].Message, "us-east-1b") {
		t.Errorf("the missing zone is not named: %s", res.Errors[0].Message)
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || strings.HasPrefix(w.Path.String(), "capacity_reservation_selector_terms")
	}
	if !warned {
		t.Errorf("no warning for the reservation term that selects nothing: %+v", res.Warnings)
	}
	c = config()
	c.SubnetSelectorTerms = []discovery.SubnetTerm{{ID: "subnet-none"}}
	if res, _ = Resolve(context.Background(), vpc(), c, time.Now()); len(res.Errors) == 0 || res.Errors[0].Path.String() != "subnet_selector_terms" {
		t.Errorf("no subnet matched: %+v", res.Errors)
	}
}

func TestValueKeepsPriorCountsForTheSameSelection(t *testing.T) {
	c := config()
	res, err := Resolve(context.Background(), vpc(), c, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	prior := res.Value(c, nil)
	ec2 := vpc()
	ec2.subnets[0].AvailableIPAddressCount = 17 // a launch took addresses
	res, _ = Resolve(context.Background(), ec2, c, time.Now())
	if got := res.Value(c, &prior).Subnets["subnet-a"].AvailableIPAddressCount; got != 200 {
		t.Errorf("free IPs %d, want the state's 200 while the selection is the same", got)
	}
	ec2.subnets = ec2.subnets[:1] // subnet-b left the selection
	res, _ = Resolve(context.Background(), ec2, c, time.Now())
	if got := res.Value(c, &prior).Subnets["subnet-a"].AvailableIPAddressCount; got != 17 {
		t.Errorf("free IPs %d, want EC2's 17 once the selection changed", got)
	}
}

func TestValidateAndManifest(t *testing.T) {
	c := config()
	c.Name = "default"
	if f := Validate(c); len(f) != 1 || f[0].Path.String() != "name" {
		t.Errorf("Validate(default) = %+v", f)
	}
	c = config()
	c.CapacityReservationSelectorTerms = []ReservationTerm{{Tags: map[string]string{"team": "ml"}, Owner: "012345678901"}}
	doc, err := c.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := manifest.Admit(doc); err != nil || len(v) > 0 {
		t.Errorf("manifest refused: %v %v\n%s", v, err, doc)
	}
	if !strings.Contains(doc, "owner: \"012345678901\"") || !strings.Contains(doc, "role: MyNodeRole") {
		t.Errorf("manifest:\n%s", doc)
	}
}

// A placement group that does not exist fails the class (Auto Mode would launch nothing); a
// static interface layout gives its pods the secondary addresses and 16 per prefix.
func TestPlacementGroupAndStaticInterfaces(t *testing.T) {
	c := config()
	c.PlacementGroupSelector = &discovery.PlacementGroupSelector{Name: "missing"}
	res, err := Resolve(context.Background(), vpc(), c, time.Now())
	if err != nil || len(res.Errors) != 1 || res.Errors[0].Path.String() != "placement_group_selector" {
		t.Errorf("a missing placement group: %v %+v", err, res.Errors)
	}
	ec2 := vpc()
	ec2.pgErr = errors.New("DescribePlacementGroups: not implemented")
	c.CapacityReservationSelectorTerms = []ReservationTerm{{ID: "cr-1"}}
	if res, err = Resolve(context.Background(), ec2, c, time.Now()); err != nil || len(res.Errors) != 1 ||
		res.Errors[0].Path.String() != "placement_group_selector" || len(res.Reservations) != 1 {
		t.Errorf("a failed placement group read: %v %+v (reservations %v)", err, res.Errors, res.Reservations)
	}
	ten, two := int64(10), int64(2)
	c = config()
	c.AdvancedNetworking = &AdvancedNetworking{NetworkInterfaces: []NetworkInterface{
		{InterfaceType: "interface", SecondaryIPv4Count: &ten}, {DeviceIndex: 1, InterfaceType: "interface", SecondaryIPv4PrefixCount: &two},
		{NetworkCardIndex: 1, InterfaceType: "efa-only"}}}
	if n := c.StaticPodAddresses(); n == nil || *n != 42 {
		t.Errorf("static pod addresses %v, want 10 + 2 × 16 = 42", n)
	}
	if n := config().StaticPodAddresses(); n != nil {
		t.Errorf("without a layout: %v", *n)
	}
	res, _ = Resolve(context.Background(), vpc(), c, time.Now())
	if v := res.Value(c, nil); v.AutoMode.StaticPodAddresses == nil || *v.AutoMode.StaticPodAddresses != 42 {
		t.Errorf("the class value's static addresses: %+v", v.AutoMode)
	}
}

// A pool on an Auto Mode class plans its reservations from the class's value: they travel in
// full, and their free counts keep the state's while the same reservations are selected.
func TestValueCarriesReservations(t *testing.T) {
	c := config()
	res := Resolution{Reservations: []discovery.CapacityReservation{{ID: "cr-1", InstanceType: "p5.48xlarge", Zone: "us-west-2a",
		State: "active", InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", AvailableInstanceCount: 2, TotalInstanceCount: 4,
		EndDate: time.Date(2026, 12, 7, 11, 30, 0, 0, time.UTC)}}}
	prior := res.Value(c, nil)
	if len(prior.CapacityReservations) != 1 || prior.CapacityReservations[0].Available != 2 || prior.CapacityReservations[0].End != "2026-12-07T11:30:00Z" {
		t.Fatalf("reservations %+v", prior.CapacityReservations)
	}
	res.Reservations[0].AvailableInstanceCount = 1
	if got := res.Value(c, &prior).CapacityReservations[0].Available; got != 2 {
		t.Errorf("free %d, want the state's 2 for the same reservation", got)
	}
	res.Reservations[0].EndDate = res.Reservations[0].EndDate.Add(time.Hour) // extended: another selection
	if got := res.Value(c, &prior).CapacityReservations[0].Available; got != 1 {
		t.Errorf("free %d, want EC2's 1 once the reservation changed", got)
	}
}
