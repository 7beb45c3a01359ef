//go:build karpenter_pre_1_15 && !karpenter_pre_1_13

package karpenteroracle

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
)

// classOptions sets the case's CPU options and connection tracking block (with its UDP
// timeout); 1.13 and 1.14 have no enclaveOptions, which the API server prunes.
func classOptions(nc *awsv1.EC2NodeClass, c oraclegen.LaunchClass) {
	if c.NestedVirtualization != "" {
		nc.Spec.CPUOptions = &awsv1.CPUOptions{NestedVirtualization: aws.String(c.NestedVirtualization)}
	}
	if c.ConnectionTracking {
		nc.Spec.ConnectionTracking = &awsv1.ConnectionTracking{UDPTimeout: aws.Int32(60)}
	}
}
