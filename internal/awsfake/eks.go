package awsfake

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

// EKS is the fake EKS API: every call of awsclient.EKSAPI. DescribeCluster answers the cluster
// it holds by name, and EKS's typed ResourceNotFoundException for any other name; the EKS Pod
// Identity associations are listed by cluster, namespace and service account, and described by
// id, and the access entries listed by cluster and described, with their associated access
// policies, by principal ARN, as EKS does.
type EKS struct {
	Clusters []ekstypes.Cluster
	// PodIdentityAssociations are every cluster's associations (ClusterName says whose).
	PodIdentityAssociations []ekstypes.PodIdentityAssociation
	// AccessEntries are every cluster's access entries (ClusterName says whose), and
	// AccessPolicies the access policies associated with them, by AccessPolicyKey.
	AccessEntries  []ekstypes.AccessEntry
	AccessPolicies map[AccessPolicyKey][]ekstypes.AssociatedAccessPolicy

	// Fail makes an operation ("DescribeCluster") answer the error, every call.
	Fail map[string]error
	// FailNext queues errors for the next calls of an operation, one per call.
	FailNext map[string][]error
	// Hook sees every call first (see Hook).
	Hook Hook

	recorder
}

// DescribeCluster answers the named cluster.
func (f *EKS) DescribeCluster(ctx context.Context, in *eks.DescribeClusterInput, _ ...func(*eks.Options)) (*eks.DescribeClusterOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "DescribeCluster", in,
		func(in *eks.DescribeClusterInput) (*eks.DescribeClusterOutput, error) {
			name := aws.ToString(in.Name)
			if err := f.knownCluster(name); err != nil {
				return nil, err
			}
			i := slices.IndexFunc(f.Clusters, func(c ekstypes.Cluster) bool { return aws.ToString(c.Name) == name })
			c := f.Clusters[i]
			return &eks.DescribeClusterOutput{Cluster: &c}, nil
		})
}

// ListPodIdentityAssociations lists a cluster's associations, filtered by namespace and service
// account when given (one page: the provider asks for one service account's).
func (f *EKS) ListPodIdentityAssociations(ctx context.Context, in *eks.ListPodIdentityAssociationsInput, _ ...func(*eks.Options)) (
	*eks.ListPodIdentityAssociationsOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "ListPodIdentityAssociations", in,
		func(in *eks.ListPodIdentityAssociationsInput) (*eks.ListPodIdentityAssociationsOutput, error) {
			if err := f.knownCluster(aws.ToString(in.ClusterName)); err != nil {
				return nil, err
			}
			out := &eks.ListPodIdentityAssociationsOutput{}
			for _, a := range f.PodIdentityAssociations {
				if aws.ToString(a.ClusterName) != aws.ToString(in.ClusterName) ||
					(in.Namespace != nil && aws.ToString(a.Namespace) != aws.ToString(in.Namespace)) ||
					(in.ServiceAccount != nil && aws.ToString(a.ServiceAccount) != aws.ToString(in.ServiceAccount)) {
					continue
				}
				out.Associations = append(out.Associations, ekstypes.PodIdentityAssociationSummary{AssociationId: a.AssociationId,
					AssociationArn: a.AssociationArn, ClusterName: a.ClusterName, Namespace: a.Namespace, ServiceAccount: a.ServiceAccount})
			}
			return out, nil
		})
}

// DescribePodIdentityAssociation answers one association of the cluster by id.
func (f *EKS) DescribePodIdentityAssociation(ctx context.Context, in *eks.DescribePodIdentityAssociationInput, _ ...func(*eks.Options)) (
	*eks.DescribePodIdentityAssociationOutput, error) {
	return serve(ctx, &f.recorder, levers{fail: f.Fail, failNext: f.FailNext, hook: f.Hook}, "DescribePodIdentityAssociation", in,
		func(in *eks.DescribePodIdentityAssociationInput) (*eks.DescribePodIdentityAssociationOutput, error) {
			for _, a := range f.PodIdentityAssociations {
				if aws.ToString(a.ClusterName) == aws.ToString(in.ClusterName) && aws.ToString(a.AssociationId) == aws.ToString(in.AssociationId) {
					return &eks.DescribePodIdentityAssociationOutput{Association: &a}, nil
				}
			}
			return nil, &ekstypes.ResourceNotFoundException{Message: aws.String(fmt.Sprintf("No association found for id: %s.", aws.ToString(in.AssociationId)))}
		})
}

// knownCluster is EKS's ResourceNotFoundException for a cluster the fake does not hold.
func (f *EKS) knownCluster(name string) error {
	if slices.ContainsFunc(f.Clusters, func(c ekstypes.Cluster) bool { return aws.ToString(c.Name) == name }) {
		return nil
	}
	return &ekstypes.ResourceNotFoundException{Message: aws.String(fmt.Sprintf("No cluster found for name: %s.", name))}
}
