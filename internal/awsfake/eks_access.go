package awsfake

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// AccessPolicyKey is an access entry's key in EKS.AccessPolicies: its cluster and principal ARN.
type AccessPolicyKey struct{ Cluster, Principal string }

// ListAccessEntries lists the principal ARNs of a cluster's access entries (one page: MaxResults
// is not honoured).
func (f *EKS) ListAccessEntries(ctx context.Context, in *eks.ListAccessEntriesInput, _ ...func(*eks.Options)) (*eks.ListAccessEntriesOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "ListAccessEntries", in,
		func(in *eks.ListAccessEntriesInput) (*eks.ListAccessEntriesOutput, error) {
			if err := f.knownCluster(aws.ToString(in.ClusterName)); err != nil {
				return nil, err
			}
			out := &eks.ListAccessEntriesOutput{AccessEntries: []string{}}
			for _, e := range f.AccessEntries {
				if aws.ToString(e.ClusterName) == aws.ToString(in.ClusterName) {
					out.AccessEntries = append(out.AccessEntries, aws.ToString(e.PrincipalArn))
				}
			}
			return out, nil
		})
}

// DescribeAccessEntry answers a cluster's access entry by principal ARN.
func (f *EKS) DescribeAccessEntry(ctx context.Context, in *eks.DescribeAccessEntryInput, _ ...func(*eks.Options)) (*eks.DescribeAccessEntryOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "DescribeAccessEntry", in,
		func(in *eks.DescribeAccessEntryInput) (*eks.DescribeAccessEntryOutput, error) {
			e, err := f.accessEntry(aws.ToString(in.ClusterName), aws.ToString(in.PrincipalArn))
			if err != nil {
				return nil, err
			}
			return &eks.DescribeAccessEntryOutput{AccessEntry: &e}, nil
		})
}

// ListAssociatedAccessPolicies lists the access policies associated with a cluster's access
// entry (one page).
func (f *EKS) ListAssociatedAccessPolicies(ctx context.Context, in *eks.ListAssociatedAccessPoliciesInput, _ ...func(*eks.Options)) (
	*eks.ListAssociatedAccessPoliciesOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "ListAssociatedAccessPolicies", in,
		func(in *eks.ListAssociatedAccessPoliciesInput) (*eks.ListAssociatedAccessPoliciesOutput, error) {
			cluster, principal := aws.ToString(in.ClusterName), aws.ToString(in.PrincipalArn)
			if _, err := f.accessEntry(cluster, principal); err != nil {
				return nil, err
			}
			return &eks.ListAssociatedAccessPoliciesOutput{ClusterName: in.ClusterName, PrincipalArn: in.PrincipalArn,
				AssociatedAccessPolicies: append([]ekstypes.AssociatedAccessPolicy{}, f.AccessPolicies[AccessPolicyKey{cluster, principal}]...)}, nil
		})
}

// accessEntry is the cluster's entry of principal, or EKS's ResourceNotFoundException.
func (f *EKS) accessEntry(cluster, principal string) (ekstypes.AccessEntry, error) {
	if err := f.knownCluster(cluster); err != nil {
		return ekstypes.AccessEntry{}, err
	}
	for _, e := range f.AccessEntries {
		if aws.ToString(e.ClusterName) == cluster && aws.ToString(e.PrincipalArn) == principal {
			return e, nil
		}
	}
	return ekstypes.AccessEntry{}, &ekstypes.ResourceNotFoundException{
		Message: aws.String(fmt.Sprintf("The specified principalArn could not be found. You can view your available access entries with 'list-access-entries'. (%s)", principal))}
}
