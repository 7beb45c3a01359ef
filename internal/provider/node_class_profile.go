package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
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

// deleteProfiles deletes the named profiles of the owner (fleet.Profiles.Delete).
func (r *nodeClassResource) deleteProfiles(ctx context.Context, names []string, owner string, diags *diag.Diagnostics) {
	errs, warnings := r.profiles().Delete(ctx, names, owner)
	addFindings(diags, attrpath.Path{}, errs, "", false)
	addFindings(diags, attrpath.Path{}, warnings, "", true)
}

// nodeRole is the node-role readiness check of a class (nil when the role is known only after
// apply): the policies of `role`, or of the role `instance_profile` holds.
func nodeRole(v *classValue, ips *awsclient.ProfilesReadOnce) *nodeclass.NodeRole {
	nr := &nodeclass.NodeRole{At: attrpath.Of("role"), CNIOwnRole: v.Networking.CNIOwnRole()}
	switch role, profile := v.Role, v.InstanceProfile; {
	case v.unknown("role") || v.unknown("instance_profile"):
		return nil
	case role != "":
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			docs, err := ips.RolePolicies(ctx, role)
			return role, docs, err
		}
	case profile != "":
		nr.At = attrpath.Of("instance_profile")
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			p, err := ips.Get(ctx, profile)
			if err != nil || p == nil || len(p.Roles) == 0 {
				return "", nil, err // a missing profile is the profile check's error
			}
			docs, err := ips.RolePolicies(ctx, p.Roles[0])
			return p.Roles[0], docs, err
		}
	default:
		return nil
	}
	return nr
}
