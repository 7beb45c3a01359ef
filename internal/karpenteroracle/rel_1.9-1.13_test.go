//go:build karpenter_pre_1_14

package karpenteroracle

import (
	"context"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"k8s.io/apimachinery/pkg/util/sets"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// injected is the offerings of releases before 1.14: the offering provider builds every
// offering of the types at once (InjectOfferings); the reserved ones are taken from it, the
// on-demand and spot ones are the case's.
type injected struct {
	prices   casePrices
	crs      capacityreservation.Provider
	nc       *awsv1.EC2NodeClass
	pl       placement
	allZones sets.Set[string]
}

func newOfferer(_ context.Context, prices casePrices, crs capacityreservation.Provider, nc *awsv1.EC2NodeClass, pl placement,
	allZones sets.Set[string]) offerer {
	return injected{prices: prices, crs: crs, nc: nc, pl: pl, allZones: allZones}
}

func (injected) resolve(_ context.Context, it *cloudprovider.InstanceType, _ ec2types.InstanceTypeInfo) *cloudprovider.InstanceType {
	return it
}

func (o injected) finish(ctx context.Context, its []*cloudprovider.InstanceType, infos map[ec2types.InstanceType]ec2types.InstanceTypeInfo) []*cloudprovider.InstanceType {
	for i, it := range injectOfferings(ctx, o.prices, o.crs, o.nc, o.pl, o.allZones, its, infos) {
		for _, of := range it.Offerings {
			if of.CapacityType() == karpv1.CapacityTypeReserved {
				its[i].Offerings = append(its[i].Offerings, of)
			}
		}
	}
	return its
}
