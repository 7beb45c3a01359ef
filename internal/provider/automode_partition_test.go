package provider

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/settings"
)

// A cluster EKS reported without an ARN is checked in the caller's partition and account, so the
// Auto Mode access-entry check names the node role and AmazonEKSAutoNodePolicy in aws-cn and
// aws-us-gov as they are there; an ARN EKS reported is kept.
func TestAutoModeClusterPartitionWithoutARN(t *testing.T) {
	for _, c := range []struct{ partition, region, want string }{
		{awsclient.PartitionChina, "cn-north-1", "arn:aws-cn:eks:cn-north-1:111122223333:cluster/demo"},
		{awsclient.PartitionGov, "us-gov-west-1", "arn:aws-us-gov:eks:us-gov-west-1:111122223333:cluster/demo"},
		{awsclient.PartitionAWS, "eu-west-1", "arn:aws:eks:eu-west-1:111122223333:cluster/demo"},
	} {
		m := &Meta{ClusterName: "demo", Cluster: &settings.ClusterFacts{},
			Client: &awsclient.Client{Partition: c.partition, Region: c.region, AccountID: "111122223333"}}
		got := m.autoModeCluster()
		if got.Facts.ARN != c.want || got.AccountID != "111122223333" {
			t.Errorf("%s: cluster ARN %q (account %q), want %q", c.partition, got.Facts.ARN, got.AccountID, c.want)
		}
		if m.Cluster.ARN != "" {
			t.Errorf("%s: the looked-up facts were changed: %q", c.partition, m.Cluster.ARN)
		}
	}
	reported := "arn:aws-cn:eks:cn-northwest-1:444455556666:cluster/demo"
	m := &Meta{ClusterName: "demo", Cluster: &settings.ClusterFacts{ARN: reported},
		Client: &awsclient.Client{Partition: awsclient.PartitionAWS, Region: "cn-northwest-1", AccountID: "111122223333"}}
	if got := m.autoModeCluster().Facts.ARN; got != reported {
		t.Errorf("reported ARN %q replaced by %q", reported, got)
	}
}
