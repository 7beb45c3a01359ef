package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// The hand-built values must equal what the framework's reflection builds from the same Go values.
func TestHandBuiltValuesMatchReflection(t *testing.T) {
	ctx := context.Background()
	names := []string{"m5.large", "p4de.24xlarge"}
	want, d := types.ListValueFrom(ctx, types.StringType, names)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := stringListValue(names); !got.Equal(want) {
		t.Fatalf("names differ:\n got %v\nwant %v", got, want)
	}
	pods := map[string]int64{"m5.large": 29, "p4de.24xlarge": 737}
	wantM, d := types.MapValueFrom(ctx, types.Int64Type, pods)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := int64MapValue(pods); !got.Equal(wantM) {
		t.Fatalf("max pods differ:\n got %v\nwant %v", got, wantM)
	}
	gs := []optionGroupTF{{Zone: "a", SubnetID: "subnet-1", CapacityType: "spot", InstanceTypes: []string{"m5.large", "c5.large"}}}
	wantO, d := types.ListValueFrom(ctx, optionGroupObjType, gs)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := optionGroupList(gs); !got.Equal(wantO) {
		t.Fatalf("options differ:\n got %v\nwant %v", got, wantO)
	}
	pub, prefixes, ud, ud2 := true, int64(1), "ud", "ud2"
	lts := []launchTemplateTF{
		{Name: "k/p/1", ID: types.StringUnknown(), DefaultVersion: types.Int64Unknown(), MaxPods: 29, InstanceTypeCount: 1, InstanceTypes: []string{"m5.large"},
			NetworkInterfaces: []interfaceTF{{InterfaceType: "interface", SecurityGroupIDs: []string{"sg-1"}}}, UserData: &ud, Fingerprint: "f1"},
		{Name: "k/p/0", ID: types.StringNull(), DefaultVersion: types.Int64Null(), MaxPods: 8, InstanceTypeCount: 20, Fingerprint: "f0"}, // without details
		{Name: "k/p/2", ID: types.StringValue("lt-1"), DefaultVersion: types.Int64Value(3), MaxPods: 737, InstanceTypeCount: 2, InstanceTypes: []string{"p4de.24xlarge", "c5n.18xlarge"},
			NetworkInterfaces: []interfaceTF{
				{InterfaceType: "efa", SecurityGroupIDs: []string{"sg-1", "sg-2"}, AssociatePublicIPAddress: &pub, IPv4PrefixCount: &prefixes},
				{NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: "efa-only", SecurityGroupIDs: []string{}},
			}, UserData: &ud2, Fingerprint: "f2"},
	}
	wantL, d := types.ListValueFrom(ctx, launchTemplateObjType, lts)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := launchTemplateList(lts); !got.Equal(wantL) {
		t.Fatalf("launch templates differ:\n got %v\nwant %v", got, wantL)
	}
	for name, v := range map[string]interface{ IsNull() bool }{"list": stringListValue(nil), "map": int64MapValue(nil), "options": optionGroupList(nil),
		"launch templates": launchTemplateList(nil)} {
		if v.IsNull() {
			t.Errorf("an empty %s must be known and empty, not null", name)
		}
	}
}

// The planner orders options by instance type, then zone and capacity type; the groups keep
// that type order within each (zone, capacity type) and sort the groups themselves.
func TestGroupOptions(t *testing.T) {
	o := func(it, zone, ct string) launchplan.Option {
		return launchplan.Option{InstanceType: it, Zone: zone, SubnetID: "subnet-" + zone, CapacityType: ct}
	}
	for _, tc := range []struct {
		name string
		in   []launchplan.Option
		want []optionGroupTF
	}{
		{"none", nil, nil},
		{"types across zones and capacity types", []launchplan.Option{
			o("c6a.large", "b", "spot"), o("c6a.large", "b", "on-demand"), o("c6a.large", "a", "on-demand"),
			o("m5.large", "a", "on-demand"), o("m5.large", "b", "on-demand"), o("m5.large", "b", "spot"), o("r5.large", "b", "spot"),
		}, []optionGroupTF{
			{Zone: "a", SubnetID: "subnet-a", CapacityType: "on-demand", InstanceTypes: []string{"c6a.large", "m5.large"}},
			{Zone: "b", SubnetID: "subnet-b", CapacityType: "on-demand", InstanceTypes: []string{"c6a.large", "m5.large"}},
			{Zone: "b", SubnetID: "subnet-b", CapacityType: "spot", InstanceTypes: []string{"c6a.large", "m5.large", "r5.large"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := groupOptions(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
