package awsclient

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// The access-entry port over the EKS fake: the cluster's principals, then one entry's type and
// its associated policies with their scopes; a principal without an entry is EKS's not-found,
// named with the call.
func TestAccessEntries(t *testing.T) {
	const role, other = "arn:aws:iam::111122223333:role/nodes/NodeRole", "arn:aws:iam::111122223333:role/Admin"
	const policy = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"
	fake := &awsfake.EKS{Clusters: []ekstypes.Cluster{{Name: aws.String("prod")}, {Name: aws.String("dev")}},
		AccessEntries: []ekstypes.AccessEntry{
			{ClusterName: aws.String("prod"), PrincipalArn: aws.String(role), Type: aws.String("EC2")},
			{ClusterName: aws.String("prod"), PrincipalArn: aws.String(other), Type: aws.String("STANDARD")},
			{ClusterName: aws.String("dev"), PrincipalArn: aws.String(role), Type: aws.String("EC2_LINUX")}},
		AccessPolicies: map[awsfake.AccessPolicyKey][]ekstypes.AssociatedAccessPolicy{
			{Cluster: "prod", Principal: role}: {
				{PolicyArn: aws.String(policy), AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeCluster}},
				{PolicyArn: aws.String("arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"),
					AccessScope: &ekstypes.AccessScope{Type: ekstypes.AccessScopeTypeNamespace, Namespaces: []string{"default"}}}}}}
	c := &Client{EKS: fake}
	ctx := context.Background()
	principals, err := c.AccessEntryPrincipals(ctx, "prod")
	if err != nil || !reflect.DeepEqual(principals, []string{role, other}) {
		t.Fatalf("principals %v, %v", principals, err)
	}
	entry, err := c.AccessEntry(ctx, "prod", role)
	want := settings.AccessEntry{PrincipalARN: role, Type: "EC2", Policies: []settings.AccessPolicy{{ARN: policy, ScopeType: "cluster"},
		{ARN: "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy", ScopeType: "namespace", Namespaces: []string{"default"}}}}
	if err != nil || !reflect.DeepEqual(entry, want) {
		t.Fatalf("entry %+v, %v", entry, err)
	}
	if entry, err := c.AccessEntry(ctx, "dev", role); err != nil || entry.Type != "EC2_LINUX" || entry.Policies != nil {
		t.Errorf("dev's entry %+v, %v", entry, err)
	}
	_, err = c.AccessEntry(ctx, "dev", other)
	var notFound *ekstypes.ResourceNotFoundException
	if !errors.As(err, &notFound) || !strings.Contains(err.Error(), "eks:DescribeAccessEntry "+other+" of cluster dev") {
		t.Errorf("no entry: %v", err)
	}
	fake.Fail = map[string]error{"ListAccessEntries": errors.New("AccessDeniedException")}
	if _, err := c.AccessEntryPrincipals(ctx, "prod"); err == nil || !strings.Contains(err.Error(), "eks:ListAccessEntries of cluster prod") {
		t.Errorf("denied: %v", err)
	}
}
