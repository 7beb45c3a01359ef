//go:build karpenter_pre_1_15 && !karpenter_pre_1_14

package karpenteroracle

import (
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
)

// newResolver is 1.14's reserved capacity resolver (it reads no ICE cache).
func newResolver(prices casePrices, crs capacityreservation.Provider) *offering.ReservedCapacityResolver {
	return &offering.ReservedCapacityResolver{PricingProvider: prices, CapacityReservationProvider: crs,
		ZonalshiftProvider: arczonalshift.NewNoopProvider()}
}
