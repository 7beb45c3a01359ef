//go:build karpenter_pre_1_11

package karpenteroracle

import (
	"context"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	awspricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	gocache "github.com/patrickmn/go-cache"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
)

// newInstanceType is instancetype.NewInstanceType in us-west-2 (no network interfaces before
// 1.11: the class has none).
func newInstanceType(ctx context.Context, info ec2types.InstanceTypeInfo, zones []string, zoneInfo []awsv1.ZoneInfo, _ *awsv1.EC2NodeClass,
	k kubelet, family string, crs []awsv1.CapacityReservation) *cloudprovider.InstanceType {
	return instancetype.NewInstanceType(ctx, info, "us-west-2", zones, zoneInfo, nil, nil, k.maxPods, k.podsPerCore,
		k.kubeReserved, k.systemReserved, k.evictionHard, nil, family, crs)
}

// launchKey is what of the class NewInstanceType reads: nothing before 1.11.
func launchKey(*awsv1.EC2NodeClass) string { return "" }

// placement is the placement group a class's selector resolves to: none before 1.11.
type placement struct{}

// karpenterClass: before 1.11 an EC2NodeClass has none of the settings a case may draw, which
// the API server prunes (the provider, planning at the release, ignores them as well).
func karpenterClass(*awsv1.EC2NodeClass, oraclegen.LaunchClass) placement { return placement{} }

// isCompatible: before 1.11 Karpenter has no instance-type compatibility check.
func isCompatible(ec2types.InstanceTypeInfo, *awsv1.EC2NodeClass, placement) bool { return true }

// injectOfferings is the types with every offering the offering provider builds for them
// (InjectOfferings, with 1.9's and 1.10's arguments: no compatibility check, no placement group).
func injectOfferings(ctx context.Context, prices awspricing.Provider, crs capacityreservation.Provider, nc *awsv1.EC2NodeClass, _ placement,
	allZones sets.Set[string], its []*cloudprovider.InstanceType, _ map[ec2types.InstanceType]ec2types.InstanceTypeInfo) []*cloudprovider.InstanceType {
	return offering.NewDefaultProvider(prices, crs, unavailableOfferings, gocache.New(time.Hour, 0)).InjectOfferings(ctx, its, nc, allZones)
}
