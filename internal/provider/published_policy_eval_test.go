package provider

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest/policyrecord"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// The published policy decides the suite's calls: every AWS call the in-process providers make
// is recorded as the IAM requests it needs (acctest.PolicyRecorder: action, resource ARN, request
// tags, resource tags, ec2:CreateAction, iam:PassedToService), and the published policies, filled
// for the call's partition, account, region and cluster with the tests' node roles, their SSM
// parameters and any owner id, must allow each one (iampolicy.Authorize). A statement no call
// needs is reported. TestMain runs it after an unfiltered acceptance run (or a filtered one with
// KARPENTER_POLICY_EVAL=1); KARPENTER_POLICY_SAMPLE=<file> writes one call of each shape, the
// sample TestPublishedPolicyAllowsRecordedSample decides in every `make unit`.

// suitePolicyCalls records the calls of every provider the suite's factories serve.
var suitePolicyCalls = acctest.NewPolicyRecorder()

// policyRecorded builds the provider's clients with next and records their calls, each with
// the cluster_name of the provider once it is configured.
func policyRecorded(p *karpenterProvider, next awsclient.NewClientFunc) awsclient.NewClientFunc {
	return func(ctx context.Context, s awsclient.Settings) (*awsclient.Client, error) {
		c, err := next(ctx, s)
		if c != nil {
			recordPolicyCalls(suitePolicyCalls, c, func() string {
				if m := p.meta.Load(); m != nil {
					return m.ClusterName
				}
				return ""
			})
		}
		return c, err
	}
}

// recordPolicyCalls records the client's calls into r (policyrecord.Wrap), each with the
// cluster cluster names.
func recordPolicyCalls(r *acctest.PolicyRecorder, c *awsclient.Client, cluster func() string) {
	policyrecord.Wrap(r, c, cluster)
}

// policySample is the recorded calls with the fixtures that fill the policy for them.
type policySample struct {
	// NodeRoles are the roles the test configurations name (fixtures), SSMParameters the
	// parameters their ssm_parameter terms name.
	NodeRoles     []string             `json:"node_roles"`
	SSMParameters []string             `json:"ssm_parameters"`
	Calls         []acctest.PolicyCall `json:"calls"`
	// pinnedOwner, when set, fills the owner ids with it instead of "*".
	pinnedOwner string
}

// policyVerdict is what the filled published policy decided on the sample.
type policyVerdict struct {
	Requests, Calls int
	// Denied names each call a request of which the policy denies.
	Denied []string
	// Clusterless counts the requests of providers without cluster_name that the scoped
	// statements deny, as the IAM guide says they do (no cluster tag on what they create).
	Clusterless int
	// Unknown are the calls whose requests the recorder could not fully derive.
	Unknown []string
	// Unused are the statements (capability/Sid) no request needed; Uncovered the capabilities
	// none of whose statements a request needed.
	Unused, Uncovered []string
}

// decide fills the published policies for each scope of the sample and authorizes every
// request of every call.
func (s policySample) decide() (policyVerdict, error) {
	var v policyVerdict
	filled := map[acctest.CallScope][]iampolicy.Policy{}
	used := map[string]bool{}
	for _, call := range s.Calls {
		policies, ok := filled[call.Scope]
		if !ok {
			var err error
			if policies, err = s.fill(call.Scope); err != nil {
				return v, err
			}
			filled[call.Scope] = policies
		}
		v.Calls++
		if len(call.Unknown) > 0 {
			v.Unknown = append(v.Unknown, fmt.Sprintf("%s (cluster %q): %s", call.Op, call.Scope.Cluster, strings.Join(call.Unknown, "; ")))
		}
		for _, r := range call.Requests {
			v.Requests++
			got := iampolicy.Authorize(policies, r.IAM())
			for _, ref := range got.AllowedBy {
				used[ref.Source+"/"+ref.Sid] = true
			}
			if got.Decision != iampolicy.Allowed && call.Scope.Cluster == "" && scopedByCluster(r) {
				v.Clusterless++
				continue
			}
			if got.Decision != iampolicy.Allowed {
				v.Denied = append(v.Denied, fmt.Sprintf("%s (cluster %q, %d calls): %s on %s is %s%s", call.Op, call.Scope.Cluster, call.Count,
					r.Action, r.Resource, got.Decision, describeTags(r)))
			}
		}
	}
	covered := map[string]bool{}
	for _, st := range awsclient.Statements {
		if used[st.Capability+"/"+st.Sid] {
			covered[st.Capability] = true
		} else {
			v.Unused = append(v.Unused, st.Capability+"/"+st.Sid)
		}
	}
	for _, c := range awsclient.Capabilities {
		if !covered[c.Name] {
			v.Uncovered = append(v.Uncovered, c.Name)
		}
	}
	sort.Strings(v.Denied)
	sort.Strings(v.Unknown)
	v.Unknown = slices.Compact(v.Unknown)
	return v, nil
}

// scopedByCluster says whether a request is one the published policy allows only on objects
// tagged with the provider's cluster: an action of a statement whose resource or condition
// names the cluster (the static pools' EC2 objects, the role classes' instance profiles).
func scopedByCluster(r acctest.PolicyRequest) bool {
	for _, st := range awsclient.Statements {
		if !slices.Contains(st.Actions, r.Action) {
			continue
		}
		for _, keys := range st.Condition {
			for k, vals := range keys {
				if strings.Contains(k, awsclient.PhClusterName) || slices.Contains(vals, awsclient.PhClusterName) {
					return true
				}
			}
		}
	}
	return false
}

func describeTags(r acctest.PolicyRequest) string {
	var parts []string
	if len(r.RequestTags) > 0 {
		parts = append(parts, "request tags "+tagString(r.RequestTags))
	}
	if len(r.ResourceTags) > 0 {
		parts = append(parts, "resource tags "+tagString(r.ResourceTags))
	}
	for _, k := range slices.Sorted(maps.Keys(r.Keys)) {
		parts = append(parts, k+"="+strings.Join(r.Keys[k], ","))
	}
	if len(parts) == 0 {
		return " (no tags)"
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func tagString(m map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k+"="+m[k])
	}
	return "{" + strings.Join(kv, ", ") + "}"
}

// fill is every capability's published policy filled for the scope, as examples/iam fills it.
func (s policySample) fill(scope acctest.CallScope) ([]iampolicy.Policy, error) {
	v := awsclient.Values{Partition: scope.Partition, AccountID: scope.Account, Region: scope.Region, ClusterName: scope.Cluster,
		OwnerIDs: []string{"*"}}
	if s.pinnedOwner != "" {
		v.OwnerIDs = []string{s.pinnedOwner}
	}
	for _, r := range s.NodeRoles {
		v.NodeRoleARNs = append(v.NodeRoleARNs, acctest.RoleARN(scope, "/", r))
	}
	for _, p := range s.SSMParameters {
		v.SSMParameterARNs = append(v.SSMParameterARNs, acctest.ParameterARN(scope, p))
	}
	var out []iampolicy.Policy
	for _, c := range awsclient.Capabilities {
		doc, err := awsclient.PolicyDocument(c.Name)
		if err != nil {
			return nil, err
		}
		filled, err := awsclient.Fill(doc, v)
		if err != nil {
			return nil, err
		}
		p, err := iampolicy.Parse(iampolicy.Document{Source: c.Name, JSON: string(filled)})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// checkPublishedPolicyDecisions decides the suite's recorded calls with the filled published
// policy: a denied call fails; a statement no call needed fails when the run reached every
// capability, and is only listed otherwise. It runs after an unfiltered acceptance run, or a
// filtered one with KARPENTER_POLICY_EVAL=1 (which only lists unused statements).
func checkPublishedPolicyDecisions() error {
	filtered := flag.Lookup("test.run") != nil && flag.Lookup("test.run").Value.String() != ""
	if filtered && os.Getenv("KARPENTER_POLICY_EVAL") == "" {
		return nil
	}
	if cliPolicyErr != nil {
		return fmt.Errorf("reading the calls of the CLI tests' provider processes: %w", cliPolicyErr)
	}
	suitePolicyCalls.Add(cliPolicyCalls...)
	fmt.Printf("published IAM policy: %d calls of the CLI tests' provider processes decided beside the in-process ones\n", len(cliPolicyCalls))
	s := policySample{NodeRoles: acctest.FixtureRoles(), SSMParameters: acctest.FixtureParameters(), Calls: suitePolicyCalls.Calls()}
	s.SSMParameters = append(s.SSMParameters, missingParameters(s.Calls)...)
	if out := os.Getenv("KARPENTER_POLICY_SAMPLE"); out != "" {
		if err := writePolicySample(out, s); err != nil {
			return err
		}
	}
	v, err := s.decide()
	if err != nil {
		return err
	}
	return v.report(!filtered)
}

// missingParameters are the private parameters the provider failed to read: a class names
// each (alias terms read only AWS's public ones), but no fixture wrote it (a test of a missing
// parameter), so the policy's list of the classes' parameters would hold it.
func missingParameters(calls []acctest.PolicyCall) []string {
	var out []string
	for _, c := range calls {
		if c.Op != "SSM.GetParameter" || !c.Failed {
			continue
		}
		for _, r := range c.Requests {
			if _, name, ok := strings.Cut(r.Resource, ":parameter/"); ok && !strings.HasPrefix(name, "aws/") &&
				!strings.HasSuffix(r.Resource, "::parameter/"+name) {
				out = append(out, "/"+name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// report prints the verdict; its error lists what fails: denied calls, and the unused
// statements when the run reached every capability (strict) .
func (v policyVerdict) report(strict bool) error {
	fmt.Printf("published IAM policy decisions: %d requests of %d distinct calls, %d denied, %d with an unknown part, "+
		"%d of %d statements unused, capabilities not reached: %v; %d requests without cluster_name denied by the "+
		"cluster-scoped statements (as docs/guides/iam-permissions.md says)\n",
		v.Requests, v.Calls, len(v.Denied), len(v.Unknown), len(v.Unused), len(awsclient.Statements), v.Uncovered, v.Clusterless)
	for _, u := range v.Unknown {
		fmt.Println("  not fully derived: " + u)
	}
	var problems []string
	for _, d := range v.Denied {
		problems = append(problems, "the published policy denies "+d)
	}
	for _, u := range v.Unused {
		msg := "no recorded call needs statement " + u
		if strict && len(v.Uncovered) == 0 {
			problems = append(problems, msg)
		} else {
			fmt.Println("  " + msg)
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// shapeOf is a call's shape: its operation, outcome and requests with ids, names and tag values
// left out, so the sample keeps one call of each.
func shapeOf(c acctest.PolicyCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %v %v|", c.Op, c.Failed, len(c.Unknown) > 0)
	for _, r := range c.Requests {
		fmt.Fprintf(&b, "%s %s %v %v %v;", r.Action, resourceKind.ReplaceAllString(r.Resource, "$1"), slices.Sorted(maps.Keys(r.RequestTags)),
			slices.Sorted(maps.Keys(r.ResourceTags)), r.Keys)
	}
	return b.String()
}

// resourceKind keeps an ARN's resource type ("…:instance/i-0abc" → "…:instance/").
var resourceKind = regexp.MustCompile(`^(arn:[^:]*:[^:]*:[^:]*:[^:]*:[a-z-]*/?).*$`)

// writePolicySample writes one call of each shape, with the fixtures, as the unit test reads it.
func writePolicySample(path string, s policySample) error {
	seen := map[string]bool{}
	var calls []acctest.PolicyCall
	for _, c := range s.Calls {
		if k := shapeOf(c); !seen[k] {
			seen[k] = true
			calls = append(calls, c)
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Op < calls[j].Op })
	s.Calls = calls
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
