package installation

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// The actions each release's controller dry-runs itself before it launches
// (pkg/controllers/nodeclass/validation.go, its "<Action>AuthCheckFailed" condition reasons) are
// among the actions the table says that release needs; 1.15, whose policy no revision publishes,
// is checked with 1.14's.
func TestControllerNeedsCoverTheDryRuns(t *testing.T) {
	reason := regexp.MustCompile(`"(\w+)AuthCheckFailed"`)
	const validation = "pkg/controllers/nodeclass/validation.go"
	compared := 0
	releaseZips(t, func(path string) bool { return path == validation }, func(minor, module string, files map[string][]byte) {
		b, ok := files[validation]
		if !ok {
			t.Fatalf("%s: no %s", module, validation)
		}
		needs, from := ControllerNeeds(minor, false)
		if want := map[bool]string{true: "1.14", false: minor}[minor == "1.15"]; from.Minor != want {
			t.Errorf("%s: policy of %q, want %q", minor, from.Minor, want)
		}
		dry := reason.FindAllSubmatch(b, -1)
		if len(dry) < 3 {
			t.Fatalf("%s: %d dry-run actions read", minor, len(dry))
		}
		for _, m := range dry {
			action := "ec2:" + string(m[1])
			if !slices.ContainsFunc(needs, func(n ControllerNeed) bool { return n.Action == action }) {
				t.Errorf("%s dry-runs %s, which its policy table lacks", minor, action)
			}
			compared++
		}
	})
	if compared < 21 {
		t.Fatalf("%d dry-run actions compared, want >= 21 (3 per release)", compared)
	}
}

func TestControllerNeeds(t *testing.T) {
	withQueue, _ := ControllerNeeds("1.12", true)
	without, from := ControllerNeeds("1.12", false)
	has := func(needs []ControllerNeed, a string) bool {
		return slices.ContainsFunc(needs, func(n ControllerNeed) bool { return n.Action == a })
	}
	if from.Minor != "1.12" || !has(withQueue, "sqs:ReceiveMessage") || has(without, "sqs:ReceiveMessage") ||
		!has(without, "ec2:DescribeInstanceStatus") || !has(without, "ec2:CreateFleet") {
		t.Errorf("1.12 needs: %+v", without)
	}
	if old, _ := ControllerNeeds("1.11", false); has(old, "ec2:DescribeInstanceStatus") || !has(old, "ec2:DescribePlacementGroups") {
		t.Errorf("1.11 needs: %+v", old)
	}
	if n, _ := ControllerNeeds("1.8", true); len(n) != 0 {
		t.Errorf("1.8: %d needs, want none", len(n))
	}
	// A deduplicated list: RunInstances is granted by three statements, named by the first.
	count := 0
	for _, n := range without {
		if n.Action == "ec2:RunInstances" {
			count++
			if n.Sid != "AllowScopedEC2InstanceAccessActions" {
				t.Errorf("RunInstances named by %s", n.Sid)
			}
		}
	}
	if count != 1 {
		t.Errorf("RunInstances listed %d times", count)
	}
}

func TestCheckControllerRole(t *testing.T) {
	c := Controller{Namespace: "kube-system", Name: "karpenter", Version: "1.14.1"}
	role := ControllerRole{ARN: "arn:aws:iam::123456789012:role/karpenter", Via: "the eks.amazonaws.com/role-arn annotation of service account kube-system/karpenter"}
	doc := func(src, js string) iampolicy.Document { return iampolicy.Document{Source: src, JSON: js} }
	everything := doc("inline:all", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	if f := CheckControllerRole(c, "1.14", "eu-west-1", role, []iampolicy.Document{everything}); f != nil {
		t.Errorf("a role allowed everything: %+v", f)
	}
	noFleet := doc("inline:deny", `{"Statement":[{"Effect":"Deny","Action":"ec2:CreateFleet","Resource":"*"}]}`)
	f := CheckControllerRole(c, "1.14", "eu-west-1", role, []iampolicy.Document{everything, noFleet})
	if len(f) != 1 || f[0].Path.String() != "karpenter_controller" || f[0].Summary != "Controller role lacks permissions" {
		t.Fatalf("findings %+v", f)
	}
	for _, want := range []string{"runs as IAM role arn:aws:iam::123456789012:role/karpenter, found through the eks.amazonaws.com/role-arn",
		"do not allow 1 of the 29 actions Karpenter 1.14 needs",
		"ec2:CreateFleet (explicit deny; upstream KarpenterControllerNodeLifecyclePolicy/AllowScopedEC2InstanceAccessActions)",
		"website/content/en/v1.14 at 1d927085"} {
		if !strings.Contains(f[0].Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f[0].Message)
		}
	}
	// A role that allows only some actions: the launch actions only in another region (decided:
	// missing), the tagging actions only under a tag condition (not decided: counted as allowed
	// and not evaluated), the region's reads (decided: allowed); a controller with a queue needs the
	// queue's actions too; a document that is not JSON is named.
	some := doc("arn:aws:iam::123456789012:policy/some", `{"Statement":[
		{"Effect":"Allow","Action":["ec2:Describe*","ssm:GetParameter","pricing:GetProducts"],"Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-west-1"}}},
		{"Sid":"Oregon","Effect":"Allow","Action":["ec2:RunInstances","ec2:CreateFleet"],"Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"us-west-2"}}},
		{"Effect":"Allow","Action":["ec2:CreateTags","ec2:CreateLaunchTemplate"],"Resource":"*","Condition":{"StringLike":{"aws:RequestTag/karpenter.sh/nodepool":"*"}}}]}`)
	c.InterruptionQueue = "q"
	f = CheckControllerRole(c, "1.15", "eu-west-1", role, []iampolicy.Document{some, doc("inline:broken", "{")})
	if len(f) != 1 {
		t.Fatalf("findings %+v", f)
	}
	for _, want := range []string{"Karpenter 1.15 (whose policy is not published at a revision the provider read; 1.14's is used)",
		"sqs:ReceiveMessage (implicit deny; upstream KarpenterControllerInterruptionPolicy/AllowInterruptionQueueActions)",
		`ec2:CreateFleet (implicit deny: the condition of arn:aws:iam::123456789012:policy/some (statement "Oregon") does not hold ` +
			"for a request in eu-west-1; upstream", "do not allow 17 of the 32 actions",
		"2 more actions are allowed only under conditions or for some resources", "Policies not read (not valid JSON): inline:broken"} {
		if !strings.Contains(f[0].Message, want) {
			t.Errorf("message lacks %q:\n%s", want, f[0].Message)
		}
	}
	if strings.Contains(f[0].Message, "ec2:CreateTags (") || strings.Contains(f[0].Message, "ec2:DescribeSubnets (") {
		t.Errorf("an allowed action named missing:\n%s", f[0].Message)
	}
	if f := CheckControllerRole(c, "1.8", "eu-west-1", role, nil); len(f) != 1 || f[0].Summary != "Controller permissions not checked" {
		t.Errorf("1.8: %+v", f)
	}
}

func TestNewControllerActions(t *testing.T) {
	if got := NewControllerActions("1.11", "1.12"); !slices.Equal(got, []string{"arc-zonal-shift:GetManagedResource", "ec2:DescribeInstanceStatus"}) {
		t.Errorf("1.11 → 1.12: %v", got)
	}
	if got := NewControllerActions("1.13", "1.14"); len(got) != 0 {
		t.Errorf("1.13 → 1.14: %v", got)
	}
}
