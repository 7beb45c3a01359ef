package acctest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// Two test binaries on one emulator share the fixed-name fixtures: the one that finishes first
// leaves them (the other still holds its lease, and the role keeps its policies), the last one
// deletes them; a role the tests did not make is never deleted.
func TestSharedIAMLeases(t *testing.T) {
	PreCheck(t)
	ctx := Context(t)
	role, profile, foreign := RandomName("shared-role"), RandomName("shared-profile"), RandomName("foreign-role")
	NewRole(t, foreign) // made by a test (TagKey = its name), not by SharedIAM: someone else's here
	first, err := SharedIAM(ctx, []string{role, foreign}, []string{profile})
	if err != nil {
		t.Fatal(err)
	}
	second, err := SharedIAM(ctx, []string{role, foreign}, []string{profile})
	if err != nil {
		t.Fatal(err)
	}
	c := newIAM()
	attached := func() int {
		out, err := c.ListAttachedRolePolicies(context.Background(), &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(role)})
		if err != nil {
			return -1
		}
		return len(out.AttachedPolicies)
	}
	exists := func() (bool, bool) {
		_, errRole := c.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(role)})
		_, errProfile := c.GetInstanceProfile(context.Background(), &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(profile)})
		return errRole == nil, errProfile == nil
	}
	if err := first(); err != nil {
		t.Fatal(err)
	}
	if r, p := exists(); !r || !p || attached() != len(NodePolicies) {
		t.Fatalf("after the first binary's cleanup, with the second still running: role %v (%d policies), profile %v", r, attached(), p)
	}
	if err := second(); err != nil {
		t.Fatal(err)
	}
	if r, p := exists(); r || p {
		t.Errorf("after the last binary's cleanup: role exists %v, profile exists %v, want both deleted", r, p)
	}
	if _, err := c.GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(foreign)}); err != nil {
		t.Errorf("a role SharedIAM did not make was deleted: %v", err)
	}
}
