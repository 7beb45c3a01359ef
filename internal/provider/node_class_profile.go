package provider

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// profilePorts are the ports of a class's instance profiles (planner.ClassPorts.Profiles): IAM,
// read afresh.
func (r *nodeClassResource) profilePorts() planner.ClassPorts {
	return planner.ClassPorts{Profiles: awsclient.InstanceProfiles{IAM: r.meta.Client.IAM}}
}

// classProfile is what the profile stage reads of a class.
func classProfile(v *classValue) planner.ClassProfile {
	return planner.ClassProfile{Class: v.Name, Role: v.Role, RoleUnknown: v.unknown("role"), InstanceProfile: v.InstanceProfile,
		ForStaticPools: v.ProfileForStaticPools(), Owner: v.OwnerID, Recorded: v.recordedProfile()}
}
