//go:build karpenter_pre_1_14 && !karpenter_pre_1_11

package karpenteroracle

import (
	"context"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	awspricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// injectOfferings is the types with every offering the offering provider builds for them
// (InjectOfferings, which reads their descriptions for its compatibility check and resolves the
// class's placement group).
func injectOfferings(ctx context.Context, prices awspricing.Provider, crs capacityreservation.Provider, nc *awsv1.EC2NodeClass, pl placement,
	allZones sets.Set[string], its []*cloudprovider.InstanceType, infos map[ec2types.InstanceType]ec2types.InstanceTypeInfo) []*cloudprovider.InstanceType {
	return newOfferingProvider(prices, crs, pl).InjectOfferings(ctx, its, infos, nc, allZones)
}
