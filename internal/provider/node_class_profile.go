package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The instance profile of a class with `role`: the provider creates it (name, path and tags
// from nodeclass.InstanceProfileName / InstanceProfileTags) so that the launch templates of static
// pools start nodes with the role's credentials; Karpenter keeps creating its own profile for
// the nodes it launches from the EC2NodeClass. The class owns the profile through its owner id
// and changes or deletes no profile without its ownership tags.

const iamPermissionsHint = "The provider needs iam:GetRole and iam:GetInstanceProfile to plan a class with `role` " +
	"(iam:GetInstanceProfile with `instance_profile`)."

func (r *nodeClassResource) profiles() awsclient.InstanceProfiles {
	return awsclient.InstanceProfiles{IAM: r.meta.Client.IAM}
}

// profileNameFor is the name of the profile the provider creates for a class of that name.
func (r *nodeClassResource) profileNameFor(class string) string {
	return nodeclass.InstanceProfileName(r.meta.ClusterName, r.meta.Client.Region, class)
}

func (r *nodeClassResource) profileSpec(m *nodeClassModel, name string) awsclient.ProfileSpec {
	owner := m.OwnerID.ValueString()
	return awsclient.ProfileSpec{
		Name: name, Path: nodeclass.InstanceProfilePath, Role: m.Role.ValueString(),
		Tags: nodeclass.InstanceProfileTags(r.meta.ClusterName, r.meta.Client.Region, m.Name.ValueString(), owner),
		Own:  nodeclass.InstanceProfileOwnership(owner),
	}
}

// planInstanceProfile checks the class's IAM inputs at plan and returns the instance profile
// the launch templates will name ("" with `instance_profile`: resolved keeps the configured
// one). With `instance_profile`, the profile must exist. With `role`, the role must exist and the
// provider's profile name must be free or already this class's (owner, the owner id in state;
// "" for a new class, which owns nothing yet). It makes no mutating call.
func (r *nodeClassResource) planInstanceProfile(ctx context.Context, m *nodeClassModel, owner string, diags *diag.Diagnostics) string {
	ips := r.profiles()
	if name := m.InstanceProfile.ValueString(); name != "" {
		p, err := ips.Get(ctx, name)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root("instance_profile"), "Cannot read the instance profile", err.Error()+"\n\n"+iamPermissionsHint)
		case p == nil:
			diags.AddAttributeError(path.Root("instance_profile"), "Instance profile not found",
				fmt.Sprintf("instance profile %s not found in this account: nodes launched with it would not start. Create it first, "+
					"or set `role` instead and the provider creates a profile for the role.", name))
		}
		return ""
	}
	role := m.Role.ValueString()
	if role == "" && !m.Role.IsUnknown() {
		return "" // validation requires one of the two
	}
	ok, err := true, error(nil)
	if !m.Role.IsUnknown() { // a role known only after apply is checked when apply adds it to the profile
		ok, err = ips.RoleExists(ctx, role)
	}
	switch {
	case err != nil:
		diags.AddAttributeError(path.Root("role"), "Cannot read the IAM role", err.Error()+"\n\n"+iamPermissionsHint)
		return ""
	case !ok:
		diags.AddAttributeError(path.Root("role"), "IAM role not found",
			fmt.Sprintf("role %s not found in this account: the instance profile of this class needs it (and so does Karpenter).", role))
		return ""
	}
	name := r.profileNameFor(m.Name.ValueString())
	p, err := ips.Get(ctx, name)
	if err != nil {
		diags.AddAttributeError(path.Root("role"), "Cannot read the class's instance profile", err.Error()+"\n\n"+iamPermissionsHint)
		return ""
	}
	if p != nil && (owner == "" || !p.Owned(nodeclass.InstanceProfileOwnership(owner))) {
		diags.AddAttributeError(path.Root("role"), "Instance profile name already taken", r.takenDetail(*p, m.Name.ValueString()))
		return ""
	}
	return name
}

// takenDetail explains a profile of the class's name that is not the class's own.
func (r *nodeClassResource) takenDetail(p awsclient.InstanceProfile, class string) string {
	who := "was not created by this provider"
	adopt := "Delete it if it is unused, give the class another name, or set `instance_profile` to use it as it is."
	if p.Tags[launchplan.TagManagedBy] == launchplan.ManagedBy && p.Tags[launchplan.TagOwner] != "" {
		who = "belongs to owner " + p.Tags[launchplan.TagOwner] + " (another Terraform state, or an apply interrupted before it saved state)"
		adopt = fmt.Sprintf("To take it over on purpose, import the class: `terraform import <address> %s` (or an `import { id = %q }` "+
			"block). Otherwise give the class another name.", class, class)
	}
	return fmt.Sprintf("The provider creates instance profile %s (path %s) for node class %q%s with `role`, but a profile of that name "+
		"already exists and %s. The provider never changes or deletes it. %s", p.Name, nodeclass.InstanceProfilePath, class,
		clusterSuffix(r.meta.ClusterName), who, adopt)
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

// recordedProfile is resolved.instance_profile of a model: the profile the plan (or the applied
// state) names, "" when unknown or null.
func recordedProfile(m *nodeClassModel) string {
	if m.Resolved.IsNull() || m.Resolved.IsUnknown() {
		return ""
	}
	v, ok := m.Resolved.Attributes()["instance_profile"].(types.String)
	if !ok {
		return ""
	}
	return v.ValueString()
}

// ownProfiles are the profiles a class with `role` in state may have created: the recorded one
// and the one of its name under the current provider settings (refresh nulls the recorded name
// when the profile drifted).
func (r *nodeClassResource) ownProfiles(m *nodeClassModel) []string {
	if m.Role.ValueString() == "" || m.OwnerID.ValueString() == "" {
		return nil
	}
	names := []string{r.profileNameFor(m.Name.ValueString())}
	if rec := recordedProfile(m); rec != "" && rec != names[0] {
		names = append(names, rec)
	}
	return names
}

// ensureProfile makes IAM hold the class's profile with its role; failures are errors on `role`.
func (r *nodeClassResource) ensureProfile(ctx context.Context, m *nodeClassModel, diags *diag.Diagnostics) {
	name := recordedProfile(m)
	if m.Role.ValueString() == "" || name == "" {
		return
	}
	_, err := r.profiles().Ensure(ctx, r.profileSpec(m, name))
	var notOwned *awsclient.NotOwnedError
	switch {
	case err == nil:
	case errors.As(err, &notOwned):
		diags.AddAttributeError(path.Root("role"), "Instance profile name already taken",
			r.takenDetail(awsclient.InstanceProfile{Name: name, Tags: notOwned.Tags}, m.Name.ValueString()))
	case errors.Is(err, awsclient.ErrRoleNotFound):
		diags.AddAttributeError(path.Root("role"), "IAM role not found", err.Error())
	default:
		diags.AddAttributeError(path.Root("role"), "Cannot create the class's instance profile",
			err.Error()+"\n\nThe provider needs iam:CreateInstanceProfile, iam:TagInstanceProfile, iam:AddRoleToInstanceProfile, "+
				"iam:RemoveRoleFromInstanceProfile and iam:PassRole on the role.")
	}
}

// deleteProfiles deletes the named profiles of the class's owner id; a profile of another owner
// is left with a warning, a missing one is done.
func (r *nodeClassResource) deleteProfiles(ctx context.Context, names []string, owner string, diags *diag.Diagnostics) {
	for _, name := range names {
		err := r.profiles().Delete(ctx, name, nodeclass.InstanceProfileOwnership(owner))
		var notOwned *awsclient.NotOwnedError
		switch {
		case err == nil:
		case errors.As(err, &notOwned):
			diags.AddWarning("Instance profile left in place",
				fmt.Sprintf("instance profile %s is not this class's (its ownership tags differ), so it was not deleted.", name))
		default:
			diags.AddError("Cannot delete the class's instance profile",
				err.Error()+"\n\nThe provider needs iam:RemoveRoleFromInstanceProfile and iam:DeleteInstanceProfile.")
		}
	}
}

// profileDrifted reports whether the recorded profile of a class with `role` is no longer as
// apply left it (deleted, role removed or changed, ownership tags gone).
func (r *nodeClassResource) profileDrifted(ctx context.Context, m *nodeClassModel) (bool, error) {
	name := recordedProfile(m)
	if m.Role.ValueString() == "" || name == "" || m.OwnerID.ValueString() == "" {
		return false, nil
	}
	ok, err := r.profiles().Current(ctx, name, m.Role.ValueString(), nodeclass.InstanceProfileOwnership(m.OwnerID.ValueString()))
	return !ok, err
}

// adoptProfile is the owner id of the provider's profile for the class name, when one exists
// with the provider's tags; "" otherwise.
func (r *nodeClassResource) adoptProfile(ctx context.Context, class string) (string, error) {
	p, err := r.profiles().Get(ctx, r.profileNameFor(class))
	if err != nil || p == nil {
		return "", err
	}
	if p.Tags[launchplan.TagManagedBy] != launchplan.ManagedBy || p.Tags[launchplan.TagNodeClass] != class {
		return "", nil
	}
	return p.Tags[launchplan.TagOwner], nil
}
