package awsclient

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
)

// newIAMFake holds the roles and no instance profile.
func newIAMFake(roles ...string) *awsfake.IAM {
	f := &awsfake.IAM{}
	for _, r := range roles {
		f.Roles = append(f.Roles, iamtypes.Role{RoleName: aws.String(r)})
	}
	return f
}

// putProfile gives the fake an instance profile.
func putProfile(f *awsfake.IAM, path string, tags map[string]string, roles ...string) {
	p := iamtypes.InstanceProfile{InstanceProfileName: aws.String(testProfile), Path: aws.String(path), Tags: iamTags(tags)}
	for _, r := range roles {
		p.Roles = append(p.Roles, iamtypes.Role{RoleName: aws.String(r)})
	}
	f.InstanceProfiles = append(f.InstanceProfiles, p)
}

// profileOf is the fake's profile: path, tags and role names; ok false when it holds none.
func profileOf(f *awsfake.IAM, name string) (path string, tags map[string]string, roles []string, ok bool) {
	for _, p := range f.InstanceProfiles {
		if aws.ToString(p.InstanceProfileName) != name {
			continue
		}
		tags = map[string]string{}
		for _, t := range p.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		for _, r := range p.Roles {
			roles = append(roles, aws.ToString(r.RoleName))
		}
		return aws.ToString(p.Path), tags, roles, true
	}
	return "", nil, nil, false
}

// rolesOf are the role names of the fake's profile.
func rolesOf(f *awsfake.IAM) []string {
	_, _, roles, _ := profileOf(f, testProfile)
	return roles
}

// mutating are the fake's successful mutating calls, in order: "AddRoleToInstanceProfile <profile> <role>", ...
func mutating(f *awsfake.IAM) []string {
	var out []string
	for _, c := range f.Log() {
		if c.Err != nil {
			continue
		}
		switch in := c.Input.(type) {
		case *iam.CreateInstanceProfileInput:
			out = append(out, "CreateInstanceProfile "+aws.ToString(in.InstanceProfileName))
		case *iam.AddRoleToInstanceProfileInput:
			out = append(out, "AddRoleToInstanceProfile "+aws.ToString(in.InstanceProfileName)+" "+aws.ToString(in.RoleName))
		case *iam.RemoveRoleFromInstanceProfileInput:
			out = append(out, "RemoveRoleFromInstanceProfile "+aws.ToString(in.InstanceProfileName)+" "+aws.ToString(in.RoleName))
		case *iam.DeleteInstanceProfileInput:
			out = append(out, "DeleteInstanceProfile "+aws.ToString(in.InstanceProfileName))
		case *iam.TagInstanceProfileInput:
			out = append(out, "TagInstanceProfile "+aws.ToString(in.InstanceProfileName))
		}
	}
	return out
}

const testProfile = "nodeplane-c-default-0123456789"

var (
	testOwn  = map[string]string{"karpenter.nodeplane.io/managed-by": "terraform-provider-karpenter", "karpenter.nodeplane.io/owner": "aaaa"}
	testTags = func() map[string]string {
		t := map[string]string{"karpenter.k8s.aws/ec2nodeclass": "default"}
		maps.Copy(t, testOwn)
		return t
	}()
)

func testSpec(role string) fleet.ProfileSpec {
	return fleet.ProfileSpec{Name: testProfile, Path: "/nodeplane/", Role: role, Tags: testTags, Own: testOwn}
}

// profilesWith returns the client on the fake and counts its sleeps (never really sleeping).
func profilesWith(f *awsfake.IAM) (InstanceProfiles, *int) {
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
	path, tags, roles, ok := profileOf(f, testProfile)
	if !ok || path != "/nodeplane/" || !maps.Equal(tags, testTags) || !slices.Equal(roles, []string{"node-role"}) {
		t.Fatalf("IAM holds %v %q %v %v", ok, path, tags, roles)
	}
	want := []string{"CreateInstanceProfile " + testProfile, "AddRoleToInstanceProfile " + testProfile + " node-role"}
	if !slices.Equal(mutating(f), want) {
		t.Fatalf("mutating calls %v, want %v", mutating(f), want)
	}

	// Idempotent: a second Ensure changes nothing.
	f.ForgetCalls()
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if len(mutating(f)) != 0 {
		t.Fatalf("second Ensure made mutating calls: %v", mutating(f))
	}
}

func TestEnsureRolePath(t *testing.T) {
	f := newIAMFake("node-role")
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("teams/a/node-role")); err != nil {
		t.Fatal(err)
	}
	if got := rolesOf(f); !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v: the role path must be dropped", got)
	}
}

func TestEnsureAddsMissingRoleAndTags(t *testing.T) {
	f := newIAMFake("node-role")
	putProfile(f, "/nodeplane/", testOwn) // owned, but the class tag was removed out of band
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	_, tags, roles, _ := profileOf(f, testProfile)
	if !slices.Equal(roles, []string{"node-role"}) || !maps.Equal(tags, testTags) {
		t.Fatalf("IAM holds %v %v", tags, roles)
	}
	want := []string{"TagInstanceProfile " + testProfile, "AddRoleToInstanceProfile " + testProfile + " node-role"}
	if !slices.Equal(mutating(f), want) {
		t.Fatalf("mutating calls %v, want %v", mutating(f), want)
	}
}

func TestEnsureReplacesOtherRole(t *testing.T) {
	f := newIAMFake("old-role", "new-role")
	putProfile(f, "/nodeplane/", testTags, "old-role")
	p, _ := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("new-role")); err != nil {
		t.Fatal(err)
	}
	if got := rolesOf(f); !slices.Equal(got, []string{"new-role"}) {
		t.Fatalf("roles %v", got)
	}
	want := []string{"RemoveRoleFromInstanceProfile " + testProfile + " old-role", "AddRoleToInstanceProfile " + testProfile + " new-role"}
	if !slices.Equal(mutating(f), want) {
		t.Fatalf("mutating calls %v, want %v", mutating(f), want)
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
			putProfile(f, "/", tags, "their-role")
			p, _ := profilesWith(f)
			_, err := p.Ensure(context.Background(), testSpec("node-role"))
			var no *fleet.NotOwnedError
			if !errors.As(err, &no) || no.Name != testProfile {
				t.Fatalf("got %v, want a NotOwnedError", err)
			}
			if len(mutating(f)) != 0 {
				t.Fatalf("mutating calls on a profile not owned: %v", mutating(f))
			}
			if err := p.Delete(context.Background(), testProfile, testOwn); !errors.As(err, &no) {
				t.Fatalf("Delete: got %v, want a NotOwnedError", err)
			}
			if len(mutating(f)) != 0 || !slices.Equal(rolesOf(f), []string{"their-role"}) {
				t.Fatalf("Delete changed a profile not owned: %v", mutating(f))
			}
		})
	}
}

// raceCreate makes the fake's first CreateInstanceProfile find that a profile with the tags was
// created in the meantime (it then answers EntityAlreadyExists).
func raceCreate(f *awsfake.IAM, tags map[string]string) {
	raced := false
	f.Hook = func(_ context.Context, op string, _ any) (any, error) {
		if op == "CreateInstanceProfile" && !raced {
			raced = true
			putProfile(f, "/", tags)
		}
		return nil, nil
	}
}

// TestEnsureCreateRace: the name is taken between the read and the create. Another owner's
// profile is refused; our own (a retried apply) is used.
func TestEnsureCreateRace(t *testing.T) {
	f := newIAMFake("node-role")
	raceCreate(f, map[string]string{"other": "x"})
	p, _ := profilesWith(f)
	var no *fleet.NotOwnedError
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); !errors.As(err, &no) {
		t.Fatalf("got %v, want a NotOwnedError", err)
	}
	if len(mutating(f)) != 0 {
		t.Fatalf("mutating calls: %v", mutating(f))
	}

	f = newIAMFake("node-role")
	raceCreate(f, testTags)
	p, _ = profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if got := rolesOf(f); !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v", got)
	}
}

func TestEnsureMissingRole(t *testing.T) {
	f := newIAMFake()
	p, sleeps := profilesWith(f)
	_, err := p.Ensure(context.Background(), testSpec("nope"))
	if !errors.Is(err, fleet.ErrRoleNotFound) {
		t.Fatalf("got %v, want ErrRoleNotFound", err)
	}
	if *sleeps != 0 {
		t.Fatalf("a missing role was retried %d times", *sleeps)
	}
}

// TestEnsureWaitsForNewProfile: a just-created profile answers NoSuchEntity for a few calls.
func TestEnsureWaitsForNewProfile(t *testing.T) {
	f := newIAMFake("node-role")
	f.NewProfileLag = 3
	p, sleeps := profilesWith(f)
	if _, err := p.Ensure(context.Background(), testSpec("node-role")); err != nil {
		t.Fatal(err)
	}
	if got := rolesOf(f); !slices.Equal(got, []string{"node-role"}) {
		t.Fatalf("roles %v", got)
	}
	if *sleeps != 3 {
		t.Fatalf("%d waits, want 3", *sleeps)
	}
}

func TestEnsureGivesUpOnInvisibleProfile(t *testing.T) {
	f := newIAMFake("node-role")
	f.NewProfileLag = 100
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
	putProfile(f, "/nodeplane/", testTags, "node-role")
	p, _ := profilesWith(f)
	if err := p.Delete(context.Background(), testProfile, testOwn); err != nil {
		t.Fatal(err)
	}
	if _, _, _, ok := profileOf(f, testProfile); ok {
		t.Fatal("profile still there")
	}
	want := []string{"RemoveRoleFromInstanceProfile " + testProfile + " node-role", "DeleteInstanceProfile " + testProfile}
	if !slices.Equal(mutating(f), want) {
		t.Fatalf("mutating calls %v, want %v", mutating(f), want)
	}
	// Gone is done.
	f.ForgetCalls()
	if err := p.Delete(context.Background(), testProfile, testOwn); err != nil || len(mutating(f)) != 0 {
		t.Fatalf("second Delete: %v, calls %v", err, mutating(f))
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
		missing bool
		tags    map[string]string
		roles   []string
		want    bool
	}{
		{"as ensured", false, testTags, []string{"node-role"}, true},
		{"missing", true, nil, nil, false},
		{"role removed", false, testTags, nil, false},
		{"other role", false, testTags, []string{"other"}, false},
		{"another owner", false, map[string]string{"karpenter.nodeplane.io/owner": "bbbb"}, []string{"node-role"}, false},
	}
	for _, tc := range cases {
		f := newIAMFake("node-role", "other")
		if !tc.missing {
			putProfile(f, "", tc.tags, tc.roles...)
		}
		p, _ := profilesWith(f)
		got, err := p.Current(ctx, testProfile, "path/node-role", testOwn)
		if err != nil || got != tc.want {
			t.Errorf("%s: Current = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// One plan's checks read a profile once, however many ask at the same time.
func TestReadOnceReadsEachProfileOnce(t *testing.T) {
	f := newIAMFake("KarpenterNodeRole")
	putProfile(f, "/", nil, "KarpenterNodeRole")
	p, _ := profilesWith(f)
	once := p.ReadOnce()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := once.Get(context.Background(), testProfile)
			if err != nil || got == nil || len(got.Roles) != 1 {
				t.Errorf("Get = %+v, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if missing, err := once.Get(context.Background(), "other"); missing != nil || err != nil {
		t.Errorf("a missing profile: %+v, %v", missing, err)
	}
	if n := f.Calls("GetInstanceProfile"); n != 2 {
		t.Errorf("GetInstanceProfile called %d times, want once per name (2)", n)
	}
}
