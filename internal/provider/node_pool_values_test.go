package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
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
	os := []optionTF{{InstanceType: "m5.large", Zone: "a", SubnetID: "subnet-1", CapacityType: "spot", MaxPods: 29, VPCIPsAtMax: 30, LaunchTemplate: "k/p/1"}}
	wantO, d := types.ListValueFrom(ctx, optionObjType, os)
	if d.HasError() {
		t.Fatal(d)
	}
	if got := optionList(os); !got.Equal(wantO) {
		t.Fatalf("options differ:\n got %v\nwant %v", got, wantO)
	}
	for name, v := range map[string]interface{ IsNull() bool }{"list": stringListValue(nil), "map": int64MapValue(nil), "options": optionList(nil)} {
		if v.IsNull() {
			t.Errorf("an empty %s must be known and empty, not null", name)
		}
	}
}
