package installation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/featuregates"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// controllerPolicy is one minor's controller policy as Karpenter's getting-started template
// publishes it (zz_generated_controller_policy.go): the revision read and its statements.
type controllerPolicy struct {
	Minor, Rev, Commit string
	Statements         []upstreamStatement
}

// upstreamStatement is one Allow statement of a KarpenterController* policy.
type upstreamStatement struct {
	Policy, Sid string
	Actions     []string
}

// controllerCalls is one release's AWS API calls as its own Go code makes them
// (zz_generated_controller_calls.go, from its module zip by cmd/gen-controller-calls): the
// version, the zip's h1: hash and the calls.
type controllerCalls struct {
	Version, Sum string
	Calls        []controllerCall
}

// controllerCall is one IAM action a release's code calls, the feature gate it calls it only
// under ("" none) and the file (inside the module) that calls it.
type controllerCall struct {
	Action, Gate, File string
}

// callsOf are the calls of minor's release; nil when the table has none.
func callsOf(minor string) *controllerCalls {
	for i, t := range controllerCallTables {
		if strings.TrimPrefix(manifest.MinorOf(t.Version), "v") == minor {
			return &controllerCallTables[i]
		}
	}
	return nil
}

// interruptionPolicy is the upstream policy that grants the interruption queue's actions: needed
// only by a controller with INTERRUPTION_QUEUE.
const interruptionPolicy = "KarpenterControllerInterruptionPolicy"

// ControllerNeed is one action Karpenter's controller needs, with the upstream statement that
// grants it, or, for an action no published policy grants, the release whose code calls it.
type ControllerNeed struct {
	Action, Policy, Sid string
	// Code is the release whose code calls the action ("1.15.2"), set when the policy used does not
	// grant it; File is the file that calls it, Gate the feature gate it is called only under ("" none).
	Code, File, Gate string
}

// source says where the need comes from, for a finding of minor's controller.
func (n ControllerNeed) source(minor string) string {
	if n.Code == "" {
		return "upstream " + n.Policy + "/" + n.Sid
	}
	s := "Karpenter " + minor + "'s code"
	if n.Gate != "" {
		s += ", under the " + n.Gate + " gate"
	}
	return s + ", calls it in " + n.File + " of v" + n.Code
}

// ControllerNeeds are the actions Karpenter minor's controller needs with its feature gates at
// their defaults (ControllerNeedsWith).
func ControllerNeeds(minor string, queue bool) (needs []ControllerNeed, from controllerPolicy) {
	return ControllerNeedsWith(minor, queue, nil)
}

// ControllerNeedsWith are the actions Karpenter minor's controller needs (the interruption
// queue's only with queue), from the policy of the newest release at or below minor that the
// table has. from is the minor whose policy was read ("" when none is at or below minor): a
// different minor when minor's own was not published at a revision the generator could read.
// Then the actions minor's own code calls (controllerCallTables) that this policy lacks are
// needed too; one the code calls only under a feature gate only when gates (by name; a gate not
// there has minor's default) turn it on. SQS actions, which only the interruption policy grants,
// only with queue.
func ControllerNeedsWith(minor string, queue bool, gates map[string]bool) (needs []ControllerNeed, from controllerPolicy) {
	for _, p := range controllerPolicies {
		if manifest.AtLeast(minor, p.Minor) {
			from = p
		}
	}
	seen := map[string]bool{}
	for _, st := range from.Statements {
		if st.Policy == interruptionPolicy && !queue {
			continue
		}
		for _, a := range st.Actions {
			if !seen[strings.ToLower(a)] {
				seen[strings.ToLower(a)] = true
				needs = append(needs, ControllerNeed{Action: a, Policy: st.Policy, Sid: st.Sid})
			}
		}
	}
	calls := callsOf(minor)
	if from.Minor == minor || len(needs) == 0 || calls == nil {
		return needs, from
	}
	on := func(gate string) bool {
		if v, ok := gates[gate]; ok {
			return v
		}
		return featuregates.Default(minor, gate)
	}
	byAction := map[string]int{} // index in needs of an action added from the code
	for _, c := range calls.Calls {
		key := strings.ToLower(c.Action)
		i, added := byAction[key]
		switch {
		case added && needs[i].Gate != "" && c.Gate == "":
			needs[i].Gate, needs[i].File = "", c.File // also called ungated
		case seen[key] || (c.Gate != "" && !on(c.Gate)):
		case strings.HasPrefix(key, "sqs:") && !queue:
		default:
			seen[key] = true
			byAction[key] = len(needs)
			needs = append(needs, ControllerNeed{Action: c.Action, Code: calls.Version, File: c.File, Gate: c.Gate})
		}
	}
	return needs, from
}

// ControllerRole is the IAM role the controller runs as, and how the cluster names it.
type ControllerRole struct {
	ARN string
	// Via says where the role was found: "the eks.amazonaws.com/role-arn annotation of service
	// account kube-system/karpenter" or "EKS Pod Identity association a-123".
	Via string
}

// CheckControllerRole evaluates the controller role's policies (iampolicy) against what the
// running release needs (ControllerNeeds): the actions not allowed are one warning on
// karpenter_controller naming each with the upstream statement that grants it; actions allowed
// only under conditions or for some resources are said as not evaluated.
//
// Conditions are decided where the request is known: aws:RequestedRegion is region (the
// cluster's), and iam:PassedToService is EC2 for iam:PassRole; an Allow whose condition does
// not hold there is said with the missing action.
func CheckControllerRole(c Controller, minor, region string, role ControllerRole, docs []iampolicy.Document) []attrpath.Finding {
	needs, from := ControllerNeedsWith(minor, c.InterruptionQueue != "", c.Gates)
	if len(needs) == 0 {
		return []attrpath.Finding{{Path: pathController, Summary: "Controller permissions not checked",
			Message: fmt.Sprintf("the provider has no controller policy for Karpenter %s", minor)}}
	}
	var policies []iampolicy.Policy
	var unreadable []string
	for _, d := range docs {
		p, err := iampolicy.Parse(d)
		if err != nil {
			unreadable = append(unreadable, d.Source)
			continue
		}
		policies = append(policies, p)
	}
	var missing []string
	fromCode := ""
	notEvaluated := 0
	for _, n := range needs {
		ctx := iampolicy.Context{}
		if region != "" {
			ctx["aws:RequestedRegion"] = region
		}
		if strings.EqualFold(n.Action, "iam:PassRole") {
			ctx["iam:PassedToService"] = "ec2.amazonaws.com"
		}
		switch ev := iampolicy.EvaluateIn(policies, n.Action, ctx); {
		case ev.Decision != iampolicy.Allowed:
			missing = append(missing, fmt.Sprintf("%s (%s%s; %s)", n.Action, ev.Decision, failedConditions(ev, region), n.source(minor)))
			fromCode = cmp.Or(fromCode, n.Code)
		case ev.NotEvaluated():
			notEvaluated++
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return []attrpath.Finding{{Path: pathController, Summary: "Controller role lacks permissions",
		Message: roleMessage(c, minor, role, from, fromCode, len(needs), missing, notEvaluated, unreadable)}}
}

// failedConditions names the Allow statements whose condition does not hold in the request.
func failedConditions(ev iampolicy.Evaluation, region string) string {
	if len(ev.ConditionFailedBy) == 0 {
		return ""
	}
	refs := make([]string, len(ev.ConditionFailedBy))
	for i, r := range ev.ConditionFailedBy {
		refs[i] = r.String()
	}
	return fmt.Sprintf(": the condition of %s does not hold for a request in %s", strings.Join(refs, ", "), region)
}

// roleMessage says which actions the role lacks and what was and was not evaluated. fromCode is
// the release whose code calls a missing action no published policy grants ("" none).
func roleMessage(c Controller, minor string, role ControllerRole, from controllerPolicy, fromCode string, total int, missing []string,
	notEvaluated int, unreadable []string) string {
	release := "Karpenter " + minor
	if from.Minor != minor {
		release += " (whose policy is not published at a revision the provider read; " + from.Minor + "'s is used)"
	}
	msg := fmt.Sprintf("Karpenter's controller (deployment %s/%s) runs as IAM role %s, found through %s. The role's policies do not allow "+
		"%d of the %d actions %s needs: %s. Until they do, Karpenter fails the calls that need them (a node class that cannot launch "+
		"reports a failed dry run on its status). Grant them as Karpenter's getting-started CloudFormation template for %s does "+
		"(website/content/en/v%s at %s)", c.Namespace, c.Name, role.ARN, role.Via, len(missing), total, release,
		strings.Join(missing, "; "), from.Minor, from.Minor, from.Rev)
	if fromCode != "" {
		msg += fmt.Sprintf(", and grant beside it the actions Karpenter %s's code calls (read from the Go code of its v%s module zip), "+
			"which no published policy grants", minor, fromCode)
	}
	if notEvaluated > 0 {
		msg += fmt.Sprintf(". %d more actions are allowed only under conditions or for some resources, which the plan does not evaluate", notEvaluated)
	}
	if len(unreadable) > 0 {
		msg += fmt.Sprintf(". Policies not read (not valid JSON): %s", strings.Join(unreadable, ", "))
	}
	return msg
}

// NewControllerActions are the actions minor to's controller needs that minor from's does not
// (the interruption queue's included), sorted: what an upgrade adds to the controller's role.
func NewControllerActions(from, to string) []string {
	before, _ := ControllerNeeds(from, true)
	after, _ := ControllerNeeds(to, true)
	had := map[string]bool{}
	for _, n := range before {
		had[strings.ToLower(n.Action)] = true
	}
	var out []string
	for _, n := range after {
		if !had[strings.ToLower(n.Action)] {
			out = append(out, n.Action)
		}
	}
	slices.Sort(out)
	return out
}
