package iampolicy

import (
	"strings"
)

// Request is one call as IAM authorizes it: the action, one resource ARN it touches ("*" for an
// action without resource-level permissions) and the request's condition keys with their values
// (aws:RequestTag/<key>, aws:ResourceTag/<key>, aws:TagKeys, ec2:CreateAction,
// iam:PassedToService, ...). A key the request does not have is absent from Keys.
type Request struct {
	Action   string
	Resource string
	Keys     map[string][]string
}

// Authorization is the decision on a Request and the statements that made it.
type Authorization struct {
	Decision Decision
	// AllowedBy are the Allow statements whose action, resource and conditions all match.
	AllowedBy []StatementRef
	// DeniedBy are the Deny statements whose action, resource and conditions all match.
	DeniedBy []StatementRef
}

// Authorize decides a request with IAM's logic for identity policies, resources and conditions
// included: a matching Deny wins, else a matching Allow allows, else the request is implicitly
// denied. Resources match with the * and ? wildcards (case-sensitively, as ARNs do). Conditions
// are decided from the request's keys: the string operators (StringEquals, StringNotEquals,
// StringLike, StringNotLike and their IgnoreCase forms), the ARN operators (ArnEquals, ArnLike,
// ArnNotEquals, ArnNotLike), Null, each with IfExists and with the ForAllValues: / ForAnyValue:
// set qualifiers for multi-valued keys (aws:TagKeys). An operator it does not know never holds,
// so a statement it cannot decide does not allow (and does not deny).
func Authorize(policies []Policy, req Request) Authorization {
	var out Authorization
	for _, p := range policies {
		for i, st := range p.Statements {
			if !st.matchesAction(req.Action) || !st.matchesResource(req.Resource) || !conditionsHold(st.Conditions, req.Keys) {
				continue
			}
			ref := StatementRef{Source: p.Source, Index: i, Sid: st.Sid, Conditional: st.HasCondition, SomeResources: !st.allResources()}
			if st.Effect == EffectDeny {
				out.DeniedBy = append(out.DeniedBy, ref)
			} else {
				out.AllowedBy = append(out.AllowedBy, ref)
			}
		}
	}
	switch {
	case len(out.DeniedBy) > 0:
		out.Decision = ExplicitDeny
	case len(out.AllowedBy) > 0:
		out.Decision = Allowed
	default:
		out.Decision = ImplicitDeny
	}
	return out
}

// matchesResource reports whether the statement applies to the resource: one of its Resource
// patterns matches it, or, for NotResource, none does.
func (st Statement) matchesResource(resource string) bool {
	listed := false
	for _, p := range st.Resources {
		if wildcardMatch(p, resource) {
			listed = true
			break
		}
	}
	return listed != st.IsNotResource
}

// conditionsHold reports whether every test of a Condition block holds for the request's keys.
func conditionsHold(conds []Condition, keys map[string][]string) bool {
	for _, c := range conds {
		if !conditionHolds(c, keys) {
			return false
		}
	}
	return true
}

func keyValues(keys map[string][]string, key string) ([]string, bool) {
	for k, v := range keys {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

func conditionHolds(c Condition, keys map[string][]string) bool {
	op := c.Operator
	set := ""
	for _, q := range []string{"ForAllValues:", "ForAnyValue:"} {
		if rest, ok := strings.CutPrefix(op, q); ok {
			set, op = q, rest
		}
	}
	vals, present := keyValues(keys, c.Key)
	if op == "Null" {
		// Null true: the key is absent; false: it is present.
		want := len(c.Values) > 0 && strings.EqualFold(c.Values[0], "true")
		return (!present) == want
	}
	ifExists := strings.HasSuffix(op, "IfExists")
	op = strings.TrimSuffix(op, "IfExists")
	if !present {
		// ForAllValues holds on an empty set, IfExists on a missing key, and so does a negated
		// operator (a missing value equals nothing).
		return ifExists || set == "ForAllValues:" || strings.Contains(op, "Not")
	}
	match := func(v string) (bool, bool) { return compareValue(op, v, c.Values) }
	switch set {
	case "ForAllValues:":
		for _, v := range vals {
			if h, known := match(v); !known || !h {
				return false
			}
		}
		return true
	case "ForAnyValue:":
		for _, v := range vals {
			if h, known := match(v); known && h {
				return true
			}
		}
		return false
	default:
		// A single-valued key: its one value (a multi-valued key without a qualifier must match
		// with every value).
		if len(vals) == 0 {
			return false
		}
		for _, v := range vals {
			if h, known := match(v); !known || !h {
				return false
			}
		}
		return true
	}
}

// compareValue is compareString with the ARN operators, which compare as StringLike does.
func compareValue(op, v string, values []string) (holds, known bool) {
	switch op {
	case "ArnEquals", "ArnLike":
		op = "StringLike"
	case "ArnNotEquals", "ArnNotLike":
		op = "StringNotLike"
	}
	return compareString(op, v, values)
}
