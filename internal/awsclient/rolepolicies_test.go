package awsclient

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

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

// An AWS managed policy's version is read from IAM once and from the disk after that, its default
// version asked again once the cache's TTL has passed; a customer managed policy (its name can be
// deleted and reused, starting over at v1) and a cache that is off always read IAM.
func TestRolePoliciesKeepAWSManagedVersions(t *testing.T) {
	const aws1, own = "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy", "arn:aws:iam::111122223333:policy/node-extra"
	doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:AssignPrivateIpAddresses","Resource":"*"}]}`
	f := &awsfake.IAM{
		Roles:    []iamtypes.Role{{RoleName: aws.String("node")}},
		Policies: awsfake.RolePolicies{Managed: map[string]string{aws1: doc, own: doc}, Attached: map[string][]string{"node": {aws1, own}}},
	}
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	versions := &PolicyVersions{Disk: &CatalogDisk{Dir: t.TempDir(), TTL: time.Hour, now: func() time.Time { return now }}, Endpoint: "http://iam.test"}
	p := InstanceProfiles{IAM: f, Versions: versions}
	for plan := 1; plan <= 3; plan++ {
		docs, err := p.RolePolicies(context.Background(), "node")
		if err != nil || len(docs) != 2 {
			t.Fatalf("plan %d: %v %v", plan, docs, err)
		}
		for _, d := range docs {
			if _, err := iampolicy.Parse(d); err != nil {
				t.Errorf("plan %d, %s: %v", plan, d.Source, err)
			}
		}
	}
	if got := f.Calls("GetPolicy"); got != 4 {
		t.Errorf("GetPolicy %d times, want the AWS managed one once and the customer managed one every plan (4)", got)
	}
	if got := f.Calls("GetPolicyVersion"); got != 4 {
		t.Errorf("GetPolicyVersion %d times, want the AWS managed one once and the customer managed one every plan (4)", got)
	}
	// Within the TTL the default version comes from the disk; after it, from IAM again.
	f.ForgetCalls()
	now = now.Add(59 * time.Minute)
	if _, err := p.RolePolicies(context.Background(), "node"); err != nil || f.Calls("GetPolicy") != 1 {
		t.Errorf("59 minutes later: GetPolicy %d times (want the customer managed one's only), %v", f.Calls("GetPolicy"), err)
	}
	now = now.Add(time.Minute)
	if _, err := p.RolePolicies(context.Background(), "node"); err != nil || f.Calls("GetPolicy") != 3 || f.Calls("GetPolicyVersion") != 2 {
		t.Errorf("after the TTL: GetPolicy %d, GetPolicyVersion %d times (want 3 and 2: the AWS managed version's document is kept), %v",
			f.Calls("GetPolicy"), f.Calls("GetPolicyVersion"), err)
	}
	// Off: every version read from IAM.
	f.ForgetCalls()
	off := InstanceProfiles{IAM: f, Versions: &PolicyVersions{Disk: &CatalogDisk{Dir: versions.Disk.Dir}}}
	if _, err := off.RolePolicies(context.Background(), "node"); err != nil {
		t.Fatal(err)
	}
	if got := f.Calls("GetPolicyVersion"); got != 2 {
		t.Errorf("with the cache off GetPolicyVersion %d times, want 2", got)
	}
	// Another endpoint's entry is not this one's.
	f.ForgetCalls()
	other := InstanceProfiles{IAM: f, Versions: &PolicyVersions{Disk: versions.Disk, Endpoint: "http://elsewhere.test"}}
	if _, err := other.RolePolicies(context.Background(), "node"); err != nil {
		t.Fatal(err)
	}
	if got := f.Calls("GetPolicyVersion"); got != 2 {
		t.Errorf("another endpoint read %d versions from IAM, want 2", got)
	}
}
