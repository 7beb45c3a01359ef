package awsfake

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
)

func TestEKS(t *testing.T) {
	ctx := context.Background()
	f := &EKS{Clusters: []ekstypes.Cluster{{Name: aws.String("prod"), Version: aws.String("1.33")}}}
	out, err := f.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("prod")})
	if err != nil || aws.ToString(out.Cluster.Version) != "1.33" {
		t.Errorf("prod: %+v, %v", out, err)
	}
	var nf *ekstypes.ResourceNotFoundException
	if _, err := f.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("dev")}); !errors.As(err, &nf) {
		t.Errorf("an unknown cluster: %v", err)
	}
	if in := Inputs[eks.DescribeClusterInput](f); len(in) != 2 || aws.ToString(in[1].Name) != "dev" {
		t.Errorf("inputs %+v", in)
	}
}
