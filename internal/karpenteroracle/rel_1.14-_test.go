//go:build !karpenter_pre_1_14

package karpenteroracle

import (
	"context"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// resolved is the offerings from 1.14: each type's offerings go through the
// ReservedCapacityResolver, which adds its reserved offerings (built from the class's
// reservations, launchable only when the type is compatible with the class).
type resolved struct {
	resolver *offering.ReservedCapacityResolver
	rc       *offering.ResolveContext
	nc       *awsv1.EC2NodeClass
	pl       placement
	allZones sets.Set[string]
}

func newOfferer(_ context.Context, prices casePrices, crs capacityreservation.Provider, nc *awsv1.EC2NodeClass, pl placement,
	allZones sets.Set[string]) offerer {
	return resolved{resolver: newResolver(prices, crs), rc: &offering.ResolveContext{ZoneInfo: nc.ZoneInfo()}, nc: nc, pl: pl, allZones: allZones}
}

func (o resolved) resolve(ctx context.Context, it *cloudprovider.InstanceType, info ec2types.InstanceTypeInfo) *cloudprovider.InstanceType {
	it.Offerings = o.resolver.ResolveOfferings(ctx, it, it.Offerings, info, o.nc, o.allZones, sets.New[string](), o.pl.pg, o.rc)
	return it
}

func (resolved) finish(_ context.Context, its []*cloudprovider.InstanceType, _ map[ec2types.InstanceType]ec2types.InstanceTypeInfo) []*cloudprovider.InstanceType {
	return its
}
