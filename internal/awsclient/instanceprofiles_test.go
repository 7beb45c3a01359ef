package awsclient

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	smithy "github.com/aws/smithy-go"
)

type fakeProfile struct {
	path  string
	roles []string
	tags  map[string]string
	// hidden: reads and AddRoleToInstanceProfile still answer NoSuchEntity this many times
	// (a just-created profile under IAM's eventual consistency).
	hidden int
}

// iamFake is an in-memory IAM: roles and instance profiles, with the mutating calls recorded.
type iamFake struct {
	roles    map[string]bool
	profiles map[string]*fakeProfile
	// hideNew: a profile created through the fake stays invisible for this many calls.
	hideNew int
	// raceTags: CreateInstanceProfile finds that a profile with these tags was created in the
	// meantime and answers EntityAlreadyExists.
	raceTags map[string]string
	mutating []string
}

func newIAMFake(roles ...string) *iamFake {
	f := &iamFake{roles: map[string]bool{}, profiles: map[string]*fakeProfile{}}
	for _, r := range roles {
		f.roles[r] = true
	}
	return f
}

func noSuchEntity(what string) error {
	return &smithy.GenericAPIError{Code: ErrCodeNoSuchEntity, Message: what + " not found"}
}

func (f *iamFake) visible(name string) (*fakeProfile, bool) {
	p, ok := f.profiles[name]
	if !ok {
		return nil, false
	}
	if p.hidden > 0 {
		p.hidden--
		return nil, false
	}
	return p, true
}

func (f *iamFake) GetRole(_ context.Context, in *iam.GetRoleInput, _ ...func(*iam.Options)) (*iam.GetRoleOutput, error) {
	if !f.roles[aws.ToString(in.RoleName)] {
		return nil, noSuchEntity("role " + aws.ToString(in.RoleName))
	}
	return &iam.GetRoleOutput{Role: &iamtypes.Role{RoleName: in.RoleName}}, nil
}

func (f *iamFake) GetInstanceProfile(_ context.Context, in *iam.GetInstanceProfileInput, _ ...func(*iam.Options)) (*iam.GetInstanceProfileOutput, error) {
	name := aws.ToString(in.InstanceProfileName)
	p, ok := f.visible(name)
	if !ok {
		return nil, noSuchEntity("instance profile " + name)
	}
	ip := &iamtypes.InstanceProfile{InstanceProfileName: aws.String(name), Path: aws.String(p.path)}
	for _, r := range p.roles {
		ip.Roles = append(ip.Roles, iamtypes.Role{RoleName: aws.String(r)})
	}
	ip.Tags = iamTags(p.tags)
	return &iam.GetInstanceProfileOutput{InstanceProfile: ip}, nil
}

func (f *iamFake) CreateInstanceProfile(_ context.Context, in *iam.CreateInstanceProfileInput, _ ...func(*iam.Options)) (*iam.CreateInstanceProfileOutput, error) {
	name := aws.ToString(in.InstanceProfileName)
	if f.raceTags != nil {
		f.profiles[name] = &fakeProfile{path: "/", tags: f.raceTags}
		f.raceTags = nil
	}
	if _, ok := f.profiles[name]; ok {
		return nil, &smithy.GenericAPIError{Code: ErrCodeEntityAlreadyExists, Message: "exists"}
	}
	f.mutating = append(f.mutating, "CreateInstanceProfile "+name)
	tags := map[string]string{}
	for _, t := range in.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	f.profiles[name] = &fakeProfile{path: aws.ToString(in.Path), tags: tags, hidden: f.hideNew}
	return &iam.CreateInstanceProfileOutput{InstanceProfile: &iamtypes.InstanceProfile{
		InstanceProfileName: in.InstanceProfileName, Path: in.Path, Tags: in.Tags}}, nil
}

func (f *iamFake) AddRoleToInstanceProfile(_ context.Context, in *iam.AddRoleToInstanceProfileInput, _ ...func(*iam.Options)) (*iam.AddRoleToInstanceProfileOutput, error) {
	name, role := aws.ToString(in.InstanceProfileName), aws.ToString(in.RoleName)
	p, ok := f.visible(name)
	if !ok {
		return nil, noSuchEntity("instance profile " + name)
	}
	if !f.roles[role] {
		return nil, noSuchEntity("role " + role)
	}
	if len(p.roles) > 0 {
		return nil, &smithy.GenericAPIError{Code: "LimitExceeded", Message: "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1"}
	}
	f.mutating = append(f.mutating, "AddRoleToInstanceProfile "+name+" "+role)
	p.roles = append(p.roles, role)
	return &iam.AddRoleToInstanceProfileOutput{}, nil
}

func (f *iamFake) RemoveRoleFromInstanceProfile(_ context.Context, in *iam.RemoveRoleFromInstanceProfileInput, _ ...func(*iam.Options)) (*iam.RemoveRoleFromInstanceProfileOutput, error) {
	name, role := aws.ToString(in.InstanceProfileName), aws.ToString(in.RoleName)
	p, ok := f.profiles[name]
	if !ok || !slices.Contains(p.roles, role) {
		return nil, noSuchEntity("role " + role + " in " + name)
	}
	f.mutating = append(f.mutating, "RemoveRoleFromInstanceProfile "+name+" "+role)
	p.roles = slices.DeleteFunc(p.roles, func(r string) bool { return r == role })
	return &iam.RemoveRoleFromInstanceProfileOutput{}, nil
}

func (f *iamFake) DeleteInstanceProfile(_ context.Context, in *iam.DeleteInstanceProfileInput, _ ...func(*iam.Options)) (*iam.DeleteInstanceProfileOutput, error) {
	name := aws.ToString(in.InstanceProfileName)
	p, ok := f.profiles[name]
	if !ok {
		return nil, noSuchEntity("instance profile " + name)
	}
	if len(p.roles) > 0 {
		return nil, &smithy.GenericAPIError{Code: "DeleteConflict", Message: "must remove roles first"}
	}
	f.mutating = append(f.mutating, "DeleteInstanceProfile "+name)
	delete(f.profiles, name)
	return &iam.DeleteInstanceProfileOutput{}, nil
}

func (f *iamFake) TagInstanceProfile(_ context.Context, in *iam.TagInstanceProfileInput, _ ...func(*iam.Options)) (*iam.TagInstanceProfileOutput, error) {
	name := aws.ToString(in.InstanceProfileName)
	p, ok := f.profiles[name]
	if !ok {
		return nil, noSuchEntity("instance profile " + name)
	}
	f.mutating = append(f.mutating, "TagInstanceProfile "+name)
	for _, t := range in.Tags {
		p.tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return &iam.TagInstanceProfileOutput{}, nil
}

var _ IAMAPI = (*iamFake)(nil)

const testProfile = "nodeplane-c-default-0123456789"

var (
	testOwn  = map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.nodeplane.io/owner": "aaaa"}
	testTags = func() map[string]string {
		t := map[string]string{"karpenter.k8s.aws/ec2nodeclass": "default"}
		maps.Copy(t, testOwn)
		return t
	}()
)

func testSpec(role string) ProfileSpec {
	return ProfileSpec{Name: testProfile, Path: "/nodeplane/", Role: role, Tags: testTags, Own: testOwn}
}

// profilesWith returns the client on the fake and counts its sleeps (never really sleeping).
func profilesWith(f *iamFake) (InstanceProfiles, *int) {
	sleeps := new(int)
	return InstanceProfiles{IAM: f, Sleep: func(context.Context, time.Duration) error { *sleeps++; return nil }}, sleeps
}

func TestEnsureCreatesProfileWithRole(t *testing.T) {
	f := newIAMFake("node-role")
	p, _ := profilesWith(f)
	got, err := p.Ensure(context.Background(), testSpec("node-role"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Roles, []string{"node-role"}) {
		t.Fatalf("roles %v", got.Roles)
	}
	fp := f.profiles[testProfile]
	if fp == nil || fp.path != "/nodeplane/" || !maps.Equal(fp.tags, testTags) || !slices.Equal(fp.roles, []string{"node-role"}) {
		t.Fatalf("IAM holds %+v", fp)
	}
	want := []string{"CreateInstanceProfile " + testProfile, "AddRoleToInstanceProfile " + testProfile + " node-role"}
	if !slices.Equal(f.mutating, want) {
		t.Fatalf("mutating calls %v, want %v", f.mutating, want)
	}

	// Idempotent: a second Ensure changes nothing.
	f.mutating = nil
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if len(f.mutating) != 0 {
		t.Fatalf("second Ensure made mutating calls: %v", f.mutating)
	}
}

func TestEnsureRolePath(t *testing.T) {
	f := newIAMFake("node-role")
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("teams/a/node-role")); err != nil {
		t.Fatal(err)
	}
	if got := f.profiles[testProfile].roles; !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v: the role path must be dropped", got)
	}
}

func TestEnsureAddsMissingRoleAndTags(t *testing.T) {
	f := newIAMFake("node-role")
	tags := maps.Clone(testOwn) // owned, but the class tag was removed out of band
	f.profiles[testProfile] = &fakeProfile{path: "/nodeplane/", tags: tags}
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	fp := f.profiles[testProfile]
	if !slices.Equal(fp.roles, []string{"node-role"}) || !maps.Equal(fp.tags, testTags) {
		t.Fatalf("IAM holds %+v", fp)
	}
	want := []string{"TagInstanceProfile " + testProfile, "AddRoleToInstanceProfile " + testProfile + " node-role"}
	if !slices.Equal(f.mutating, want) {
		t.Fatalf("mutating calls %v, want %v", f.mutating, want)
	}
}

func TestEnsureReplacesOtherRole(t *testing.T) {
	f := newIAMFake("old-role", "new-role")
	f.profiles[testProfile] = &fakeProfile{path: "/nodeplane/", tags: maps.Clone(testTags), roles: []string{"old-role"}}
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("new-role")); err != nil {
		t.Fatal(err)
	}
	if got := f.profiles[testProfile].roles; !slices.Equal(got, []string{"new-role"}) {
		t.Fatalf("roles %v", got)
	}
	want := []string{"RemoveRoleFromInstanceProfile " + testProfile + " old-role", "AddRoleToInstanceProfile " + testProfile + " new-role"}
	if !slices.Equal(f.mutating, want) {
		t.Fatalf("mutating calls %v, want %v", f.mutating, want)
	}
}

func TestEnsureRefusesProfileNotOwned(t *testing.T) {
	cases := map[string]map[string]string{
		"no tags":        {},
		"another owner":  {"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.nodeplane.io/owner": "bbbb"},
		"no owner tag":   {"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter"},
		"only the owner": {"karpenter.nodeplane.io/owner": "aaaa"},
	}
	for name, tags := range cases {
		t.Run(name, func(t *testing.T) {
			f := newIAMFake("node-role", "their-role")
			f.profiles[testProfile] = &fakeProfile{path: "/", tags: tags, roles: []string{"their-role"}}
			p, _ := profilesWith(f)
			_, err := p.Ensure(context.Background(), testSpec("node-role"))
			var no *NotOwnedError
			if !errors.As(err, &no) || no.Name != testProfile {
				t.Fatalf("got %v, want a NotOwnedError", err)
			}
			if len(f.mutating) != 0 {
				t.Fatalf("mutating calls on a profile not owned: %v", f.mutating)
			}
			if err := p.Delete(context.Background(), testProfile, testOwn); !errors.As(err, &no) {
				t.Fatalf("Delete: got %v, want a NotOwnedError", err)
			}
			if len(f.mutating) != 0 || !slices.Equal(f.profiles[testProfile].roles, []string{"their-role"}) {
				t.Fatalf("Delete changed a profile not owned: %v", f.mutating)
			}
		})
	}
}

// TestEnsureCreateRace: the name is taken between the read and the create. Another owner's
// profile is refused; our own (a retried apply) is used.
func TestEnsureCreateRace(t *testing.T) {
	f := newIAMFake("node-role")
	f.raceTags = map[string]string{"other": "x"}
	p, _ := profilesWith(f)
	var no *NotOwnedError
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); !errors.As(err, &no) {
		t.Fatalf("got %v, want a NotOwnedError", err)
	}
	if len(f.mutating) != 0 {
		t.Fatalf("mutating calls: %v", f.mutating)
	}

	f = newIAMFake("node-role")
	f.raceTags = maps.Clone(testTags)
	p, _ = profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if got := f.profiles[testProfile].roles; !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v", got)
	}
}

func TestEnsureMissingRole(t *testing.T) {
	f := newIAMFake()
	p, sleeps := profilesWith(f)
	_, err := p.Ensure(context.Background(), testSpec("nope"))
	if !errors.Is(err, ErrRoleNotFound) {
		t.Fatalf("got %v, want ErrRoleNotFound", err)
	}
	if *sleeps != 0 {
		t.Fatalf("a missing role was retried %d times", *sleeps)
	}
}

// TestEnsureWaitsForNewProfile: a just-created profile answers NoSuchEntity for a few calls.
func TestEnsureWaitsForNewProfile(t *testing.T) {
	f := newIAMFake("node-role")
	f.hideNew = 3
	p, sleeps := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if got := f.profiles[testProfile].roles; !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v", got)
	}
	if *sleeps != 3 {
		t.Fatalf("%d waits, want 3", *sleeps)
	}
}

func TestEnsureGivesUpOnInvisibleProfile(t *testing.T) {
	f := newIAMFake("node-role")
	f.hideNew = 100
	p, sleeps := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err == nil || ErrCode(err) != ErrCodeNoSuchEntity {
		t.Fatalf("got %v, want the NoSuchEntity error", err)
	}
	if *sleeps != consistencyAttempts-1 {
		t.Fatalf("%d waits, want %d", *sleeps, consistencyAttempts-1)
	}
}

func TestDeleteOwnedProfile(t *testing.T) {
	f := newIAMFake("node-role")
	f.profiles[testProfile] = &fakeProfile{path: "/nodeplane/", tags: maps.Clone(testTags), roles: []string{"node-role"}}
	p, _ := profilesWith(f)
	if err := p.Delete(context.Background(), testProfile, testOwn); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.profiles[testProfile]; ok {
		t.Fatal("profile still there")
	}
	want := []string{"RemoveRoleFromInstanceProfile " + testProfile + " node-role", "DeleteInstanceProfile " + testProfile}
	if !slices.Equal(f.mutating, want) {
		t.Fatalf("mutating calls %v, want %v", f.mutating, want)
	}
	// Gone is done.
	f.mutating = nil
	if err := p.Delete(context.Background(), testProfile, testOwn); err != nil || len(f.mutating) != 0 {
		t.Fatalf("second Delete: %v, calls %v", err, f.mutating)
	}
}

func TestRoleExists(t *testing.T) {
	f := newIAMFake("node-role")
	p, _ := profilesWith(f)
	for role, want := range map[string]bool{"node-role": true, "path/node-role": true, "other": false} {
		got, err := p.RoleExists(context.Background(), role)
		if err != nil || got != want {
			t.Errorf("RoleExists(%q) = %v, %v; want %v", role, got, err, want)
		}
	}
}

func TestGetMissingProfile(t *testing.T) {
	p, _ := profilesWith(newIAMFake())
	got, err := p.Get(context.Background(), "nope")
	if err != nil || got != nil {
		t.Fatalf("Get = %v, %v; want nil, nil", got, err)
	}
}

func TestCurrent(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		profile *fakeProfile
		want    bool
	}{
		{"as ensured", &fakeProfile{tags: maps.Clone(testTags), roles: []string{"node-role"}}, true},
		{"missing", nil, false},
		{"role removed", &fakeProfile{tags: maps.Clone(testTags)}, false},
		{"other role", &fakeProfile{tags: maps.Clone(testTags), roles: []string{"other"}}, false},
		{"another owner", &fakeProfile{tags: map[string]string{"karpenter.nodeplane.io/owner": "bbbb"}, roles: []string{"node-role"}}, false},
	}
	for _, tc := range cases {
		f := newIAMFake("node-role", "other")
		if tc.profile != nil {
			f.profiles[testProfile] = tc.profile
		}
		p, _ := profilesWith(f)
		got, err := p.Current(ctx, testProfile, "path/node-role", testOwn)
		if err != nil || got != tc.want {
			t.Errorf("%s: Current = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
