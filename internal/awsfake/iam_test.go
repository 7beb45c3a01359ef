package awsfake

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestIAM(t *testing.T) {
	ctx := context.Background()
	f := &IAM{Roles: []iamtypes.Role{{RoleName: aws.String("node")}, {RoleName: aws.String("other")}}, NewProfileLag: 2}
	name := aws.String("profile")
	if _, err := f.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("nope")}); code(err) != "NoSuchEntity" {
		t.Errorf("an unknown role: %v", err)
	}
	if _, err := f.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: name, Tags: []iamtypes.Tag{{Key: aws.String("a"), Value: aws.String("1")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: name}); code(err) != "EntityAlreadyExists" {
		t.Errorf("a taken name: %v", err)
	}
	// The new profile is invisible to two reads, then there.
	for i := range 2 {
		if _, err := f.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: name}); code(err) != "NoSuchEntity" {
			t.Errorf("read %d of a new profile: %v", i, err)
		}
	}
	got, err := f.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: name})
	if err != nil || aws.ToString(got.InstanceProfile.Path) != "/" || len(got.InstanceProfile.Tags) != 1 {
		t.Fatalf("profile %+v, %v", got, err)
	}
	if _, err := f.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("node")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("other")}); code(err) != "LimitExceeded" {
		t.Errorf("a second role: %v", err)
	}
	if _, err := f.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name}); code(err) != "DeleteConflict" {
		t.Errorf("deleting a profile with a role: %v", err)
	}
	if _, err := f.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: name,
		Tags: []iamtypes.Tag{{Key: aws.String("a"), Value: aws.String("2")}, {Key: aws.String("b"), Value: aws.String("3")}}}); err != nil {
		t.Fatal(err)
	}
	if p := f.InstanceProfiles[0]; len(p.Tags) != 2 || aws.ToString(p.Tags[0].Value) != "2" || aws.ToString(p.Roles[0].RoleName) != "node" {
		t.Errorf("profile %+v", p)
	}
	if _, err := f.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("other")}); code(err) != "NoSuchEntity" {
		t.Errorf("removing a role the profile lacks: %v", err)
	}
	if _, err := f.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("node")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name}); err != nil || len(f.InstanceProfiles) != 0 {
		t.Errorf("delete: %v, %d left", err, len(f.InstanceProfiles))
	}
	if n := f.Calls("GetInstanceProfile"); n != 3 {
		t.Errorf("%d reads counted", n)
	}
}
