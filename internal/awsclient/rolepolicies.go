package awsclient

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
	// The two listings are independent: asked at once.
	var arns, inline []string
	var listErrs [2]error
	var lists sync.WaitGroup
	lists.Go(func() {
		attached := iam.NewListAttachedRolePoliciesPaginator(p.IAM, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(name)})
		for attached.HasMorePages() {
			page, err := attached.NextPage(ctx)
			if err != nil {
				listErrs[0] = fmt.Errorf("ListAttachedRolePolicies %s: %w", name, err)
				return
			}
			for _, ap := range page.AttachedPolicies {
				arns = append(arns, aws.ToString(ap.PolicyArn))
			}
		}
	})
	lists.Go(func() {
		names := iam.NewListRolePoliciesPaginator(p.IAM, &iam.ListRolePoliciesInput{RoleName: aws.String(name)})
		for names.HasMorePages() {
			page, err := names.NextPage(ctx)
			if err != nil {
				listErrs[1] = fmt.Errorf("ListRolePolicies %s: %w", name, err)
				return
			}
			inline = append(inline, page.PolicyNames...)
		}
	})
	lists.Wait()
	for _, err := range listErrs {
		if err != nil {
			return nil, err
		}
	}
	// The documents are read at once: a node role has a handful of policies, two calls each.
	docs := make([]iampolicy.Document, len(arns)+len(inline))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i, arn := range arns {
		wg.Go(func() { docs[i], errs[i] = p.managedPolicy(ctx, arn) })
	}
	for i, pn := range inline {
		wg.Go(func() {
			out, err := p.IAM.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(pn)})
			if err != nil {
				errs[len(arns)+i] = fmt.Errorf("GetRolePolicy %s %s: %w", name, pn, err)
				return
			}
			docs[len(arns)+i] = iampolicy.Document{Source: "inline:" + pn, JSON: aws.ToString(out.PolicyDocument)}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return docs, nil
}

// managedPolicy reads the default version of a managed policy: which version that is and its
// document from the disk when Versions keeps them (AWS managed policies), else from IAM.
func (p InstanceProfiles) managedPolicy(ctx context.Context, arn string) (iampolicy.Document, error) {
	version, known := p.Versions.defaultVersion(ctx, arn)
	if !known {
		pol, err := p.IAM.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(arn)})
		if err != nil {
			return iampolicy.Document{}, fmt.Errorf("GetPolicy %s: %w", arn, err)
		}
		version = aws.ToString(pol.Policy.DefaultVersionId)
		p.Versions.writeDefault(ctx, arn, version)
	}
	if doc, ok := p.Versions.read(ctx, arn, version); ok {
		return iampolicy.Document{Source: arn, JSON: doc}, nil
	}
	ver, err := p.IAM.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(arn), VersionId: aws.String(version)})
	if err != nil {
		return iampolicy.Document{}, fmt.Errorf("GetPolicyVersion %s: %w", arn, err)
	}
	doc := aws.ToString(ver.PolicyVersion.Document)
	p.Versions.write(ctx, arn, version, doc)
	return iampolicy.Document{Source: arn, JSON: doc}, nil
}
