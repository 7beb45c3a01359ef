//go:build !karpenter_pre_1_11

package karpenteroracle

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype"
	"github.com/aws/karpenter-provider-aws/pkg/providers/instancetype/compatibility"
	"github.com/aws/karpenter-provider-aws/pkg/providers/placementgroup"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
)

// TestAMIFamilyCompatibilityMatchesKarpenter compares the types the provider offers a class of
// each AMI family with the release's compatibility check (from 1.11; before it Karpenter offers
// every type to every family, and there is nothing to compare).
func TestAMIFamilyCompatibilityMatchesKarpenter(t *testing.T) {
	t.Parallel()
	oraclegen.CompareAMIFamilyCompatibility(t, minor(t), func(instanceType, family string) bool {
		nc := &awsv1.EC2NodeClass{Spec: awsv1.EC2NodeClassSpec{AMIFamily: &family}}
		return compatibility.IsCompatibleWithNodeClass(ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(instanceType)}, nc, nil)
	}, 5000)
}

// newInstanceType is instancetype.NewInstanceType in us-west-2, with the class's network
// interfaces (nc may be nil).
func newInstanceType(ctx context.Context, info ec2types.InstanceTypeInfo, zones []string, zoneInfo []awsv1.ZoneInfo, nc *awsv1.EC2NodeClass,
	k kubelet, family string, crs []awsv1.CapacityReservation) *cloudprovider.InstanceType {
	var nis []*awsv1.NetworkInterface
	if nc != nil {
		nis = nc.Spec.NetworkInterfaces
	}
	return instancetype.NewInstanceType(ctx, info, "us-west-2", zones, zoneInfo, nil, nil, nis, k.maxPods, k.podsPerCore,
		k.kubeReserved, k.systemReserved, k.evictionHard, nil, family, crs)
}

// launchKey is what of the class NewInstanceType reads: its network interfaces.
func launchKey(nc *awsv1.EC2NodeClass) string {
	var b strings.Builder
	for _, ni := range nc.Spec.NetworkInterfaces {
		fmt.Fprintf(&b, "%d/%d/%s;", ni.NetworkCardIndex, ni.DeviceIndex, ni.InterfaceType)
	}
	return b.String()
}

// placement is the placement group the class's selector resolves to: one of the case's
// strategy, nil without one.
type placement struct {
	pg *placementgroup.PlacementGroup
}

// karpenterClass sets the case's class settings on Karpenter's EC2NodeClass nc: network
// interfaces and a placement group from 1.11, the rest by release (classOptions).
func karpenterClass(nc *awsv1.EC2NodeClass, c oraclegen.LaunchClass) placement {
	for _, ni := range c.Interfaces {
		nc.Spec.NetworkInterfaces = append(nc.Spec.NetworkInterfaces, &awsv1.NetworkInterface{NetworkCardIndex: int32(ni.NetworkCardIndex),
			DeviceIndex: int32(ni.DeviceIndex), InterfaceType: awsv1.InterfaceType(ni.InterfaceType)})
	}
	classOptions(nc, c)
	if c.PlacementStrategy == "" {
		return placement{}
	}
	// The selector names the group (the offering provider of 1.11–1.13 resolves the group only
	// for a class that has one).
	nc.Spec.PlacementGroupSelector = &awsv1.PlacementGroupSelector{Name: aws.String("oracle")}
	return placement{&placementgroup.PlacementGroup{ID: "pg-0123456789abcdef0", Name: "oracle", Strategy: placementgroup.Strategy(c.PlacementStrategy)}}
}

// isCompatible is the release's compatibility.IsCompatibleWithNodeClass.
func isCompatible(info ec2types.InstanceTypeInfo, nc *awsv1.EC2NodeClass, pl placement) bool {
	return compatibility.IsCompatibleWithNodeClass(info, nc, pl.pg)
}

// placementGroups is a placement group provider that resolves every class to pl's group.
type placementGroups placement

func (p placementGroups) Get(context.Context, placementgroup.NodeClass) (*placementgroup.PlacementGroup, error) {
	return p.pg, nil
}
