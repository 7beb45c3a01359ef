package provider

import (
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// The node pool's plan writes exactly its computed attributes (poolPlanned): one left out would
// keep a stale value from the prior plan, one too many would overwrite configuration. owner_id
// is the exception: it is kept from state and set at create.
func TestPoolPlanWritesEveryComputedAttribute(t *testing.T) {
	var computed []string
	for name, a := range nodePoolSchema().Attributes {
		if a.IsComputed() && !a.IsOptional() && !a.IsRequired() && name != "owner_id" {
			computed = append(computed, name)
		}
	}
	slices.Sort(computed)
	if written := slices.Sorted(slices.Values(tfvalue.Names(poolPlanned{}))); !slices.Equal(written, computed) {
		t.Errorf("the plan writes %v, the computed attributes are %v", written, computed)
	}
}
