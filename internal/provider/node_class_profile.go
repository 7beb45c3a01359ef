package provider

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// profiles is the instance-profile stage of the provider's cluster (fleet.Profiles).
func (r *nodeClassResource) profiles() fleet.Profiles {
	return r.profilesOn(awsclient.InstanceProfiles{IAM: r.meta.Client.IAM})
}

// profilesOn is the stage on the given IAM reads (a plan shares one ReadOnce with its checks).
func (r *nodeClassResource) profilesOn(api fleet.ProfileAPI) fleet.Profiles {
	return fleet.Profiles{IAM: api, Cluster: r.meta.ClusterName, Region: r.meta.Client.Region}
}

// classProfile is what the profile stage reads of a class.
func classProfile(v *classValue) fleet.ClassProfile {
	return fleet.ClassProfile{Class: v.Name, Role: v.Role, RoleUnknown: v.unknown("role"), InstanceProfile: v.InstanceProfile,
		Owner: v.OwnerID, Recorded: v.recordedProfile()}
}
