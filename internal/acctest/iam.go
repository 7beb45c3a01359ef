package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	smithy "github.com/aws/smithy-go"
)

// NodeTrustPolicy lets EC2 instances assume a role: the trust policy of a node role.
const NodeTrustPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

var (
	iamOnce   sync.Once
	iamClient *iam.Client
)

func newIAM() *iam.Client {
	iamOnce.Do(func() { iamClient = iam.NewFromConfig(sdkConfig()) })
	return iamClient
}

// IAM returns an SDK IAM client on the test endpoint, for fixtures and out-of-band changes.
func IAM(t testing.TB) *iam.Client {
	t.Helper()
	PreCheck(t)
	return newIAM()
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// NodePolicies are the AWS managed policies of an EKS node role (worker, VPC CNI, registry): what
// a node needs to register, get pod addresses and pull images. LocalStack serves them.
var NodePolicies = []string{
	"arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
	"arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
	"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
}

// createRole creates a node role tagged with TagKey = id; created is false when the name exists.
func createRole(ctx context.Context, name, id string) (created bool, err error) {
	noteFixture("role", name)
	_, err = newIAM().CreateRole(ctx, &iam.CreateRoleInput{
		RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(NodeTrustPolicy),
		Tags: []iamtypes.Tag{{Key: aws.String(TagKey), Value: aws.String(id)}},
	})
	if apiCode(err) == "EntityAlreadyExists" {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("CreateRole %s: %w", name, err)
	}
	return true, nil
}

// NewRole creates a node role of that (unique) name and deletes it when the test ends.
func NewRole(t testing.TB, name string) {
	t.Helper()
	PreCheck(t)
	created, err := createRole(Context(t), name, name)
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Fatalf("role %s already exists: a test role needs a unique name", name)
	}
	t.Cleanup(func() {
		if _, err := newIAM().DeleteRole(context.Background(), &iam.DeleteRoleInput{RoleName: aws.String(name)}); err != nil {
			t.Logf("fixture cleanup: DeleteRole %s: %v", name, err)
		}
	})
}

// sharedInlinePolicy is the inline policy of the shared roles.
const sharedInlinePolicy = "node-extras"

// SharedIAM makes the named roles and instance profiles exist for a whole test binary (fixed
// names that many configurations use); call it from TestMain. Several test binaries may share an
// emulator at once, so each holds a lease (a tag of its own) on every shared fixture while it
// runs, and the returned cleanup deletes a fixture only when it is one the tests made (tagged
// TagKey = "shared") and no other binary's lease is left on it. A role or profile the tests did
// not make is someone else's and stays as it is.
func SharedIAM(ctx context.Context, roles, profiles []string) (cleanup func() error, err error) {
	lease := fmt.Sprintf("%s-lease/%d-%d", TagKey, os.Getpid(), time.Now().UnixNano())
	var leasedRoles, leasedProfiles []string
	cleanup = func() error {
		var errs []error
		for _, p := range leasedProfiles {
			errs = append(errs, releaseProfile(p, lease))
		}
		for _, r := range leasedRoles {
			errs = append(errs, releaseRole(r, lease))
		}
		return errors.Join(errs...)
	}
	for _, r := range roles {
		leased, err := leaseRole(ctx, r, lease)
		if err != nil {
			return cleanup, err
		}
		if leased {
			leasedRoles = append(leasedRoles, r)
		}
	}
	for _, p := range profiles {
		leased, err := leaseProfile(ctx, p, lease)
		if err != nil {
			return cleanup, err
		}
		if leased {
			leasedProfiles = append(leasedProfiles, p)
		}
	}
	return cleanup, nil
}

// leaseRole makes the shared role exist as a node role (EKS's managed policies and an inline
// one, as node roles often carry: the plans' node-role check passes and reads it) and tags it
// with the lease; leased is false for a role the tests did not make, left as it is. The policies
// are set again by every binary, in case the one that created the role has not yet.
func leaseRole(ctx context.Context, r, lease string) (leased bool, err error) {
	if _, err := createRole(ctx, r, "shared"); err != nil {
		return false, err
	}
	c := newIAM()
	tags, err := c.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String(r)})
	if err != nil {
		return false, fmt.Errorf("ListRoleTags %s: %w", r, err)
	}
	if !sharedFixture(tags.Tags) {
		return false, nil
	}
	if _, err := c.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String(r), Tags: leaseTag(lease)}); err != nil {
		return false, fmt.Errorf("TagRole %s: %w", r, err)
	}
	for _, arn := range NodePolicies {
		if _, err := c.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(r), PolicyArn: aws.String(arn)}); err != nil {
			return true, fmt.Errorf("AttachRolePolicy %s %s: %w", r, arn, err)
		}
	}
	if _, err := c.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(r), PolicyName: aws.String(sharedInlinePolicy),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeTags","Resource":"*"}]}`)}); err != nil {
		return true, fmt.Errorf("PutRolePolicy %s: %w", r, err)
	}
	return true, nil
}

// leaseProfile makes the shared instance profile exist and tags it with the lease; leased is
// false for a profile the tests did not make.
func leaseProfile(ctx context.Context, p, lease string) (leased bool, err error) {
	c := newIAM()
	_, err = c.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
		InstanceProfileName: aws.String(p), Tags: []iamtypes.Tag{{Key: aws.String(TagKey), Value: aws.String("shared")}},
	})
	if err != nil && apiCode(err) != "EntityAlreadyExists" {
		return false, fmt.Errorf("CreateInstanceProfile %s: %w", p, err)
	}
	tags, err := c.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: aws.String(p)})
	if err != nil {
		return false, fmt.Errorf("ListInstanceProfileTags %s: %w", p, err)
	}
	if !sharedFixture(tags.Tags) {
		return false, nil
	}
	if _, err := c.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String(p), Tags: leaseTag(lease)}); err != nil {
		return false, fmt.Errorf("TagInstanceProfile %s: %w", p, err)
	}
	return true, nil
}

func leaseTag(lease string) []iamtypes.Tag {
	return []iamtypes.Tag{{Key: aws.String(lease), Value: aws.String("held")}}
}

// releaseRole drops the lease and deletes the role when no other binary holds one.
func releaseRole(r, lease string) error {
	ctx, c := context.Background(), newIAM()
	if _, err := c.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String(r), TagKeys: []string{lease}}); err != nil {
		return fmt.Errorf("UntagRole %s: %w", r, err)
	}
	tags, err := c.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String(r)})
	if err != nil || !lastLease(tags.Tags) {
		return err
	}
	var errs []error
	if _, err := c.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(r), PolicyName: aws.String(sharedInlinePolicy)}); err != nil {
		errs = append(errs, fmt.Errorf("DeleteRolePolicy %s: %w", r, err))
	}
	for _, arn := range NodePolicies {
		if _, err := c.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(r), PolicyArn: aws.String(arn)}); err != nil {
			errs = append(errs, fmt.Errorf("DetachRolePolicy %s %s: %w", r, arn, err))
		}
	}
	if _, err := c.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(r)}); err != nil {
		errs = append(errs, fmt.Errorf("DeleteRole %s: %w", r, err))
	}
	return errors.Join(errs...)
}

// releaseProfile drops the lease and deletes the profile when no other binary holds one.
func releaseProfile(p, lease string) error {
	ctx, c := context.Background(), newIAM()
	if _, err := c.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: aws.String(p), TagKeys: []string{lease}}); err != nil {
		return fmt.Errorf("UntagInstanceProfile %s: %w", p, err)
	}
	tags, err := c.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: aws.String(p)})
	if err != nil || !lastLease(tags.Tags) {
		return err
	}
	if _, err := c.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(p)}); err != nil {
		return fmt.Errorf("DeleteInstanceProfile %s: %w", p, err)
	}
	return nil
}

// sharedFixture reports whether the tags are those of a fixture SharedIAM made.
func sharedFixture(tags []iamtypes.Tag) bool {
	return slices.ContainsFunc(tags, func(t iamtypes.Tag) bool { return aws.ToString(t.Key) == TagKey && aws.ToString(t.Value) == "shared" })
}

// lastLease reports whether a shared fixture carries no lease of a running test binary, and so
// may go.
func lastLease(tags []iamtypes.Tag) bool {
	return sharedFixture(tags) && !slices.ContainsFunc(tags, func(t iamtypes.Tag) bool { return strings.HasPrefix(aws.ToString(t.Key), TagKey+"-lease/") })
}

// NewPolicy creates a customer managed policy with the document and deletes it when the test
// ends (after AttachPolicies' detaches, which are registered later); it returns its ARN.
func NewPolicy(t testing.TB, name, document string) string {
	t.Helper()
	out, err := newIAM().CreatePolicy(Context(t), &iam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(document)})
	if err != nil {
		t.Fatalf("CreatePolicy %s: %v", name, err)
	}
	arn := aws.ToString(out.Policy.Arn)
	t.Cleanup(func() {
		if _, err := newIAM().DeletePolicy(context.Background(), &iam.DeletePolicyInput{PolicyArn: aws.String(arn)}); err != nil {
			t.Logf("fixture cleanup: DeletePolicy %s: %v", arn, err)
		}
	})
	return arn
}

// AttachPolicies attaches managed policies (ARNs, e.g. arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy)
// to a test role and detaches them when the test ends, before the role is deleted.
func AttachPolicies(t testing.TB, role string, arns ...string) {
	t.Helper()
	for _, arn := range arns {
		if _, err := IAM(t).AttachRolePolicy(Context(t), &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)}); err != nil {
			t.Fatalf("AttachRolePolicy %s %s: %v", role, arn, err)
		}
		t.Cleanup(func() {
			if _, err := newIAM().DetachRolePolicy(context.Background(), &iam.DetachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)}); err != nil {
				t.Logf("fixture cleanup: DetachRolePolicy %s %s: %v", role, arn, err)
			}
		})
	}
}

// NewInstanceProfile creates an instance profile of that (unique) name holding role, and
// deletes it when the test ends (before the role, which was created first).
func NewInstanceProfile(t testing.TB, name, role string) {
	t.Helper()
	PreCheck(t)
	c := newIAM()
	if _, err := c.CreateInstanceProfile(Context(t), &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(name)}); err != nil {
		t.Fatalf("CreateInstanceProfile %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = c.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(role)})
		if _, err := c.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(name)}); err != nil {
			t.Logf("fixture cleanup: DeleteInstanceProfile %s: %v", name, err)
		}
	})
	if _, err := c.AddRoleToInstanceProfile(Context(t), &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(role)}); err != nil {
		t.Fatalf("AddRoleToInstanceProfile %s: %v", name, err)
	}
}

// PutRolePolicy gives a test's role an inline policy and deletes it when the test ends (before
// the role: cleanups run last first).
func PutRolePolicy(t testing.TB, role, name, document string) {
	t.Helper()
	if _, err := newIAM().PutRolePolicy(Context(t), &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name),
		PolicyDocument: aws.String(document)}); err != nil {
		t.Fatalf("PutRolePolicy %s: %v", role, err)
	}
	t.Cleanup(func() {
		if _, err := newIAM().DeleteRolePolicy(context.Background(), &iam.DeleteRolePolicyInput{RoleName: aws.String(role),
			PolicyName: aws.String(name)}); err != nil {
			t.Logf("fixture cleanup: DeleteRolePolicy %s %s: %v", role, name, err)
		}
	})
}
