//go:build !karpenter_pre_1_10

package karpenteroracle

import (
	"fmt"

	awsv1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// interruptibleRequirement is the requirement on the reservations' interruptible flags, or that
// the label does not exist.
func interruptibleRequirement(crs []awsv1.CapacityReservation) []*scheduling.Requirement {
	if len(crs) == 0 {
		return []*scheduling.Requirement{scheduling.NewRequirement(awsv1.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpDoesNotExist)}
	}
	var values []string
	for _, cr := range crs {
		values = append(values, fmt.Sprintf("%t", cr.Interruptible))
	}
	return []*scheduling.Requirement{scheduling.NewRequirement(awsv1.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpIn, values...)}
}
