//go:build karpenter_pre_1_12

package karpenteroracle

import awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"

// ec2NodeClassHash is the class's drift hash; before 1.12 (hash v4) it does not hash the cluster
// CA bundle.
func ec2NodeClassHash(nc *awsv1.EC2NodeClass, _ string) string { return nc.Hash() }
