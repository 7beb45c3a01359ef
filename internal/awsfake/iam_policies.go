package awsfake

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// RolePolicies are the policies of the fake IAM's roles: managed policies by ARN (their document,
// one version "v1"), which roles they are attached to, and inline policies by role and name. The
// documents are answered URL-encoded, as IAM answers them.
type RolePolicies struct {
	Managed  map[string]string            // policy ARN -> document
	Attached map[string][]string          // role name -> attached policy ARNs
	Inline   map[string]map[string]string // role name -> policy name -> document
}

// ListAttachedRolePolicies answers the role's attached policies, in pages (PageSize).
func (f *IAM) ListAttachedRolePolicies(ctx context.Context, in *iam.ListAttachedRolePoliciesInput, _ ...func(*iam.Options)) (*iam.ListAttachedRolePoliciesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "ListAttachedRolePolicies", in, func(in *iam.ListAttachedRolePoliciesInput) (*iam.ListAttachedRolePoliciesOutput, error) {
		name := aws.ToString(in.RoleName)
		if f.role(name) < 0 {
			return nil, noSuchEntity("The role with name %s cannot be found.", name)
		}
		var all []iamtypes.AttachedPolicy
		for _, arn := range f.Policies.Attached[name] {
			all = append(all, iamtypes.AttachedPolicy{PolicyArn: aws.String(arn), PolicyName: aws.String(arn[strings.LastIndex(arn, "/")+1:])})
		}
		items, next, err := page("ListAttachedRolePolicies", all, f.PageSize, in.MaxItems, in.Marker)
		if err != nil {
			return nil, err
		}
		return &iam.ListAttachedRolePoliciesOutput{AttachedPolicies: items, Marker: next, IsTruncated: next != nil}, nil
	})
}

// GetPolicy answers a managed policy, its default version "v1".
func (f *IAM) GetPolicy(ctx context.Context, in *iam.GetPolicyInput, _ ...func(*iam.Options)) (*iam.GetPolicyOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetPolicy", in, func(in *iam.GetPolicyInput) (*iam.GetPolicyOutput, error) {
		arn := aws.ToString(in.PolicyArn)
		if _, ok := f.Policies.Managed[arn]; !ok {
			return nil, noSuchEntity("Policy %s was not found.", arn)
		}
		return &iam.GetPolicyOutput{Policy: &iamtypes.Policy{Arn: aws.String(arn), DefaultVersionId: aws.String("v1")}}, nil
	})
}

// GetPolicyVersion answers version "v1" of a managed policy, its document URL-encoded.
func (f *IAM) GetPolicyVersion(ctx context.Context, in *iam.GetPolicyVersionInput, _ ...func(*iam.Options)) (*iam.GetPolicyVersionOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetPolicyVersion", in, func(in *iam.GetPolicyVersionInput) (*iam.GetPolicyVersionOutput, error) {
		arn := aws.ToString(in.PolicyArn)
		doc, ok := f.Policies.Managed[arn]
		if !ok || aws.ToString(in.VersionId) != "v1" {
			return nil, noSuchEntity("Policy %s version %s does not exist.", arn, aws.ToString(in.VersionId))
		}
		return &iam.GetPolicyVersionOutput{PolicyVersion: &iamtypes.PolicyVersion{Document: aws.String(url.QueryEscape(doc)),
			VersionId: aws.String("v1"), IsDefaultVersion: true}}, nil
	})
}

// ListRolePolicies answers the names of the role's inline policies, sorted, in pages (PageSize).
func (f *IAM) ListRolePolicies(ctx context.Context, in *iam.ListRolePoliciesInput, _ ...func(*iam.Options)) (*iam.ListRolePoliciesOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "ListRolePolicies", in, func(in *iam.ListRolePoliciesInput) (*iam.ListRolePoliciesOutput, error) {
		name := aws.ToString(in.RoleName)
		if f.role(name) < 0 {
			return nil, noSuchEntity("The role with name %s cannot be found.", name)
		}
		var names []string
		for n := range f.Policies.Inline[name] {
			names = append(names, n)
		}
		slices.Sort(names)
		items, next, err := page("ListRolePolicies", names, f.PageSize, in.MaxItems, in.Marker)
		if err != nil {
			return nil, err
		}
		return &iam.ListRolePoliciesOutput{PolicyNames: items, Marker: next, IsTruncated: next != nil}, nil
	})
}

// GetRolePolicy answers an inline policy of the role, its document URL-encoded.
func (f *IAM) GetRolePolicy(ctx context.Context, in *iam.GetRolePolicyInput, _ ...func(*iam.Options)) (*iam.GetRolePolicyOutput, error) {
	return serve(ctx, &f.recorder, f.levers(), "GetRolePolicy", in, func(in *iam.GetRolePolicyInput) (*iam.GetRolePolicyOutput, error) {
		role, name := aws.ToString(in.RoleName), aws.ToString(in.PolicyName)
		doc, ok := f.Policies.Inline[role][name]
		if !ok {
			return nil, noSuchEntity("The role policy with name %s cannot be found.", name)
		}
		return &iam.GetRolePolicyOutput{RoleName: aws.String(role), PolicyName: aws.String(name), PolicyDocument: aws.String(url.QueryEscape(doc))}, nil
	})
}
