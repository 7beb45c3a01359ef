package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The instance profile of a node class with `role` for the static pools the provider launches:
// the provider creates it (name, path and tags from nodeclass.InstanceProfileName /
// InstanceProfileTags) only when the class asks for it (`instance_profile_for_static_pools`), so
// that the launch templates of those pools start nodes with the role's credentials; Karpenter
// creates its own profile for the nodes it launches from the EC2NodeClass, so a class whose pools
// Karpenter launches needs no IAM write. The class owns the profile through its owner id and
// changes or deletes no profile without its ownership tags.

// ProfileAPI is what the profile stage needs of IAM (awsclient.InstanceProfiles).
type ProfileAPI interface {
	RoleExists(ctx context.Context, role string) (bool, error)
	Get(ctx context.Context, name string) (*InstanceProfile, error)
	Current(ctx context.Context, name, role string, own map[string]string) (bool, error)
	Ensure(ctx context.Context, s ProfileSpec) (InstanceProfile, error)
	Delete(ctx context.Context, name string, own map[string]string) error
}

// Profiles is the instance-profile stage of node classes in one cluster and region.
type Profiles struct {
	IAM             ProfileAPI
	Cluster, Region string
}

// ClassProfile is what the stage reads of a class.
type ClassProfile struct {
	Class           string
	Role            string
	RoleUnknown     bool   // a role known only after apply
	InstanceProfile string // the configured instance_profile
	// ForStaticPools: with `role`, the provider creates the class's profile for the static pools
	// it launches (`instance_profile_for_static_pools`); otherwise the class has none of its own.
	ForStaticPools bool
	Owner          string // the owner id ("" for a class that owns nothing yet)
	Recorded       string // resolved.instance_profile of the plan or state ("" when unknown or null)
}

// IAMPermissionsHint names the read permissions planning a class needs.
const IAMPermissionsHint = "The provider needs iam:GetRole and iam:GetInstanceProfile to plan a class with `role` " +
	"(iam:GetInstanceProfile with `instance_profile`)."

var (
	pathRole            = attrpath.Of("role")
	pathInstanceProfile = attrpath.Of("instance_profile")
)

// NameFor is the name of the profile the provider creates for a class of that name.
func (p Profiles) NameFor(class string) string {
	return nodeclass.InstanceProfileName(p.Cluster, p.Region, class)
}

// Plan checks the class's IAM inputs and returns the instance profile the launch templates
// will name ("" with `instance_profile`: resolved keeps the configured one; "" with `role` and
// no profile for static pools). With `instance_profile`, the profile must exist. With `role`,
// the role must exist and, for static pools, the provider's profile name must be free or
// already this class's. It makes no mutating call.
func (p Profiles) Plan(ctx context.Context, c ClassProfile) (string, []attrpath.Finding) {
	fail := func(at attrpath.Path, summary, msg string) (string, []attrpath.Finding) {
		return "", []attrpath.Finding{{Path: at, Summary: summary, Message: msg}}
	}
	if c.InstanceProfile != "" {
		got, err := p.IAM.Get(ctx, c.InstanceProfile)
		switch {
		case err != nil:
			return fail(pathInstanceProfile, "Cannot read the instance profile", err.Error()+"\n\n"+IAMPermissionsHint)
		case got == nil:
			return fail(pathInstanceProfile, "Instance profile not found", fmt.Sprintf("instance profile %s not found in this account: "+
				"nodes launched with it would not start. Create it first, or set `role` instead and the provider creates a profile for the role.",
				c.InstanceProfile))
		}
		return "", nil
	}
	if c.Role == "" && !c.RoleUnknown {
		return "", nil // validation requires one of the two
	}
	if !c.ForStaticPools { // no profile of the provider's: the role alone is checked
		return "", p.roleFindings(ctx, c)
	}
	// The role and the profile's name are two independent reads: both go out at once, and the
	// role's answer is reported first.
	name := p.NameFor(c.Class)
	type profileAnswer struct {
		got *InstanceProfile
		err error
	}
	profile := make(chan profileAnswer, 1)
	go func() {
		got, err := p.IAM.Get(ctx, name)
		profile <- profileAnswer{got, err}
	}()
	if errs := p.roleFindings(ctx, c); len(errs) > 0 {
		return "", errs
	}
	a := <-profile
	got, err := a.got, a.err
	if err != nil {
		return fail(pathRole, "Cannot read the class's instance profile", err.Error()+"\n\n"+IAMPermissionsHint)
	}
	if got != nil && (c.Owner == "" || !got.Owned(nodeclass.InstanceProfileOwnership(c.Owner))) {
		return fail(pathRole, "Instance profile name already taken", p.takenDetail(*got, c.Class))
	}
	return name, nil
}

// roleFindings check that the class's role exists; a role known only after apply is checked
// when apply adds it to the profile (or, without one, by Karpenter).
func (p Profiles) roleFindings(ctx context.Context, c ClassProfile) []attrpath.Finding {
	if c.RoleUnknown {
		return nil
	}
	ok, err := p.IAM.RoleExists(ctx, c.Role)
	switch {
	case err != nil:
		return []attrpath.Finding{{Path: pathRole, Summary: "Cannot read the IAM role", Message: err.Error() + "\n\n" + IAMPermissionsHint}}
	case !ok:
		return []attrpath.Finding{{Path: pathRole, Summary: "IAM role not found",
			Message: fmt.Sprintf("role %s not found in this account: Karpenter's instance profile for this class needs it (and so does the "+
				"provider's, for static pools).", c.Role)}}
	}
	return nil
}

// takenDetail explains a profile of the class's name that is not the class's own.
func (p Profiles) takenDetail(prof InstanceProfile, class string) string {
	who := "was not created by this provider"
	adopt := "Delete it if it is unused, give the class another name, or set `instance_profile` to use it as it is."
	if prof.Tags[launchplan.TagManagedBy] == launchplan.ManagedBy && prof.Tags[launchplan.TagOwner] != "" {
		who = "belongs to owner " + prof.Tags[launchplan.TagOwner] + " (another Terraform state, or an apply interrupted before it saved state)"
		adopt = fmt.Sprintf("To take it over on purpose, import the class: `terraform import <address> %s` (or an `import { id = %q }` "+
			"block). Otherwise give the class another name.", class, class)
	}
	return fmt.Sprintf("The provider creates instance profile %s (path %s) for the static pools of node class %q%s, but a profile of that name "+
		"already exists and %s. The provider never changes or deletes it. %s", prof.Name, nodeclass.InstanceProfilePath, class,
		Cluster{Name: p.Cluster}.suffix(), who, adopt)
}

// Owned are the profiles a class with `role` may have created: the recorded one and, for static
// pools, the one of its name under the current provider settings (refresh clears the recorded
// name when the profile drifted).
func (p Profiles) Owned(c ClassProfile) []string {
	if c.Role == "" || c.Owner == "" {
		return nil
	}
	var names []string
	if c.ForStaticPools {
		names = append(names, p.NameFor(c.Class))
	}
	if c.Recorded != "" && !slices.Contains(names, c.Recorded) {
		names = append(names, c.Recorded)
	}
	return names
}

// Unused are the profiles the class owned before (was) that it no longer uses now (role
// replaced by instance_profile, no profile for static pools any more, or a new name after a
// provider setting changed).
func (p Profiles) Unused(was, now ClassProfile) []string {
	keep := now.InstanceProfile // a profile the class now names is never unused
	if now.Role != "" {
		keep = now.Recorded
	}
	var out []string
	for _, name := range p.Owned(was) {
		if name != keep {
			out = append(out, name)
		}
	}
	return out
}

// Ensure makes IAM hold the class's recorded profile with its role; failures are on `role`.
func (p Profiles) Ensure(ctx context.Context, c ClassProfile) []attrpath.Finding {
	if c.Role == "" || c.Recorded == "" {
		return nil
	}
	_, err := p.IAM.Ensure(ctx, ProfileSpec{
		Name: c.Recorded, Path: nodeclass.InstanceProfilePath, Role: c.Role,
		Tags: nodeclass.InstanceProfileTags(p.Cluster, p.Region, c.Class, c.Owner),
		Own:  nodeclass.InstanceProfileOwnership(c.Owner),
	})
	var notOwned *NotOwnedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &notOwned):
		return []attrpath.Finding{{Path: pathRole, Summary: "Instance profile name already taken",
			Message: p.takenDetail(InstanceProfile{Name: c.Recorded, Tags: notOwned.Tags}, c.Class)}}
	case errors.Is(err, ErrRoleNotFound):
		return []attrpath.Finding{{Path: pathRole, Summary: "IAM role not found", Message: err.Error()}}
	}
	return []attrpath.Finding{{Path: pathRole, Summary: "Cannot create the class's instance profile",
		Message: err.Error() + "\n\nThe provider needs iam:CreateInstanceProfile, iam:TagInstanceProfile, iam:AddRoleToInstanceProfile, " +
			"iam:RemoveRoleFromInstanceProfile and iam:PassRole on the role."}}
}

// Delete deletes the named profiles of the owner: a profile of another owner is left (a
// warning), a missing one is done.
func (p Profiles) Delete(ctx context.Context, names []string, owner string) (errs, warnings []attrpath.Finding) {
	for _, name := range names {
		err := p.IAM.Delete(ctx, name, nodeclass.InstanceProfileOwnership(owner))
		var notOwned *NotOwnedError
		switch {
		case err == nil:
		case errors.As(err, &notOwned):
			warnings = append(warnings, attrpath.Finding{Summary: "Instance profile left in place",
				Message: fmt.Sprintf("instance profile %s is not this class's (its ownership tags differ), so it was not deleted.", name)})
		default:
			errs = append(errs, attrpath.Finding{Summary: "Cannot delete the class's instance profile",
				Message: err.Error() + "\n\nThe provider needs iam:RemoveRoleFromInstanceProfile and iam:DeleteInstanceProfile."})
		}
	}
	return errs, warnings
}

// Drifted reports whether the recorded profile of a class with `role` is no longer as apply
// left it (deleted, role removed or changed, ownership tags gone).
func (p Profiles) Drifted(ctx context.Context, c ClassProfile) (bool, error) {
	if c.Role == "" || c.Recorded == "" || c.Owner == "" {
		return false, nil
	}
	ok, err := p.IAM.Current(ctx, c.Recorded, c.Role, nodeclass.InstanceProfileOwnership(c.Owner))
	return !ok, err
}

// Adopt is the owner id of the provider's profile for the class name, when one exists with the
// provider's tags; "" otherwise.
func (p Profiles) Adopt(ctx context.Context, class string) (string, error) {
	got, err := p.IAM.Get(ctx, p.NameFor(class))
	if err != nil || got == nil {
		return "", err
	}
	if got.Tags[launchplan.TagManagedBy] != launchplan.ManagedBy || got.Tags[launchplan.TagNodeClass] != class {
		return "", nil
	}
	return got.Tags[launchplan.TagOwner], nil
}
