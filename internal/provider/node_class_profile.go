package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// profiles is the instance-profile stage of the provider's cluster (fleet.Profiles).
func (r *nodeClassResource) profiles() fleet.Profiles {
	return fleet.Profiles{IAM: awsclient.InstanceProfiles{IAM: r.meta.Client.IAM}, Cluster: r.meta.ClusterName, Region: r.meta.Client.Region}
}

// classProfile is what the profile stage reads of a class model.
func classProfile(m *nodeClassModel) fleet.ClassProfile {
	c := fleet.ClassProfile{Class: m.Name.ValueString(), Role: m.Role.ValueString(), RoleUnknown: m.Role.IsUnknown(),
		InstanceProfile: m.InstanceProfile.ValueString(), Owner: m.OwnerID.ValueString()}
	if !m.Resolved.IsNull() && !m.Resolved.IsUnknown() {
		if v, ok := m.Resolved.Attributes()["instance_profile"].(types.String); ok {
			c.Recorded = v.ValueString()
		}
	}
	return c
}

// ownerInState is the owner id recorded in state, "" without state or before owner ids.
func ownerInState(ctx context.Context, state tfsdk.State, diags *diag.Diagnostics) string {
	if state.Raw.IsNull() {
		return ""
	}
	var owner types.String
	diags.Append(state.GetAttribute(ctx, path.Root("owner_id"), &owner)...)
	return owner.ValueString()
}

// deleteProfiles deletes the named profiles of the owner (fleet.Profiles.Delete).
func (r *nodeClassResource) deleteProfiles(ctx context.Context, names []string, owner string, diags *diag.Diagnostics) {
	errs, warnings := r.profiles().Delete(ctx, names, owner)
	addFindings(diags, attrpath.Path{}, errs, "", false)
	addFindings(diags, attrpath.Path{}, warnings, "", true)
}

// nodeRole is the node-role readiness check of a class (nil when the role is known only after
// apply): the policies of `role`, or of the role `instance_profile` holds.
func (r *nodeClassResource) nodeRole(m *nodeClassModel) *nodeclass.NodeRole {
	ips := awsclient.InstanceProfiles{IAM: r.meta.Client.IAM}
	nr := &nodeclass.NodeRole{At: attrpath.Of("role")}
	if m.Networking != nil {
		nr.CNIOwnRole = m.Networking.CNIRole.ValueString() != "" && m.Networking.CNIRole.ValueString() != "node"
	}
	switch role, profile := m.Role, m.InstanceProfile; {
	case role.IsUnknown() || profile.IsUnknown():
		return nil
	case role.ValueString() != "":
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			docs, err := ips.RolePolicies(ctx, role.ValueString())
			return role.ValueString(), docs, err
		}
	case profile.ValueString() != "":
		nr.At = attrpath.Of("instance_profile")
		nr.Policies = func(ctx context.Context) (string, []iampolicy.Document, error) {
			p, err := ips.Get(ctx, profile.ValueString())
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
