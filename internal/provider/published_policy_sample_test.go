package provider

import (
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// policySampleFile is one call of each shape an unfiltered acceptance run made, recorded with
// KARPENTER_POLICY_SAMPLE (see published_policy_eval_test.go).
const policySampleFile = "testdata/published_policy_calls.json"

func readPolicySample(t *testing.T) policySample {
	t.Helper()
	b, err := os.ReadFile(policySampleFile)
	if err != nil {
		t.Fatal(err)
	}
	var s policySample
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) == 0 {
		t.Fatalf("%s holds no call", policySampleFile)
	}
	return s
}

// inPartition is the sample as the same run would have recorded it in another partition and
// region.
func inPartition(t *testing.T, s policySample, partition, region string) policySample {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(`"arn:aws:`, `"arn:`+partition+`:`, `"partition":"aws"`, `"partition":"`+partition+`"`,
		acctest.DefaultRegion, region).Replace(string(b))
	var out policySample
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every request of the recorded calls (action, resource ARN, request and resource tags, the
// create action, the service a role is passed to) is allowed by the published policies filled
// for the run, in each partition, and every statement is needed by one of them.
func TestPublishedPolicyAllowsRecordedSample(t *testing.T) {
	s := readPolicySample(t)
	for _, p := range []struct{ partition, region string }{{"aws", acctest.DefaultRegion}, {"aws-us-gov", "us-gov-west-1"}, {"aws-cn", "cn-north-1"}} {
		sample := s
		if p.partition != "aws" {
			sample = inPartition(t, s, p.partition, p.region)
		}
		v, err := sample.decide()
		if err != nil {
			t.Fatal(err)
		}
		if err := v.report(true); err != nil {
			t.Errorf("%s: %v", p.partition, err)
		}
		if len(v.Unknown) > 0 {
			t.Errorf("%s: calls not fully derived: %v", p.partition, v.Unknown)
		}
		if v.Requests < 100 {
			t.Errorf("%s: only %d requests decided", p.partition, v.Requests)
		}
	}
}

// A recorded request changed to reach further is denied by the filled policy: another owner's
// instance (with the policy pinned to the run's owner id), another cluster's, a Karpenter node,
// a launch without the owner tag, tags outside the provider's creates, another role passed, or
// the node role passed to another service, or the sample's calls in another partition's policy.
func TestPublishedPolicyDeniesWiderRequests(t *testing.T) {
	s := readPolicySample(t)
	find := func(action, resourcePart string) (acctest.PolicyCall, acctest.PolicyRequest) {
		for _, c := range s.Calls {
			for _, r := range c.Requests {
				if r.Action == action && strings.Contains(r.Resource, resourcePart) {
					return c, r
				}
			}
		}
		t.Fatalf("the sample has no %s on %s", action, resourcePart)
		return acctest.PolicyCall{}, acctest.PolicyRequest{}
	}
	retag := func(m map[string]string, k, v string) map[string]string {
		out := maps.Clone(m)
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	deny := func(name string, c acctest.PolicyCall, r acctest.PolicyRequest, pinOwner bool) {
		t.Helper()
		c.Requests = []acctest.PolicyRequest{r}
		sample := policySample{NodeRoles: s.NodeRoles, SSMParameters: s.SSMParameters, Calls: []acctest.PolicyCall{c}}
		if pinOwner { // the policy of one other owner id, as a state's owner_id values pin it
			sample.pinnedOwner = "0000000000000000"
		}
		v, err := sample.decide()
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Denied) != 1 || !strings.Contains(v.Denied[0], r.Action) {
			t.Errorf("%s: %s on %s not denied (%v)", name, r.Action, r.Resource, v.Denied)
		}
	}
	term, kill := find("ec2:TerminateInstances", ":instance/i-")
	deny("terminate another owner's instance", term, kill, true)
	other := kill
	other.ResourceTags = retag(kill.ResourceTags, launchplan.TagCluster, "another-cluster")
	deny("terminate another cluster's instance", term, other, false)
	karpenter := kill
	karpenter.ResourceTags = map[string]string{"karpenter.sh/nodepool": "general", launchplan.TagCluster: term.Scope.Cluster}
	deny("terminate a Karpenter node", term, karpenter, false)

	fleet, launch := find("ec2:RunInstances", ":instance/*")
	untagged := launch
	untagged.RequestTags = retag(launch.RequestTags, launchplan.TagOwner, "")
	deny("launch without the owner tag", fleet, untagged, false)
	_, tag := find("ec2:CreateTags", ":instance/*")
	existing := tag
	existing.Keys = nil
	deny("tag an existing instance", fleet, existing, false)
	_, fromOther := find("ec2:CreateFleet", ":launch-template/lt-")
	fromOther.ResourceTags = retag(fromOther.ResourceTags, launchplan.TagManagedBy, "")
	deny("launch from a template the provider did not make", fleet, fromOther, false)

	passCall, pass := find("iam:PassRole", ":role/")
	admin := pass
	admin.Resource = acctest.RoleARN(passCall.Scope, "/", "admin")
	deny("pass another role", passCall, admin, false)
	lambda := pass
	lambda.Keys = map[string][]string{"iam:PassedToService": {"lambda.amazonaws.com"}}
	deny("pass the node role to Lambda", passCall, lambda, false)
	gov := pass
	gov.Resource = strings.Replace(pass.Resource, "arn:aws:", "arn:aws-us-gov:", 1)
	deny("pass it in another partition", passCall, gov, false)

	ssmCall, param := find("ssm:GetParameter", ":parameter/")
	private := param
	private.Resource = acctest.ParameterARN(ssmCall.Scope, "/db/password")
	deny("read a parameter no class names", ssmCall, private, false)
}
