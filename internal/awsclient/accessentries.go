package awsclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// AccessEntriesAPI is the EKS calls of the Auto Mode node role's access-entry check; the SDK's
// client and internal/awsfake's EKS fake answer them.
type AccessEntriesAPI interface {
	ListAccessEntries(context.Context, *eks.ListAccessEntriesInput, ...func(*eks.Options)) (*eks.ListAccessEntriesOutput, error)
	DescribeAccessEntry(context.Context, *eks.DescribeAccessEntryInput, ...func(*eks.Options)) (*eks.DescribeAccessEntryOutput, error)
	ListAssociatedAccessPolicies(context.Context, *eks.ListAssociatedAccessPoliciesInput, ...func(*eks.Options)) (
		*eks.ListAssociatedAccessPoliciesOutput, error)
}

var _ AccessEntriesAPI = (*eks.Client)(nil)

func (c *Client) accessEntriesAPI() (AccessEntriesAPI, error) {
	api, ok := c.EKS.(AccessEntriesAPI)
	if !ok {
		return nil, errors.New("the EKS client cannot read access entries")
	}
	return api, nil
}

// AccessEntryPrincipals are the principal ARNs of the cluster's EKS access entries
// (eks:ListAccessEntries, every page).
func (c *Client) AccessEntryPrincipals(ctx context.Context, cluster string) ([]string, error) {
	api, err := c.accessEntriesAPI()
	if err != nil {
		return nil, err
	}
	var out []string
	pages := eks.NewListAccessEntriesPaginator(api, &eks.ListAccessEntriesInput{ClusterName: aws.String(cluster)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("eks:ListAccessEntries of cluster %s: %w", cluster, err)
		}
		out = append(out, page.AccessEntries...)
	}
	return out, nil
}

// AccessEntry is the cluster's access entry of principal with its associated access policies
// (eks:DescribeAccessEntry, eks:ListAssociatedAccessPolicies, every page).
func (c *Client) AccessEntry(ctx context.Context, cluster, principal string) (settings.AccessEntry, error) {
	api, err := c.accessEntriesAPI()
	if err != nil {
		return settings.AccessEntry{}, err
	}
	d, err := api.DescribeAccessEntry(ctx, &eks.DescribeAccessEntryInput{ClusterName: aws.String(cluster), PrincipalArn: aws.String(principal)})
	if err != nil {
		return settings.AccessEntry{}, fmt.Errorf("eks:DescribeAccessEntry %s of cluster %s: %w", principal, cluster, err)
	}
	entry := settings.AccessEntry{PrincipalARN: principal}
	if d.AccessEntry != nil {
		entry.Type = aws.ToString(d.AccessEntry.Type)
	}
	pages := eks.NewListAssociatedAccessPoliciesPaginator(api, &eks.ListAssociatedAccessPoliciesInput{ClusterName: aws.String(cluster),
		PrincipalArn: aws.String(principal)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return settings.AccessEntry{}, fmt.Errorf("eks:ListAssociatedAccessPolicies %s of cluster %s: %w", principal, cluster, err)
		}
		for _, p := range page.AssociatedAccessPolicies {
			ap := settings.AccessPolicy{ARN: aws.ToString(p.PolicyArn)}
			if p.AccessScope != nil {
				ap.ScopeType, ap.Namespaces = string(p.AccessScope.Type), p.AccessScope.Namespaces
			}
			entry.Policies = append(entry.Policies, ap)
		}
	}
	return entry, nil
}
