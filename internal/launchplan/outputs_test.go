package launchplan

import (
	"reflect"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// The planner orders options by instance type, then zone and capacity type; the groups keep
// that type order within each (zone, capacity type) and sort the groups themselves.
func TestGroupOptions(t *testing.T) {
	o := func(it, zone, ct string) Option {
		return Option{InstanceType: it, Zone: zone, SubnetID: "subnet-" + zone, CapacityType: ct}
	}
	if got := GroupOptions(nil); got == nil || len(got) != 0 {
		t.Errorf("no options: %#v, want a known empty list", got)
	}
	got := GroupOptions([]Option{
		o("c6a.large", "b", "spot"), o("c6a.large", "b", "on-demand"), o("c6a.large", "a", "on-demand"),
		o("m5.large", "a", "on-demand"), o("m5.large", "b", "on-demand"), o("m5.large", "b", "spot"), o("r5.large", "b", "spot"),
	})
	want := []OptionGroup{
		{Zone: "a", SubnetID: "subnet-a", CapacityType: "on-demand", InstanceTypes: []string{"c6a.large", "m5.large"}},
		{Zone: "b", SubnetID: "subnet-b", CapacityType: "on-demand", InstanceTypes: []string{"c6a.large", "m5.large"}},
		{Zone: "b", SubnetID: "subnet-b", CapacityType: "spot", InstanceTypes: []string{"c6a.large", "m5.large", "r5.large"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Per-type detail and a dynamic pool's templates appear only with details; warnings name their
// path; empty collections stay known and empty.
func TestOutputs(t *testing.T) {
	p := Plan{
		InstanceTypes:   []TypePlan{{Name: "m5.large", MaxPods: 110, KarpenterAssumedPods: 29, Price: 0.1}, {Name: "c5.large", MaxPods: 29, KarpenterAssumedPods: 29}},
		Zones:           []ZonePlan{{Zone: "a", SubnetID: "subnet-a"}, {Zone: "b", SubnetID: "subnet-b", PodSubnetID: "subnet-p"}},
		Capacity:        []ZoneCapacity{{Zone: "a", NodesByIPs: 7}},
		LaunchTemplates: []LaunchTemplate{{Name: "k/p/1", MaxPods: 110, InstanceTypes: []string{"m5.large"}, UserData: "ud", ImageID: "ami-1"}},
		Warnings:        []Problem{{Message: "w1"}, {Path: attrpath.Of("limits"), Message: "w2"}},
	}
	plain := p.Outputs(false, false)
	if plain.InstanceTypes != nil || plain.MaxPods != nil || plain.Prices != nil || plain.KarpenterAssumedPods != nil ||
		plain.LaunchPlan != nil || plain.LaunchTemplates != nil || plain.WorkloadFit != nil {
		t.Errorf("a dynamic pool without details: %+v", plain)
	}
	if !reflect.DeepEqual(plain.Warnings, []string{"w1", "limits: w2"}) {
		t.Errorf("warnings %q", plain.Warnings)
	}
	if z := plain.Zones; z["a"].NodesByIPs != 7 || z["a"].PodSubnetID != nil || *z["b"].PodSubnetID != "subnet-p" {
		t.Errorf("zones %+v", z)
	}
	static := p.Outputs(false, true)
	if lt := static.LaunchTemplates; len(lt) != 1 || lt[0].Fingerprint != p.LaunchTemplates[0].Fingerprint() || lt[0].InstanceTypes != nil || lt[0].UserData != nil ||
		lt[0].InstanceTypeCount != 1 || *lt[0].ImageID != "ami-1" {
		t.Errorf("a static pool's templates without details: %+v", lt)
	}
	d := p.Outputs(true, false)
	if !reflect.DeepEqual(d.InstanceTypes, []string{"m5.large", "c5.large"}) || d.MaxPods["m5.large"] != 110 ||
		!reflect.DeepEqual(d.KarpenterAssumedPods, map[string]int64{"m5.large": 29}) || d.Prices["m5.large"] != 0.1 ||
		d.LaunchPlan == nil || len(d.LaunchTemplates) != 1 || *d.LaunchTemplates[0].UserData != "ud" || d.LaunchTemplates[0].NetworkInterfaces == nil {
		t.Errorf("with details: %+v", d)
	}
	if w := (Plan{}).Outputs(false, false).Warnings; w == nil {
		t.Error("no warnings must be a known empty list")
	}
}
