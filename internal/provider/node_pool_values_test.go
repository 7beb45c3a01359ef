package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The hand-built lists must equal what the framework's reflection builds from the same structs.
func TestHandBuiltListsMatchReflection(t *testing.T) {
	ctx := context.Background()
	ts := []typePlanTF{
		{Name: "m5.large", VCPU: 2, MemoryMiB: 8192, Zones: []string{"a", "b"}, CapacityTypes: []string{"on-demand"}, MaxPods: 29,
			ENILimitedPods: 29, KarpenterAssumedPods: 29, VPCIPsAtMaxPods: 30, LaunchTemplate: "k/p/1"},
		{Name: "p4de.24xlarge", VCPU: 96, Zones: []string{}, CapacityTypes: []string{"spot", "on-demand"}, EFAInterfaces: 4},
	}
	want, d := types.ListValueFrom(ctx, typePlanObjType, ts)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := typePlanList(ts); !got.Equal(want) {
		t.Fatalf("instance types differ:\n got %v\nwant %v", got, want)
	}
	os := []optionTF{{InstanceType: "m5.large", Zone: "a", SubnetID: "subnet-1", CapacityType: "spot", MaxPods: 29, VPCIPsAtMax: 30, LaunchTemplate: "k/p/1"}}
	wantO, d := types.ListValueFrom(ctx, optionObjType, os)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := optionList(os); !got.Equal(wantO) {
		t.Fatalf("options differ:\n got %v\nwant %v", got, wantO)
	}
	if got := typePlanList(nil); got.IsNull() || len(got.Elements()) != 0 {
		t.Fatalf("an empty list must be known and empty, got %v", got)
	}
}
