package awsclient

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

func TestRolePolicies(t *testing.T) {
	const cni, worker = "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy", "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"
	doc := func(action string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"` + action + `","Resource":"*"}]}`
	}
	f := &awsfake.IAM{
		Roles: []iamtypes.Role{{RoleName: aws.String("node")}},
		Policies: awsfake.RolePolicies{
			Managed:  map[string]string{cni: doc("ec2:AssignPrivateIpAddresses"), worker: doc("eks:DescribeCluster")},
			Attached: map[string][]string{"node": {cni, worker}},
			Inline:   map[string]map[string]string{"node": {"ecr": doc("ecr:*"), "extra": doc("s3:GetObject")}},
		},
		PageSize: map[string]int{"ListAttachedRolePolicies": 1, "ListRolePolicies": 1}, // every listing takes two pages
	}
	docs, err := InstanceProfiles{IAM: f}.RolePolicies(context.Background(), "arn:aws:iam::111122223333:role/path/node")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, d := range docs {
		sources = append(sources, d.Source)
		if _, err := iampolicy.Parse(d); err != nil { // IAM answers URL-encoded documents
			t.Errorf("%s: %v", d.Source, err)
		}
	}
	if want := []string{cni, worker, "inline:ecr", "inline:extra"}; !slices.Equal(sources, want) {
		t.Errorf("sources %v, want %v", sources, want)
	}
	if n := f.Calls("ListAttachedRolePolicies", "ListRolePolicies"); n != 4 {
		t.Errorf("%d listing calls, want 4 (two pages each)", n)
	}

	f.Fail = map[string]error{"GetPolicyVersion": errors.New("AccessDenied")}
	if _, err := (InstanceProfiles{IAM: f}).RolePolicies(context.Background(), "node"); err == nil {
		t.Error("a policy that cannot be read was skipped")
	}
}
