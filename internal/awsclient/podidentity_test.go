package awsclient

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
)

func TestPodIdentityRole(t *testing.T) {
	fake := &awsfake.EKS{Clusters: []ekstypes.Cluster{{Name: aws.String("prod")}, {Name: aws.String("dev")}},
		PodIdentityAssociations: []ekstypes.PodIdentityAssociation{
			{ClusterName: aws.String("dev"), AssociationId: aws.String("a-dev"), Namespace: aws.String("kube-system"),
				ServiceAccount: aws.String("karpenter"), RoleArn: aws.String("arn:aws:iam::1:role/dev")},
			{ClusterName: aws.String("prod"), AssociationId: aws.String("a-other"), Namespace: aws.String("kube-system"),
				ServiceAccount: aws.String("other"), RoleArn: aws.String("arn:aws:iam::1:role/other")},
			{ClusterName: aws.String("prod"), AssociationId: aws.String("a-prod"), Namespace: aws.String("kube-system"),
				ServiceAccount: aws.String("karpenter"), RoleArn: aws.String("arn:aws:iam::1:role/prod")},
		}}
	c := &Client{EKS: fake}
	ctx := context.Background()
	role, id, err := c.PodIdentityRole(ctx, "prod", "kube-system", "karpenter")
	if err != nil || role != "arn:aws:iam::1:role/prod" || id != "a-prod" {
		t.Fatalf("prod: %q %q %v", role, id, err)
	}
	if role, id, err := c.PodIdentityRole(ctx, "prod", "karpenter", "karpenter"); err != nil || role != "" || id != "" {
		t.Errorf("no association: %q %q %v", role, id, err)
	}
	if _, _, err := c.PodIdentityRole(ctx, "gone", "kube-system", "karpenter"); !IsNotFound(err) || !strings.Contains(err.Error(), "ListPodIdentityAssociations gone") {
		t.Errorf("unknown cluster: %v", err)
	}
	fake.Fail = map[string]error{"DescribePodIdentityAssociation": errors.New("AccessDenied")}
	if _, _, err := c.PodIdentityRole(ctx, "prod", "kube-system", "karpenter"); err == nil || !strings.Contains(err.Error(), "DescribePodIdentityAssociation a-prod") {
		t.Errorf("a failing describe: %v", err)
	}
}

// The acceptance tests' EKS stub answers the same reads over EKS's wire, from the fake.
func TestPodIdentityRoleOverTheWire(t *testing.T) {
	srv := acctest.NewEKSStub(t, acctest.EKSCluster{Name: "prod", PodIdentities: []acctest.PodIdentity{
		{Namespace: "kube-system", ServiceAccount: "karpenter", RoleARN: "arn:aws:iam::1:role/prod"}}})
	c := &Client{EKS: eksClient(srv.URL)}
	role, id, err := c.PodIdentityRole(context.Background(), "prod", "kube-system", "karpenter")
	if err != nil || role != "arn:aws:iam::1:role/prod" || id != "a-prod0" {
		t.Fatalf("prod: %q %q %v", role, id, err)
	}
	if role, _, err := c.PodIdentityRole(context.Background(), "prod", "kube-system", "nobody"); err != nil || role != "" {
		t.Errorf("no association: %q %v", role, err)
	}
	if _, _, err := c.PodIdentityRole(context.Background(), "gone", "kube-system", "karpenter"); !IsNotFound(err) {
		t.Errorf("unknown cluster: %v", err)
	}
}

func eksClient(url string) *eks.Client {
	return eks.New(eks.Options{Region: "eu-west-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("a", "b", ""), RetryMaxAttempts: 1})
}
