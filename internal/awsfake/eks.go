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
// it holds by name, and EKS's typed ResourceNotFoundException for any other name.
type EKS struct {
	Clusters []ekstypes.Cluster

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
			i := slices.IndexFunc(f.Clusters, func(c ekstypes.Cluster) bool { return aws.ToString(c.Name) == name })
			if i < 0 {
				return nil, &ekstypes.ResourceNotFoundException{Message: aws.String(fmt.Sprintf("No cluster found for name: %s.", name))}
			}
			c := f.Clusters[i]
			return &eks.DescribeClusterOutput{Cluster: &c}, nil
		})
}
