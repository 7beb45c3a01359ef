//go:build !karpenter_pre_1_15

package karpenteroracle

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
)

// classOptions sets the case's CPU options, enclave options and connection tracking block (with
// its UDP timeout).
func classOptions(nc *awsv1.EC2NodeClass, c oraclegen.LaunchClass) {
	if c.NestedVirtualization != "" {
		nc.Spec.CPUOptions = &awsv1.CPUOptions{NestedVirtualization: aws.String(c.NestedVirtualization)}
	}
	if c.Enclaves != nil {
		nc.Spec.EnclaveOptions = &awsv1.EnclaveOptions{Enabled: *c.Enclaves}
	}
	if c.ConnectionTracking {
		nc.Spec.ConnectionTracking = &awsv1.ConnectionTracking{UDPTimeout: aws.Int32(60)}
	}
}

// compatibleFilter is the instance provider's first filter: compatible types with a launchable
// offering.
func compatibleFilter(reqs scheduling.Requirements) instancefilter.Filter {
	return instancefilter.CompatibleLaunchableFilter(reqs, corev1.ResourceList{})
}

// launchable is whether CreateFleet may launch into the offering.
func launchable(o *cloudprovider.Offering) bool { return o.Launchable() }
