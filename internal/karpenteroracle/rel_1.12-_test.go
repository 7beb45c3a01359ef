//go:build !karpenter_pre_1_12

package karpenteroracle

import awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

// ec2NodeClassHash is the class's drift hash, the cluster CA bundle among its inputs.
func ec2NodeClassHash(nc *awsv1.EC2NodeClass, caBundle string) string { return nc.Hash(&caBundle) }
