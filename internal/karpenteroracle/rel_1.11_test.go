//go:build karpenter_pre_1_12 && !karpenter_pre_1_11

package karpenteroracle

import (
	"time"

	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	awspricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	gocache "github.com/patrickmn/go-cache"
)

// newOfferingProvider is 1.11's offering provider (no zonal shift before 1.12).
func newOfferingProvider(prices awspricing.Provider, crs capacityreservation.Provider, pl placement) *offering.DefaultProvider {
	return offering.NewDefaultProvider(prices, crs, placementGroups(pl), unavailableOfferings, gocache.New(time.Hour, 0))
}
