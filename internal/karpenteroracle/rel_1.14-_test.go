//go:build !karpenter_pre_1_14

package karpenteroracle

import (
	"context"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/arczonalshift"
	"github.com/aws/karpenter-provider-aws/pkg/providers/capacityreservation"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/offering"
	awspricing "github.com/aws/karpenter-provider-aws/pkg/providers/pricing"
	gocache "github.com/patrickmn/go-cache"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// injectOfferings is the types with every offering the offering provider builds for them
// (InjectOfferings: its base, reserved capacity and placement group resolvers, which read the
// types' descriptions for the compatibility check; no zone shifted away, no NodeOverlay price,
// which needs a Kubernetes client).
func injectOfferings(ctx context.Context, prices awspricing.Provider, crs capacityreservation.Provider, nc *awsv1.EC2NodeClass, pl placement,
	allZones sets.Set[string], its []*cloudprovider.InstanceType, infos map[ec2types.InstanceType]ec2types.InstanceTypeInfo) []*cloudprovider.InstanceType {
	return offering.NewDefaultProvider(prices, crs, placementGroups(pl), unavailableOfferings, gocache.New(time.Hour, 0),
		arczonalshift.NewNoopProvider(), nil).InjectOfferings(ctx, its, infos, nc, allZones)
}
