package iampolicy

import (
	"sort"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// maxListed is how many actions a message names before "and N more".
const maxListed = 8

// Options configure Check.
type Options struct {
	// Path is where the findings are placed, e.g. attrpath.Of("role").
	Path attrpath.Path
	// CNIHasOwnRole: the VPC CNI (aws-node) runs with its own role, through IRSA or EKS Pod
	// Identity, so the node role need not assign pod IPs (that need is skipped).
	CNIHasOwnRole bool
	// IPv6: the cluster is IPv6, so the VPC CNI also needs ec2:AssignIpv6Addresses.
	IPv6 bool
	// Partition is the AWS partition of the managed policy ARNs named in messages ("aws",
	// "aws-cn", "aws-us-gov"); "" is "aws".
	Partition string
}

// Report is the outcome of Check.
type Report struct {
	// Needs are every need, in a fixed order (assign pod IPs, register with the cluster, pull
	// images), skipped ones included.
	Needs []NeedResult
	// Findings are warnings, one per need that is not met, at Options.Path.
	Findings []attrpath.Finding
	// Errors are the documents that could not be parsed (each a *ParseError naming its source);
	// they are left out of the evaluation, so an action they would allow or deny is not counted.
	Errors []error
}

// Met reports whether every need that applies is met.
func (r Report) Met() bool {
	for _, n := range r.Needs {
		if !n.Skipped && !n.Met {
			return false
		}
	}
	return true
}

// NeedResult is the outcome for one need.
type NeedResult struct {
	// Need is the need evaluated.
	Need Need
	// Skipped: the need does not apply (assign pod IPs when the VPC CNI has its own role); then
	// Met is true and there are no evaluations.
	Skipped bool
	// Met: every action of the need is allowed (possibly not evaluated).
	Met bool
	// Missing are the actions denied, implicitly or explicitly, sorted by action.
	Missing []Evaluation
	// NotEvaluated are the allowed actions whose outcome depends on conditions or resources
	// that are not evaluated (Evaluation.NotEvaluated), sorted by action.
	NotEvaluated []Evaluation
	// Evaluations are every action of the need, in Need.Actions order.
	Evaluations []Evaluation
}

// Need statuses, as NeedResult.Status returns them.
const (
	StatusMet     = "met"
	StatusNotMet  = "not met"
	StatusSkipped = "skipped"
)

// Status is StatusMet, StatusNotMet or StatusSkipped.
func (r NeedResult) Status() string {
	switch {
	case r.Skipped:
		return StatusSkipped
	case r.Met:
		return StatusMet
	default:
		return StatusNotMet
	}
}

// MissingActions are the names of the Missing actions, sorted.
func (r NeedResult) MissingActions() []string { return actionNames(r.Missing) }

// Notes are the notes (Evaluation.Note) of the NotEvaluated actions, e.g. "ec2:CreateTags:
// granted only for some resources by ...: not evaluated", for a report attribute.
func (r NeedResult) Notes() []string {
	var out []string
	for _, e := range r.NotEvaluated {
		out = append(out, e.Note())
	}
	return out
}

// Check evaluates every need of the node role against the role's policy documents. Malformed
// documents are reported in Report.Errors and left out; every need that is not met gets a
// warning finding at opts.Path naming the missing actions, the managed policy that grants them,
// any explicit Deny that blocks them, and what the node then does.
func Check(docs []Document, opts Options) Report {
	var rep Report
	var policies []Policy
	var unreadable []string
	for _, d := range docs {
		p, err := Parse(d)
		if err != nil {
			rep.Errors = append(rep.Errors, err)
			unreadable = append(unreadable, sourceName(d.Source))
			continue
		}
		policies = append(policies, p)
	}

	if opts.CNIHasOwnRole {
		rep.Needs = append(rep.Needs, NeedResult{Need: cniNeed(opts.IPv6), Skipped: true, Met: true})
	}
	for _, need := range Needs(opts) {
		r := NeedResult{Need: need}
		for _, a := range need.Actions {
			ev := Evaluate(policies, a)
			r.Evaluations = append(r.Evaluations, ev)
			switch {
			case ev.Decision != Allowed:
				r.Missing = append(r.Missing, ev)
			case ev.NotEvaluated():
				r.NotEvaluated = append(r.NotEvaluated, ev)
			}
		}
		sortByAction(r.Missing)
		sortByAction(r.NotEvaluated)
		r.Met = len(r.Missing) == 0
		rep.Needs = append(rep.Needs, r)
		if !r.Met {
			rep.Findings = append(rep.Findings, attrpath.Finding{
				Path:    opts.Path,
				Summary: "Node role cannot " + need.Name,
				Message: message(r, opts, unreadable),
			})
		}
	}
	return rep
}

// message explains a need that is not met.
func message(r NeedResult, opts Options, unreadable []string) string {
	var b strings.Builder
	missing := r.MissingActions()
	b.WriteString("The node role is missing " + count(len(missing), "action") + ": " + listed(missing) + ".")

	// Explicit denies, by statement.
	denied := map[string][]string{}
	var implicit []string
	for _, e := range r.Missing {
		if e.Decision != ExplicitDeny {
			implicit = append(implicit, e.Action)
			continue
		}
		for _, ref := range e.DeniedBy {
			denied[ref.String()] = append(denied[ref.String()], e.Action)
		}
	}
	if len(denied) > 0 {
		refs := make([]string, 0, len(denied))
		for ref := range denied {
			refs = append(refs, ref)
		}
		sort.Strings(refs)
		for _, ref := range refs {
			b.WriteString(" " + listed(denied[ref]) + " " + isAre(len(denied[ref])) + " explicitly denied by " + ref + ".")
		}
		b.WriteString(" An explicit Deny overrides every Allow: remove or narrow it.")
	}

	// Advice for the implicitly denied ones.
	var fromManaged, notInManaged []string
	for _, a := range implicit {
		if contains(r.Need.NotInManagedPolicies, a) {
			notInManaged = append(notInManaged, a)
		} else {
			fromManaged = append(fromManaged, a)
		}
	}
	if len(fromManaged) > 0 && len(r.Need.ManagedPolicies) > 0 {
		arns := make([]string, len(r.Need.ManagedPolicies))
		for i, name := range r.Need.ManagedPolicies {
			arns[i] = ManagedPolicyARN(opts.Partition, name)
		}
		b.WriteString(" Attach " + strings.Join(arns, " or ") + ", or grant " + theseActions(len(fromManaged)) + " inline.")
	} else if len(fromManaged) > 0 {
		b.WriteString(" Grant " + theseActions(len(fromManaged)) + " inline.")
	}
	if len(notInManaged) > 0 {
		b.WriteString(" " + listed(notInManaged) + " " + isAre(len(notInManaged)) +
			" in no AWS managed policy for nodes: grant " + itThem(len(notInManaged)) + " inline or in a customer managed policy.")
	}
	if r.Need.ID == NeedAssignPodIPs {
		b.WriteString(" (The node role needs none of this when the VPC CNI has its own role, through IRSA or EKS Pod Identity.)")
	}

	b.WriteString(" Without " + itThem(len(missing)) + ", " + r.Need.Consequence + ".")

	if notes := r.Notes(); len(notes) > 0 {
		b.WriteString(" Also " + strings.Join(notes, "; ") + ".")
	}
	if len(unreadable) > 0 {
		b.WriteString(" Not counted, because " + policiesPhrase(len(unreadable)) + " could not be parsed: " + strings.Join(unreadable, ", ") + ".")
	}
	return b.String()
}

// listed joins names, naming at most maxListed of them: "a, b, c" or "a, ..., h and 4 more".
func listed(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxListed], ", ") + " and " + strconv.Itoa(len(names)-maxListed) + " more"
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func policiesPhrase(n int) string {
	if n == 1 {
		return "this policy"
	}
	return "these policies"
}

func theseActions(n int) string {
	if n == 1 {
		return "this action"
	}
	return "these actions"
}

func sourceName(s string) string {
	if s == "" {
		return "(unnamed policy)"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func actionNames(evs []Evaluation) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Action
	}
	sort.Strings(out)
	return out
}

func sortByAction(evs []Evaluation) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Action < evs[j].Action })
}
