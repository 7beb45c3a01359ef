package nodeclass

import (
	"context"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// The node-role check names the managed policies to attach in the class's partition: a role
// without the CNI's actions in aws-cn or aws-us-gov is told to attach that partition's
// AmazonEKS_CNI_Policy, and "" stays aws.
func TestPlanNodeRolePartition(t *testing.T) {
	workerAndECR := iampolicy.Document{Source: "inline:p",
		JSON: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:Describe*","eks:DescribeCluster","ecr:*"],"Resource":"*"}]}`}
	for _, c := range []struct{ partition, want string }{
		{"aws-cn", "arn:aws-cn:iam::aws:policy/AmazonEKS_CNI_Policy"},
		{"aws-us-gov", "arn:aws-us-gov:iam::aws:policy/AmazonEKS_CNI_Policy"},
		{"", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"},
	} {
		s, api := planFixture()
		nr := &NodeRole{At: attrpath.Of("role"), Partition: c.partition,
			Policies: func(context.Context) (string, []iampolicy.Document, error) {
				return "node", []iampolicy.Document{workerAndECR}, nil
			}}
		got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, NodeRole: nr})
		if len(got.Warnings) != 1 || got.Warnings[0].Summary != "Node role cannot assign pod IPs" {
			t.Fatalf("%q: warnings %v, want the CNI's", c.partition, got.Warnings)
		}
		msg := got.Warnings[0].Message
		if !strings.Contains(msg, "Attach "+c.want) {
			t.Errorf("%q: message does not name %s:\n%s", c.partition, c.want, msg)
		}
		for _, other := range []string{"arn:aws:", "arn:aws-cn:", "arn:aws-us-gov:"} {
			if c.partition != "" && other != "arn:"+c.partition+":" && strings.Contains(msg, other) {
				t.Errorf("%q: message names another partition (%s):\n%s", c.partition, other, msg)
			}
		}
	}
}
