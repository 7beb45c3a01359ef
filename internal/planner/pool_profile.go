package planner

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// staticProfile adds staticProfileFindings to the plan's errors: false when there are any.
// It follows the admission, so that what Kubernetes would refuse is named first and alone.
func (res *PoolResult) staticProfile(in PoolInput) bool {
	errs := staticProfileFindings(in)
	res.Errors = append(res.Errors, errs...)
	return len(errs) == 0
}

// staticProfileFindings refuse a static pool of the provider's launcher whose class has no
// instance profile for it: its launch templates would start nodes without the role's
// credentials, which never join. A class with `role` has one only with
// `instance_profile_for_static_pools` (Karpenter keeps its own profile for the pools it
// launches, so adopting or planning those classes writes nothing to IAM). A class value whose
// late values wait for apply is checked at apply's final plan.
func staticProfileFindings(in PoolInput) []attrpath.Finding {
	if !in.ProviderStatic() || in.autoMode() || in.LateClass || in.Class.InstanceProfile != "" {
		return nil
	}
	class := in.Class.Name
	if class == "" {
		class = in.ClassName
	}
	return []attrpath.Finding{{Path: attrpath.Of("node_class", "instance_profile"), Summary: "No instance profile for a static pool",
		Message: fmt.Sprintf("the provider launches this pool's nodes itself, with its node class's instance profile, and class %q has "+
			"none (resolved.instance_profile is null): a class with `role` has a profile of the provider's only with "+
			"`instance_profile_for_static_pools = true`. Set that on the karpenter_node_class (the provider then creates and owns "+
			"the profile, an IAM write), or give the class an existing `instance_profile`, or let Karpenter launch the pool "+
			"(launcher = \"karpenter\"), which uses its own profile", class)}}
}
