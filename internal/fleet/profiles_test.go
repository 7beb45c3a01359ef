package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// fakeIAM holds roles and instance profiles in memory and records every call as "Method arg".
type fakeIAM struct {
	roles    map[string]bool
	profiles map[string]fleet.InstanceProfile
	// errs fail the call of that "Method arg".
	errs    map[string]error
	current bool

	calls   []string
	ensured []fleet.ProfileSpec
	owns    []map[string]string // the ownership tags of Current and Delete
}

func (f *fakeIAM) call(method, arg string) error {
	c := method + " " + arg
	f.calls = append(f.calls, c)
	return f.errs[c]
}

func (f *fakeIAM) RoleExists(_ context.Context, role string) (bool, error) {
	if err := f.call("RoleExists", role); err != nil {
		return false, err
	}
	return f.roles[role], nil
}

func (f *fakeIAM) Get(_ context.Context, name string) (*fleet.InstanceProfile, error) {
	if err := f.call("Get", name); err != nil {
		return nil, err
	}
	p, ok := f.profiles[name]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

func (f *fakeIAM) Current(_ context.Context, name, role string, own map[string]string) (bool, error) {
	f.owns = append(f.owns, own)
	if err := f.call("Current", name+" "+role); err != nil {
		return false, err
	}
	return f.current, nil
}

func (f *fakeIAM) Ensure(_ context.Context, s fleet.ProfileSpec) (fleet.InstanceProfile, error) {
	f.ensured = append(f.ensured, s)
	if err := f.call("Ensure", s.Name); err != nil {
		return fleet.InstanceProfile{}, err
	}
	return fleet.InstanceProfile{Name: s.Name, Path: s.Path, Roles: []string{s.Role}, Tags: s.Tags}, nil
}

func (f *fakeIAM) Delete(_ context.Context, name string, own map[string]string) error {
	f.owns = append(f.owns, own)
	return f.call("Delete", name)
}

var _ fleet.ProfileAPI = (*fakeIAM)(nil)

const (
	testRegion = "us-west-2"
	testRole   = "KarpenterNodeRole"
)

// ownTags are the provider's ownership tags of owner, written out here.
func ownTags(owner string, extra ...string) map[string]string {
	tags := map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagOwner: owner}
	for i := 0; i+1 < len(extra); i += 2 {
		tags[extra[i]] = extra[i+1]
	}
	return tags
}

func profilesOf(f *fakeIAM) fleet.Profiles {
	return fleet.Profiles{IAM: f, Cluster: "c1", Region: testRegion}
}

func TestProfilesPlan(t *testing.T) {
	name := nodeclass.InstanceProfileName("c1", testRegion, "default")
	denied := errors.New("AccessDenied")
	for _, tc := range []struct {
		name    string
		iam     fakeIAM
		class   fleet.ClassProfile
		want    string
		path    string // the one finding's path ("": none)
		summary string
		msg     []string // substrings of its message
		calls   []string
		noCalls bool
	}{
		{
			name: "instance_profile exists", iam: fakeIAM{profiles: map[string]fleet.InstanceProfile{"custom": {Name: "custom"}}},
			class: fleet.ClassProfile{Class: "default", InstanceProfile: "custom", Role: ""}, calls: []string{"Get custom"},
		},
		{
			name: "instance_profile missing", class: fleet.ClassProfile{Class: "default", InstanceProfile: "custom"},
			path: "instance_profile", summary: "Instance profile not found", msg: []string{"instance profile custom not found"},
			calls: []string{"Get custom"},
		},
		{
			name: "instance_profile unreadable", iam: fakeIAM{errs: map[string]error{"Get custom": denied}},
			class: fleet.ClassProfile{Class: "default", InstanceProfile: "custom"},
			path:  "instance_profile", summary: "Cannot read the instance profile", msg: []string{"AccessDenied", fleet.IAMPermissionsHint},
		},
		{
			name: "neither role nor instance_profile", class: fleet.ClassProfile{Class: "default"}, noCalls: true,
		},
		{
			name: "role missing", class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"},
			path: "role", summary: "IAM role not found", msg: []string{"role KarpenterNodeRole not found"},
			calls: []string{"RoleExists " + testRole},
		},
		{
			name: "role unreadable", iam: fakeIAM{errs: map[string]error{"RoleExists " + testRole: denied}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true},
			path:  "role", summary: "Cannot read the IAM role", msg: []string{"AccessDenied", fleet.IAMPermissionsHint},
		},
		{
			name: "role, no profile yet", iam: fakeIAM{roles: map[string]bool{testRole: true}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true}, want: name,
			calls: []string{"RoleExists " + testRole, "Get " + name},
		},
		{
			name: "own profile",
			iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: ownTags("o1", launchplan.TagNodeClass, "default")}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"}, want: name,
		},
		{
			name: "another owner's profile",
			iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: ownTags("o2")}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"},
			path:  "role", summary: "Instance profile name already taken",
			msg: []string{name, "path /nodeplane/", `node class "default" in cluster c1`, "belongs to owner o2", "terraform import <address> default"},
		},
		{
			name: "a class without owner meets a profile of its name",
			iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: ownTags("o1")}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true},
			path:  "role", summary: "Instance profile name already taken", msg: []string{"belongs to owner o1"},
		},
		{
			name: "a class without owner meets a provider profile with an empty owner tag",
			iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: ownTags("")}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true},
			path:  "role", summary: "Instance profile name already taken",
		},
		{
			name: "a profile created outside the provider",
			iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: map[string]string{"team": "x"}}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"},
			path:  "role", summary: "Instance profile name already taken", msg: []string{"was not created by this provider", "set `instance_profile`"},
		},
		{
			name: "profile unreadable", iam: fakeIAM{roles: map[string]bool{testRole: true}, errs: map[string]error{"Get " + name: denied}},
			class: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"},
			path:  "role", summary: "Cannot read the class's instance profile", msg: []string{"AccessDenied"},
		},
		{
			// Karpenter keeps its own profile for the pools it launches: without static pools
			// the class has none of the provider's, and the plan reads the role only.
			name: "role, no profile for static pools", iam: fakeIAM{roles: map[string]bool{testRole: true},
				profiles: map[string]fleet.InstanceProfile{name: {Name: name, Tags: ownTags("o2")}}},
			class: fleet.ClassProfile{Class: "default", Role: testRole}, calls: []string{"RoleExists " + testRole},
		},
		{
			name: "role missing, no profile for static pools", class: fleet.ClassProfile{Class: "default", Role: testRole},
			path: "role", summary: "IAM role not found", msg: []string{"role KarpenterNodeRole not found"},
			calls: []string{"RoleExists " + testRole},
		},
		{
			name: "role known only after apply, no profile for static pools", class: fleet.ClassProfile{Class: "default", RoleUnknown: true},
			noCalls: true,
		},
		{
			name: "role known only after apply", class: fleet.ClassProfile{Class: "default", RoleUnknown: true, ForStaticPools: true, Owner: "o1"},
			want: name, calls: []string{"Get " + name},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.iam
			got, findings := profilesOf(&f).Plan(t.Context(), tc.class)
			if got != tc.want {
				t.Errorf("profile %q, want %q", got, tc.want)
			}
			if tc.path == "" {
				if len(findings) != 0 {
					t.Errorf("findings %+v, want none", findings)
				}
			} else {
				if len(findings) != 1 || findings[0].Path.String() != tc.path || findings[0].Summary != tc.summary {
					t.Fatalf("findings %+v, want one %q on %s", findings, tc.summary, tc.path)
				}
				for _, m := range tc.msg {
					if !strings.Contains(findings[0].Message, m) {
						t.Errorf("message %q does not contain %q", findings[0].Message, m)
					}
				}
			}
			if tc.calls != nil && !slices.Equal(f.calls, tc.calls) {
				t.Errorf("calls %v, want %v", f.calls, tc.calls)
			}
			if tc.noCalls && len(f.calls) != 0 {
				t.Errorf("calls %v, want none", f.calls)
			}
			for _, c := range f.calls {
				if strings.HasPrefix(c, "Ensure") || strings.HasPrefix(c, "Delete") {
					t.Errorf("plan made a mutating call: %s", c)
				}
			}
		})
	}
}

func TestProfilesOwned(t *testing.T) {
	p := fleet.Profiles{Cluster: "c1", Region: testRegion}
	name := p.NameFor("default")
	if name != nodeclass.InstanceProfileName("c1", testRegion, "default") {
		t.Fatalf("NameFor = %q", name)
	}
	const old = "nodeplane-old-0123456789"
	for _, tc := range []struct {
		name string
		c    fleet.ClassProfile
		want []string
	}{
		{"role, its name recorded", fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1", Recorded: name}, []string{name}},
		{"role, nothing recorded", fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"}, []string{name}},
		{"role, an older name recorded", fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1", Recorded: old}, []string{name, old}},
		{"role, no profile for static pools", fleet.ClassProfile{Class: "default", Role: testRole, Owner: "o1"}, nil},
		{"role, no profile for static pools now, its name recorded", fleet.ClassProfile{Class: "default", Role: testRole, Owner: "o1", Recorded: name},
			[]string{name}},
		{"no owner yet", fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Recorded: name}, nil},
		{"instance_profile", fleet.ClassProfile{Class: "default", InstanceProfile: "custom", Owner: "o1", Recorded: "custom"}, nil},
	} {
		if got := p.Owned(tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Owned = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProfilesUnused(t *testing.T) {
	p := fleet.Profiles{Cluster: "c1", Region: testRegion}
	name := p.NameFor("default")
	const old = "nodeplane-old-0123456789"
	role := func(recorded string) fleet.ClassProfile {
		return fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1", Recorded: recorded}
	}
	custom := fleet.ClassProfile{Class: "default", InstanceProfile: "custom", Owner: "o1", Recorded: "custom"}
	for _, tc := range []struct {
		name     string
		was, now fleet.ClassProfile
		want     []string
	}{
		{"unchanged", role(name), role(name), nil},
		{"role replaced by instance_profile", role(name), custom, []string{name}},
		{"role replaced, an older name recorded too", role(old), custom, []string{name, old}},
		{"a new name after a provider setting changed", role(old), role(name), []string{old}},
		{"instance_profile replaced by role: nothing was owned", custom, role(name), nil},
		{"no profile for static pools any more", role(name), fleet.ClassProfile{Class: "default", Role: testRole, Owner: "o1"}, []string{name}},
		{"no owner before: nothing was owned", fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Recorded: name}, role(name), nil},
		{"role replaced by instance_profile naming the provider's profile: kept", role(name),
			fleet.ClassProfile{Class: "default", InstanceProfile: name, Owner: "o1", Recorded: name}, nil},
	} {
		if got := p.Unused(tc.was, tc.now); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Unused = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProfilesEnsure(t *testing.T) {
	name := nodeclass.InstanceProfileName("c1", testRegion, "default")
	c := fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1", Recorded: name}
	for _, tc := range []struct {
		name    string
		c       fleet.ClassProfile
		err     error
		summary string // "" : no finding
		msg     string
	}{
		{name: "created", c: c},
		{name: "another owner's", c: c, err: &fleet.NotOwnedError{Name: name, Tags: ownTags("o2")},
			summary: "Instance profile name already taken", msg: "belongs to owner o2"},
		{name: "role gone", c: c, err: fmt.Errorf("adding role: %w", fleet.ErrRoleNotFound), summary: "IAM role not found", msg: "adding role"},
		{name: "denied", c: c, err: errors.New("AccessDenied"), summary: "Cannot create the class's instance profile", msg: "iam:PassRole"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeIAM{errs: map[string]error{"Ensure " + name: tc.err}}
			got := profilesOf(f).Ensure(t.Context(), tc.c)
			if tc.summary == "" {
				if len(got) != 0 {
					t.Errorf("findings %+v", got)
				}
			} else if len(got) != 1 || got[0].Path.String() != "role" || got[0].Summary != tc.summary || !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("findings %+v, want %q on role with %q", got, tc.summary, tc.msg)
			}
			if len(f.ensured) != 1 {
				t.Fatalf("Ensure calls %+v", f.ensured)
			}
			s := f.ensured[0]
			if s.Name != name || s.Path != nodeclass.InstanceProfilePath || s.Role != testRole {
				t.Errorf("spec %+v", s)
			}
			if !maps.Equal(s.Own, ownTags("o1")) {
				t.Errorf("Own = %v, want the owner's tags", s.Own)
			}
			if s.Tags[launchplan.TagOwner] != "o1" || s.Tags[nodeclass.TagNodeClass] != "default" || s.Tags["topology.kubernetes.io/region"] != testRegion ||
				s.Tags["kubernetes.io/cluster/c1"] != "owned" {
				t.Errorf("Tags = %v", s.Tags)
			}
		})
	}
	for _, skip := range []fleet.ClassProfile{{Class: "default", InstanceProfile: "custom", Owner: "o1"}, {Class: "default", Role: testRole, Owner: "o1"}} {
		f := &fakeIAM{}
		if got := profilesOf(f).Ensure(t.Context(), skip); got != nil || len(f.calls) != 0 {
			t.Errorf("%+v: findings %+v, calls %v; want nothing to ensure", skip, got, f.calls)
		}
	}
}

func TestProfilesDelete(t *testing.T) {
	f := &fakeIAM{errs: map[string]error{
		"Delete theirs": &fleet.NotOwnedError{Name: "theirs", Tags: ownTags("o2")},
		"Delete broken": errors.New("DeleteConflict"),
	}}
	errs, warnings := profilesOf(f).Delete(t.Context(), []string{"mine", "theirs", "broken", "gone"}, "o1")
	if !slices.Equal(f.calls, []string{"Delete mine", "Delete theirs", "Delete broken", "Delete gone"}) {
		t.Errorf("calls %v, want every name tried", f.calls)
	}
	for _, own := range f.owns {
		if !maps.Equal(own, ownTags("o1")) {
			t.Errorf("deleted with ownership %v, want the owner's", own)
		}
	}
	if len(warnings) != 1 || warnings[0].Summary != "Instance profile left in place" || !strings.Contains(warnings[0].Message, "theirs") {
		t.Errorf("warnings %+v, want one for the other owner's profile", warnings)
	}
	if len(errs) != 1 || errs[0].Summary != "Cannot delete the class's instance profile" || !strings.Contains(errs[0].Message, "DeleteConflict") {
		t.Errorf("errors %+v, want one for the failed delete", errs)
	}
	if errs, warnings := profilesOf(&fakeIAM{}).Delete(t.Context(), nil, "o1"); errs != nil || warnings != nil {
		t.Errorf("nothing to delete: %+v %+v", errs, warnings)
	}
}

func TestProfilesDrifted(t *testing.T) {
	name := nodeclass.InstanceProfileName("c1", testRegion, "default")
	c := fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1", Recorded: name}
	for _, tc := range []struct {
		name    string
		c       fleet.ClassProfile
		current bool
		err     error
		want    bool
		calls   int
	}{
		{name: "as applied", c: c, current: true, want: false, calls: 1},
		{name: "changed", c: c, current: false, want: true, calls: 1},
		{name: "unreadable", c: c, err: errors.New("throttled"), calls: 1}, // the answer is the error
		{name: "nothing recorded", c: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Owner: "o1"}},
		{name: "no role", c: fleet.ClassProfile{Class: "default", InstanceProfile: "custom", Owner: "o1", Recorded: "custom"}},
		{name: "no owner", c: fleet.ClassProfile{Class: "default", Role: testRole, ForStaticPools: true, Recorded: name}},
	} {
		f := &fakeIAM{current: tc.current, errs: map[string]error{"Current " + name + " " + testRole: tc.err}}
		got, err := profilesOf(f).Drifted(t.Context(), tc.c)
		if (tc.err == nil && got != tc.want) || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || len(f.calls) != tc.calls {
			t.Errorf("%s: drifted %v, err %v, calls %v; want %v, %v, %d calls", tc.name, got, err, f.calls, tc.want, tc.err, tc.calls)
		}
		if tc.calls == 1 && !maps.Equal(f.owns[0], ownTags("o1")) {
			t.Errorf("%s: checked with ownership %v", tc.name, f.owns[0])
		}
	}
}

func TestProfilesAdopt(t *testing.T) {
	name := nodeclass.InstanceProfileName("c1", testRegion, "default")
	for _, tc := range []struct {
		name    string
		profile *fleet.InstanceProfile
		err     error
		want    string
	}{
		{"the provider's profile of the class", &fleet.InstanceProfile{Name: name, Tags: ownTags("o7", launchplan.TagNodeClass, "default")}, nil, "o7"},
		{"no profile", nil, nil, ""},
		{"another class's", &fleet.InstanceProfile{Name: name, Tags: ownTags("o7", launchplan.TagNodeClass, "other")}, nil, ""},
		{"not the provider's", &fleet.InstanceProfile{Name: name, Tags: map[string]string{launchplan.TagNodeClass: "default", launchplan.TagOwner: "o7"}}, nil, ""},
		{"unreadable", nil, errors.New("AccessDenied"), ""},
	} {
		f := &fakeIAM{profiles: map[string]fleet.InstanceProfile{}, errs: map[string]error{"Get " + name: tc.err}}
		if tc.profile != nil {
			f.profiles[name] = *tc.profile
		}
		got, err := profilesOf(f).Adopt(t.Context(), "default")
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%s: Adopt = %q, %v; want %q, %v", tc.name, got, err, tc.want, tc.err)
		}
		if !slices.Equal(f.calls, []string{"Get " + name}) {
			t.Errorf("%s: calls %v", tc.name, f.calls)
		}
	}
}
