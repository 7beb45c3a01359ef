package iampolicy

import (
	"strconv"
	"strings"
)

// Decision is the outcome of evaluating one action.
type Decision int

const (
	// ImplicitDeny: no Allow matches the action (and no definite Deny does).
	ImplicitDeny Decision = iota
	// Allowed: some Allow (possibly a limited one) matches and no definite Deny does.
	Allowed
	// ExplicitDeny: a Deny without Condition, on every resource, matches the action.
	ExplicitDeny
)

// String is "implicit deny", "allowed" or "explicit deny".
func (d Decision) String() string {
	switch d {
	case Allowed:
		return "allowed"
	case ExplicitDeny:
		return "explicit deny"
	default:
		return "implicit deny"
	}
}

// StatementRef names one statement of one policy, and says whether it is limited (applies only
// under a condition or to some resources).
type StatementRef struct {
	// Source is the policy's source (Document.Source).
	Source string
	// Index is the statement's position in the policy, from 0.
	Index int
	// Sid is the statement's Sid, "" when it has none.
	Sid string
	// Conditional: the statement has a Condition.
	Conditional bool
	// SomeResources: the statement's Resource is not "*" (or it has a NotResource).
	SomeResources bool
}

// Limited reports whether the statement applies only under a condition or to some resources.
func (r StatementRef) Limited() bool { return r.Conditional || r.SomeResources }

// String is the policy's source and the statement, e.g. `inline:nodes (statement "NoENI")` or
// `arn:<partition>:iam::123456789012:policy/x (statement 2)`.
func (r StatementRef) String() string {
	src := r.Source
	if src == "" {
		src = "(unnamed policy)"
	}
	if r.Sid != "" {
		return src + " (statement " + strconv.Quote(r.Sid) + ")"
	}
	return src + " (statement " + strconv.Itoa(r.Index+1) + ")"
}

// limits says how a limited statement is limited: "under a condition", "for some resources" or
// both.
func (r StatementRef) limits() string {
	switch {
	case r.Conditional && r.SomeResources:
		return "under a condition and for some resources"
	case r.Conditional:
		return "under a condition"
	default:
		return "for some resources"
	}
}

// Evaluation is the outcome for one action, with the statements that decided it.
type Evaluation struct {
	// Action is the action evaluated, as the caller spelled it.
	Action string
	// Decision is the outcome.
	Decision Decision
	// AllowedBy are the Allow statements that match the action on every resource without a
	// condition.
	AllowedBy []StatementRef
	// LimitedAllowBy are the Allow statements that match the action only under a condition or
	// for some resources (not evaluated).
	LimitedAllowBy []StatementRef
	// DeniedBy are the Deny statements that match the action on every resource without a
	// condition: each one makes the decision ExplicitDeny.
	DeniedBy []StatementRef
	// MayDenyBy are the Deny statements that match the action only under a condition or for
	// some resources: they may deny it (not evaluated) and do not count as a definite deny.
	MayDenyBy []StatementRef
	// ConditionFailedBy are the statements that match the action but whose Condition the
	// request does not meet (EvaluateIn): they neither allow nor deny it.
	ConditionFailedBy []StatementRef
}

// NotEvaluated reports whether an allowed action is allowed only through limited statements,
// or may be denied by a limited Deny: the outcome depends on conditions or resources that are
// not evaluated.
func (e Evaluation) NotEvaluated() bool {
	return e.Decision == Allowed && (len(e.AllowedBy) == 0 || len(e.MayDenyBy) > 0)
}

// Note says why an allowed action is not evaluated, e.g. "ec2:CreateTags: granted only for some
// resources by arn:<partition>:iam::aws:policy/AmazonEKS_CNI_Policy (statement 2): not evaluated"; ""
// when NotEvaluated is false.
func (e Evaluation) Note() string {
	if !e.NotEvaluated() {
		return ""
	}
	var parts []string
	if len(e.AllowedBy) == 0 {
		for _, r := range e.LimitedAllowBy {
			parts = append(parts, "granted only "+r.limits()+" by "+r.String())
		}
	}
	for _, r := range e.MayDenyBy {
		parts = append(parts, "may be denied "+r.limits()+" by "+r.String())
	}
	return e.Action + ": " + strings.Join(parts, "; ") + ": not evaluated"
}

// Evaluate evaluates one action ("service:Action") against the policies, with IAM's logic for
// identity policies (see the package comment).
func Evaluate(policies []Policy, action string) Evaluation {
	return EvaluateIn(policies, action, nil)
}

// Context is what the caller knows of the request: condition keys (case-insensitive) and their
// values, e.g. {"aws:RequestedRegion": "eu-west-1"}.
type Context map[string]string

// EvaluateIn is Evaluate for a request the context describes: a statement's Condition whose keys
// the context holds and whose operators compare strings is decided; one decided false drops the
// statement (listed in ConditionFailedBy), one decided true counts as no condition.
func EvaluateIn(policies []Policy, action string, ctx Context) Evaluation {
	ev := Evaluation{Action: action}
	for _, p := range policies {
		for i, st := range p.Statements {
			if !st.matchesAction(action) {
				continue
			}
			ref := StatementRef{Source: p.Source, Index: i, Sid: st.Sid,
				Conditional: st.HasCondition, SomeResources: !st.allResources()}
			if holds, decided := ctx.decide(st.Conditions); decided && st.HasCondition {
				if !holds {
					ev.ConditionFailedBy = append(ev.ConditionFailedBy, ref)
					continue
				}
				ref.Conditional = false
			}
			switch {
			case st.Effect == EffectDeny && ref.Limited():
				ev.MayDenyBy = append(ev.MayDenyBy, ref)
			case st.Effect == EffectDeny:
				ev.DeniedBy = append(ev.DeniedBy, ref)
			case ref.Limited():
				ev.LimitedAllowBy = append(ev.LimitedAllowBy, ref)
			default:
				ev.AllowedBy = append(ev.AllowedBy, ref)
			}
		}
	}
	switch {
	case len(ev.DeniedBy) > 0:
		ev.Decision = ExplicitDeny
	case len(ev.AllowedBy) > 0 || len(ev.LimitedAllowBy) > 0:
		ev.Decision = Allowed
	default:
		ev.Decision = ImplicitDeny
	}
	return ev
}

// matchesAction reports whether the statement applies to the action: one of its Action patterns
// matches it, or, for NotAction, none of its patterns does.
func (st Statement) matchesAction(action string) bool {
	listed := false
	for _, p := range st.Actions {
		if MatchAction(p, action) {
			listed = true
			break
		}
	}
	return listed != st.IsNotAction
}

// allResources reports whether the statement applies to every resource: a Resource that
// includes "*" (a NotResource always excludes some).
func (st Statement) allResources() bool {
	if st.IsNotResource {
		return false
	}
	for _, r := range st.Resources {
		if r == "*" {
			return true
		}
	}
	return false
}

// MatchAction reports whether an IAM action pattern matches an action: case-insensitively, with
// '*' matching any run of characters (none included) and '?' any one character, across the
// whole "service:Action" string ("*", "ec2:*", "ec2:Describe*", "ec2:Assign?rivate*").
func MatchAction(pattern, action string) bool {
	return wildcardMatch(strings.ToLower(pattern), strings.ToLower(action))
}

// wildcardMatch is glob matching with '*' and '?' only, backtracking to the last '*'.
func wildcardMatch(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			mark++
			pi, si = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// decide evaluates a statement's conditions against the context: decided when every key is in
// the context and every operator is a string comparison (StringEquals, StringNotEquals, their
// IgnoreCase forms, StringLike, StringNotLike, each optionally IfExists); holds when all hold.
func (ctx Context) decide(conds []Condition) (holds, decided bool) {
	holds = true
	for _, c := range conds {
		v, ok := ctx.value(c.Key)
		if !ok {
			return false, false
		}
		h, known := compareString(strings.TrimSuffix(c.Operator, "IfExists"), v, c.Values)
		if !known {
			return false, false
		}
		holds = holds && h
	}
	return holds, true
}

// value is the context's value of a condition key, matched case-insensitively.
func (ctx Context) value(key string) (string, bool) {
	for k, v := range ctx {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// compareString applies a string operator: the positive ones hold when any value matches, the
// negated ones when none does; known false for any other operator.
func compareString(op, v string, values []string) (holds, known bool) {
	var match func(pattern string) bool
	negate := false
	switch op {
	case "StringNotEquals", "StringNotEqualsIgnoreCase", "StringNotLike":
		negate = true
		op = strings.Replace(op, "Not", "", 1)
	}
	switch op {
	case "StringEquals":
		match = func(p string) bool { return p == v }
	case "StringEqualsIgnoreCase":
		match = func(p string) bool { return strings.EqualFold(p, v) }
	case "StringLike":
		match = func(p string) bool { return wildcardMatch(p, v) }
	default:
		return false, false
	}
	found := false
	for _, p := range values {
		if match(p) {
			found = true
			break
		}
	}
	return found != negate, true
}
