package awsclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// RolePolicies reads a role's policy documents for iampolicy: the default version of each
// attached managed policy (ListAttachedRolePolicies, GetPolicy, GetPolicyVersion) and each
// inline policy (ListRolePolicies, GetRolePolicy). IAM returns the documents URL-encoded;
// iampolicy decodes them.
func (p InstanceProfiles) RolePolicies(ctx context.Context, role string) ([]iampolicy.Document, error) {
	name := roleName(role)
	var docs []iampolicy.Document
	attached := iam.NewListAttachedRolePoliciesPaginator(p.IAM, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
	for attached.HasMorePages() {
		page, err := attached.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ListAttachedRolePolicies %s: %w", name, err)
		}
		for _, ap := range page.AttachedPolicies {
			pol, err := p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: ap.PolicyArn})
			if err != nil {
				return nil, fmt.Errorf("GetPolicy %s: %w", aws.ToString(ap.PolicyArn), err)
			}
			ver, err := p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: ap.PolicyArn, VersionId: pol.Policy.DefaultVersionId})
			if err != nil {
				return nil, fmt.Errorf("GetPolicyVersion %s: %w", aws.ToString(ap.PolicyArn), err)
			}
			docs = append(docs, iampolicy.Document{Source: aws.ToString(ap.PolicyArn), JSON: aws.ToString(ver.PolicyVersion.Document)})
		}
	}
	inline := iam.NewListRolePoliciesPaginator(p.IAM, &iam.ListRolePoliciesInput{RoleName: aws.String(name)})
	for inline.HasMorePages() {
		page, err := inline.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("ListRolePolicies %s: %w", name, err)
		}
		for _, pn := range page.PolicyNames {
			out, err := p.IAM.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(pn)})
			if err != nil {
				return nil, fmt.Errorf("GetRolePolicy %s %s: %w", name, pn, err)
			}
			docs = append(docs, iampolicy.Document{Source: "inline:" + pn, JSON: aws.ToString(out.PolicyDocument)})
		}
	}
	return docs, nil
}
