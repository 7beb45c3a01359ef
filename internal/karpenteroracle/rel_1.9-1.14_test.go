//go:build karpenter_pre_1_15

package karpenteroracle

import (
	instancefilter "github.com/aws/karpenter-provider-aws/pkg/providers/instance/filter"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"
)

// compatibleFilter is the instance provider's first filter: compatible types with an available
// offering (before 1.15 an offering is launchable when it is available).
func compatibleFilter(reqs scheduling.Requirements) instancefilter.Filter {
	return instancefilter.CompatibleAvailableFilter(reqs, corev1.ResourceList{})
}

// launchable is whether CreateFleet may launch into the offering.
func launchable(o *cloudprovider.Offering) bool { return o.Available }
