//go:build karpenter_pre_1_10

package karpenteroracle

import (
	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// interruptibleRequirement: 1.9 has no interruptible label (it reads an interruptible
// reservation as a default one).
func interruptibleRequirement([]awsv1.CapacityReservation) []*scheduling.Requirement { return nil }
