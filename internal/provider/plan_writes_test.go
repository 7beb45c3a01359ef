package provider

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// Each resource's plan writes exactly its computed attributes (poolPlanned, classPlanned): one
// left out would keep a stale value from the prior plan, one too many would overwrite
// configuration. owner_id is the exception: it is kept from state and set at create.
func TestPlanWritesEveryComputedAttribute(t *testing.T) {
	for name, tc := range map[string]struct {
		schema  schema.Schema
		planned any
	}{"node pool": {nodePoolSchema(), poolPlanned{}}, "node class": {nodeClassSchema(), classPlanned{}}} {
		var computed []string
		for attr, a := range tc.schema.Attributes {
			if a.IsComputed() && !a.IsOptional() && !a.IsRequired() && attr != "owner_id" {
				computed = append(computed, attr)
			}
		}
		slices.Sort(computed)
		if written := slices.Sorted(slices.Values(tfvalue.Names(tc.planned))); !slices.Equal(written, computed) {
			t.Errorf("%s: the plan writes %v, the computed attributes are %v", name, written, computed)
		}
	}
}
