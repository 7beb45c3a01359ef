package awsclient

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// InstanceProfiles finds, creates and deletes instance profiles.
type InstanceProfiles struct {
	IAM IAMAPI
	// Versions keeps the managed policy versions the node-role check reads (nil: none kept).
	Versions *PolicyVersions
	// Sleep waits between attempts while IAM catches up with a change (eventual consistency);
	// nil: time.Sleep, cut short by the context.
	Sleep func(context.Context, time.Duration) error
}

// consistencyAttempts bounds the waits for IAM to show a just-made change: IAM documents that
// changes can take seconds to become visible (the delays below add up to about 15s).
const consistencyAttempts = 7

func (p InstanceProfiles) sleep(ctx context.Context, attempt int) error {
	d := min(250*time.Millisecond<<attempt, 4*time.Second)
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return fleet.Sleep(ctx, d)
}

// roleName drops a role path: a class `role` may be given as path/name, as Karpenter accepts,
// and IAM's role calls take the name alone.
func roleName(role string) string {
	return role[strings.LastIndex(role, "/")+1:]
}

// RoleExists reports whether the role exists.
func (p InstanceProfiles) RoleExists(ctx context.Context, role string) (bool, error) {
	_, err := p.IAM.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName(role))})
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("GetRole %s: %w", role, err)
	}
}

// Get returns the profile, or nil when it does not exist.
func (p InstanceProfiles) Get(ctx context.Context, name string) (*fleet.InstanceProfile, error) {
	out, err := p.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("GetInstanceProfile %s: %w", name, err)
	}
	got := profileFrom(out.InstanceProfile)
	return &got, nil
}

func profileFrom(ip *iamtypes.InstanceProfile) fleet.InstanceProfile {
	out := fleet.InstanceProfile{Tags: map[string]string{}}
	if ip == nil {
		return out
	}
	out.Name, out.Path, out.ARN = aws.ToString(ip.InstanceProfileName), aws.ToString(ip.Path), aws.ToString(ip.Arn)
	for _, r := range ip.Roles {
		out.Roles = append(out.Roles, aws.ToString(r.RoleName))
	}
	for _, t := range ip.Tags {
		out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return out
}

// Current reports whether the profile exists, carries the ownership tags and holds exactly the
// role: what Ensure leaves behind. Refresh uses it to notice a profile changed outside Terraform.
func (p InstanceProfiles) Current(ctx context.Context, name, role string, own map[string]string) (bool, error) {
	cur, err := p.Get(ctx, name)
	if err != nil || cur == nil {
		return false, err
	}
	return cur.Owned(own) && slices.Equal(cur.Roles, []string{roleName(role)}), nil
}

// Ensure makes the profile exist with exactly the spec's role, idempotently: it creates a
// missing profile, restores missing or changed tags of its own profile, replaces another role
// (a profile holds one) and adds the role. A profile of that name without the spec's ownership
// tags is refused with *NotOwnedError and left untouched. A role that does not exist fails with
// ErrRoleNotFound (wrapped).
func (p InstanceProfiles) Ensure(ctx context.Context, s fleet.ProfileSpec) (fleet.InstanceProfile, error) {
	cur, err := p.Get(ctx, s.Name)
	if err != nil {
		return fleet.InstanceProfile{}, err
	}
	created := false
	if cur == nil {
		cur, err = p.create(ctx, s)
		if err != nil {
			return fleet.InstanceProfile{}, err
		}
		created = true
	}
	if !cur.Owned(s.Own) {
		return *cur, &fleet.NotOwnedError{Name: s.Name, Tags: cur.Tags}
	}
	if err := p.restoreTags(ctx, cur, s.Tags); err != nil {
		return *cur, err
	}
	role := roleName(s.Role)
	for _, r := range cur.Roles {
		if r == role {
			continue
		}
		if _, err := p.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
			InstanceProfileName: aws.String(s.Name), RoleName: aws.String(r),
		}); err != nil && !IsNotFound(err) {
			return *cur, fmt.Errorf("RemoveRoleFromInstanceProfile %s (role %s): %w", s.Name, r, err)
		}
	}
	if slices.Contains(cur.Roles, role) {
		cur.Roles = []string{role}
		return *cur, nil
	}
	if err := p.addRole(ctx, s.Name, role, created); err != nil {
		return *cur, err
	}
	cur.Roles = []string{role}
	return *cur, p.waitVisible(ctx, s.Name, role)
}

// create creates the profile; when the name was taken in the meantime it returns what IAM holds
// under it (Ensure then checks that it is the caller's).
func (p InstanceProfiles) create(ctx context.Context, s fleet.ProfileSpec) (*fleet.InstanceProfile, error) {
	in := &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(s.Name), Tags: iamTags(s.Tags)}
	if s.Path != "" {
		in.Path = aws.String(s.Path)
	}
	out, err := p.IAM.CreateInstanceProfile(ctx, in)
	if IsAlreadyExists(err) {
		for attempt := 0; ; attempt++ {
			cur, gerr := p.Get(ctx, s.Name)
			if gerr != nil || cur != nil {
				return cur, gerr
			}
			if attempt+1 >= consistencyAttempts {
				return nil, fmt.Errorf("CreateInstanceProfile %s: %w (and the existing profile cannot be read)", s.Name, err)
			}
			if serr := p.sleep(ctx, attempt); serr != nil {
				return nil, serr
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("CreateInstanceProfile %s: %w", s.Name, err)
	}
	got := profileFrom(out.InstanceProfile)
	if got.Name == "" { // an answer without the profile: what was asked for
		got = fleet.InstanceProfile{Name: s.Name, Path: s.Path}
	}
	if len(got.Tags) == 0 {
		got.Tags = maps.Clone(s.Tags)
	}
	return &got, nil
}

// restoreTags writes the spec's tags that the profile lacks or holds with another value.
func (p InstanceProfiles) restoreTags(ctx context.Context, cur *fleet.InstanceProfile, want map[string]string) error {
	missing := map[string]string{}
	for k, v := range want {
		if got, ok := cur.Tags[k]; !ok || got != v {
			missing[k] = v
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := p.IAM.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{
		InstanceProfileName: aws.String(cur.Name), Tags: iamTags(missing),
	}); err != nil {
		return fmt.Errorf("TagInstanceProfile %s: %w", cur.Name, err)
	}
	maps.Copy(cur.Tags, missing)
	return nil
}

// addRole adds the role. NoSuchEntity names either the profile (not visible yet right after it
// was created) or the role: a missing role fails at once, a fresh profile is waited for.
func (p InstanceProfiles) addRole(ctx context.Context, profile, role string, fresh bool) error {
	for attempt := 0; ; attempt++ {
		_, err := p.IAM.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{
			InstanceProfileName: aws.String(profile), RoleName: aws.String(role),
		})
		if err == nil || !IsNotFound(err) {
			if err != nil {
				return fmt.Errorf("AddRoleToInstanceProfile %s (role %s): %w", profile, role, err)
			}
			return nil
		}
		ok, rerr := p.RoleExists(ctx, role)
		if rerr != nil {
			return rerr
		}
		if !ok {
			return fmt.Errorf("adding role %s to instance profile %s: %w", role, profile, fleet.ErrRoleNotFound)
		}
		if !fresh || attempt+1 >= consistencyAttempts {
			return fmt.Errorf("AddRoleToInstanceProfile %s (role %s): %w", profile, role, err)
		}
		if err := p.sleep(ctx, attempt); err != nil {
			return err
		}
	}
}

// waitVisible waits until reading the profile shows the role, so that what runs next (a launch
// with the profile, the next plan) sees the change.
func (p InstanceProfiles) waitVisible(ctx context.Context, name, role string) error {
	for attempt := 0; ; attempt++ {
		cur, err := p.Get(ctx, name)
		if err != nil {
			return err
		}
		if cur != nil && slices.Contains(cur.Roles, role) {
			return nil
		}
		if attempt+1 >= consistencyAttempts {
			return fmt.Errorf("instance profile %s does not show role %s yet (IAM eventual consistency); apply again", name, role)
		}
		if err := p.sleep(ctx, attempt); err != nil {
			return err
		}
	}
}

// Delete removes the profile's roles and then the profile, only when it carries the ownership
// tags (else *NotOwnedError, nothing changed). A profile that is already gone is done.
func (p InstanceProfiles) Delete(ctx context.Context, name string, own map[string]string) error {
	cur, err := p.Get(ctx, name)
	if err != nil || cur == nil {
		return err
	}
	if !cur.Owned(own) {
		return &fleet.NotOwnedError{Name: name, Tags: cur.Tags}
	}
	for _, r := range cur.Roles {
		if _, err := p.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
			InstanceProfileName: aws.String(name), RoleName: aws.String(r),
		}); err != nil && !IsNotFound(err) {
			return fmt.Errorf("RemoveRoleFromInstanceProfile %s (role %s): %w", name, r, err)
		}
	}
	if _, err := p.IAM.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(name)}); err != nil &&
		!IsNotFound(err) {
		return fmt.Errorf("DeleteInstanceProfile %s: %w", name, err)
	}
	return nil
}

// iamTags are the tags in IAM's form, sorted by key (a request built twice serializes the same).
func iamTags(tags map[string]string) []iamtypes.Tag {
	out := make([]iamtypes.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, iamtypes.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

// ReadOnce is p whose Get reads each profile once, concurrent callers sharing the read: the
// checks of one plan (the profile check, the node-role check) ask for the same profile.
func (p InstanceProfiles) ReadOnce() *ProfilesReadOnce {
	return &ProfilesReadOnce{InstanceProfiles: p, reads: map[string]*profileRead{}}
}

// ProfilesReadOnce is InstanceProfiles with Get read once per name (ReadOnce).
type ProfilesReadOnce struct {
	InstanceProfiles
	mu    sync.Mutex
	reads map[string]*profileRead
}

type profileRead struct {
	once    sync.Once
	profile *fleet.InstanceProfile
	err     error
}

// Get is InstanceProfiles.Get, read once per name.
func (c *ProfilesReadOnce) Get(ctx context.Context, name string) (*fleet.InstanceProfile, error) {
	c.mu.Lock()
	r := c.reads[name]
	if r == nil {
		r = &profileRead{}
		c.reads[name] = r
	}
	c.mu.Unlock()
	r.once.Do(func() { r.profile, r.err = c.InstanceProfiles.Get(ctx, name) })
	return r.profile, r.err
}
