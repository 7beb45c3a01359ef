// Package iampolicy decides whether an EKS node's IAM role lets the node do its job: assign pod
// IPs (when the VPC CNI runs with the node's credentials), register with the cluster, and pull
// images from ECR. It is the rule half of the plan-time node-role readiness check and is pure
// rule evaluation (no Terraform, no AWS SDK): the caller reads the role's policy documents
// (attached managed policies and inline policies), hands them over as JSON text with their
// source names, and decides what a failed check means.
//
// The evaluation follows IAM's logic for identity policies, for one action at a time: an
// explicit Deny wins; otherwise the action is allowed when some Allow matches; otherwise it is
// implicitly denied. Actions are matched case-insensitively with the * and ? wildcards on the
// whole "service:Action" string, and NotAction matches every action it does not list.
//
// Evaluate and EvaluateIn do not evaluate resources, and conditions only as far as the caller knows the request
// (EvaluateIn's Context: e.g. aws:RequestedRegion) and the operator is a string comparison. A
// statement with a Condition that cannot be decided, or with a Resource other than "*" (or any
// NotResource), is "limited": a limited Allow still counts as allowed but is reported as not
// evaluated, and a limited Deny is reported as "may deny" and never counts as a definite deny. A
// statement whose Condition is decided false does not apply. Permission boundaries, SCPs and
// session policies are not considered. Authorize decides one whole request instead: its resource
// ARN and its condition keys (request and resource tags, aws:TagKeys, ec2:CreateAction,
// iam:PassedToService) against every statement.
package iampolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Document is one policy document of the role, as IAM returns it.
type Document struct {
	// Source names the policy in messages: the managed policy's ARN (or name), or
	// "inline:<name>" for an inline policy.
	Source string
	// JSON is the policy document: JSON text, or the URL-encoded JSON that
	// GetPolicyVersion and GetRolePolicy return (decoded here).
	JSON string
}

// Effect is a statement's effect.
type Effect string

// The two effects a statement can have.
const (
	EffectAllow Effect = "Allow"
	EffectDeny  Effect = "Deny"
)

// Policy is a parsed policy document.
type Policy struct {
	// Source is the Document's Source.
	Source string
	// Version is the policy language version ("2012-10-17"), "" when the document has none.
	Version string
	// Statements are the statements, in document order (one when Statement is an object).
	Statements []Statement
}

// Statement is one statement of a policy. Exactly one of Actions and NotActions is used (see
// IsNotAction); likewise for Resources and NotResources (see IsNotResource).
type Statement struct {
	// Sid is the statement's Sid, "" when it has none.
	Sid string
	// Effect is EffectAllow or EffectDeny.
	Effect Effect
	// Actions are the Action patterns; with IsNotAction, the NotAction patterns.
	Actions     []string
	IsNotAction bool
	// Resources are the Resource patterns; with IsNotResource, the NotResource patterns.
	Resources     []string
	IsNotResource bool
	// HasCondition reports that the statement has a (non-empty) Condition block.
	HasCondition bool
	// Conditions are the block's tests, one per operator and key (every one must hold).
	Conditions []Condition
}

// Condition is one test of a Condition block: an operator ("StringEquals", "ForAnyValue:StringLike",
// "ArnLikeIfExists"), a condition key and its values (any of which may match).
type Condition struct {
	Operator, Key string
	Values        []string
}

// ParseError is a document that could not be parsed; it names the document's source.
type ParseError struct {
	// Source is the Document's Source.
	Source string
	// Err says what is wrong.
	Err error
}

// Error names the source and what is wrong, e.g. "policy inline:nodes: statement 2: no Effect".
func (e *ParseError) Error() string {
	src := e.Source
	if src == "" {
		src = "(unnamed)"
	}
	return "policy " + src + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Parse parses a policy document. The text may be JSON or URL-encoded JSON (anything that does
// not start with '{' is URL-decoded first). A malformed document is a *ParseError.
func Parse(doc Document) (Policy, error) {
	p, err := parse(doc)
	if err != nil {
		return Policy{}, &ParseError{Source: doc.Source, Err: err}
	}
	return p, nil
}

func parse(doc Document) (Policy, error) {
	text, err := decodeText(doc.JSON)
	if err != nil {
		return Policy{}, err
	}
	var raw struct {
		Version   *string
		Statement json.RawMessage
	}
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return Policy{}, fmt.Errorf("invalid JSON: %w", err)
	}
	p := Policy{Source: doc.Source}
	if raw.Version != nil {
		p.Version = *raw.Version
	}
	if isAbsent(raw.Statement) {
		return Policy{}, errors.New("no Statement")
	}
	var rawStatements []json.RawMessage
	if firstByte(raw.Statement) == '[' {
		if err := json.Unmarshal(raw.Statement, &rawStatements); err != nil {
			return Policy{}, fmt.Errorf("Statement: %w", err)
		}
	} else {
		rawStatements = []json.RawMessage{raw.Statement}
	}
	for i, rs := range rawStatements {
		st, err := parseStatement(rs)
		if err != nil {
			return Policy{}, fmt.Errorf("statement %d: %w", i+1, err)
		}
		p.Statements = append(p.Statements, st)
	}
	return p, nil
}

// decodeText returns the JSON text of a document, URL-decoding it unless it already is JSON.
func decodeText(s string) (string, error) {
	t := strings.TrimSpace(strings.TrimPrefix(s, "\ufeff"))
	if t == "" {
		return "", errors.New("empty document")
	}
	if t[0] == '{' {
		return t, nil
	}
	u, err := url.QueryUnescape(t)
	if err != nil {
		return "", fmt.Errorf("neither JSON nor URL-encoded JSON: %w", err)
	}
	return strings.TrimSpace(u), nil
}

func parseStatement(data json.RawMessage) (Statement, error) {
	if firstByte(data) != '{' {
		return Statement{}, errors.New("not an object")
	}
	var raw struct {
		Sid         string
		Effect      string
		Action      json.RawMessage
		NotAction   json.RawMessage
		Resource    json.RawMessage
		NotResource json.RawMessage
		Condition   json.RawMessage
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Statement{}, err
	}
	st := Statement{Sid: raw.Sid}
	switch {
	case strings.EqualFold(raw.Effect, string(EffectAllow)):
		st.Effect = EffectAllow
	case strings.EqualFold(raw.Effect, string(EffectDeny)):
		st.Effect = EffectDeny
	case raw.Effect == "":
		return Statement{}, errors.New("no Effect")
	default:
		return Statement{}, fmt.Errorf("Effect %q is neither Allow nor Deny", raw.Effect)
	}

	var err error
	switch hasA, hasN := !isAbsent(raw.Action), !isAbsent(raw.NotAction); {
	case hasA && hasN:
		return Statement{}, errors.New("both Action and NotAction")
	case hasA:
		st.Actions, err = stringList("Action", raw.Action)
	case hasN:
		st.IsNotAction = true
		st.Actions, err = stringList("NotAction", raw.NotAction)
	default:
		return Statement{}, errors.New("neither Action nor NotAction")
	}
	if err != nil {
		return Statement{}, err
	}

	switch hasR, hasN := !isAbsent(raw.Resource), !isAbsent(raw.NotResource); {
	case hasR && hasN:
		return Statement{}, errors.New("both Resource and NotResource")
	case hasR:
		st.Resources, err = stringList("Resource", raw.Resource)
	case hasN:
		st.IsNotResource = true
		st.Resources, err = stringList("NotResource", raw.NotResource)
	default:
		// IAM requires one of them in an identity policy.
		return Statement{}, errors.New("neither Resource nor NotResource")
	}
	if err != nil {
		return Statement{}, err
	}

	if !isAbsent(raw.Condition) {
		var cond map[string]json.RawMessage
		if err := json.Unmarshal(raw.Condition, &cond); err != nil || firstByte(raw.Condition) != '{' {
			return Statement{}, errors.New("the Condition element is not an object")
		}
		st.HasCondition = len(cond) > 0
		if st.Conditions, err = parseConditions(cond); err != nil {
			return Statement{}, err
		}
	}
	return st, nil
}

// parseConditions reads a Condition block: operator → key → a value or a list of values (strings,
// numbers and booleans, kept as their JSON text), in a stable order.
func parseConditions(block map[string]json.RawMessage) ([]Condition, error) {
	var out []Condition
	for _, op := range slices.Sorted(maps.Keys(block)) {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(block[op], &keys); err != nil || firstByte(block[op]) != '{' {
			return nil, fmt.Errorf("Condition operator %s is not an object", op)
		}
		for _, key := range slices.Sorted(maps.Keys(keys)) {
			var vals []any
			if firstByte(keys[key]) != '[' {
				vals = []any{nil}
				if err := json.Unmarshal(keys[key], &vals[0]); err != nil {
					return nil, fmt.Errorf("Condition %s %s: %w", op, key, err)
				}
			} else if err := json.Unmarshal(keys[key], &vals); err != nil {
				return nil, fmt.Errorf("Condition %s %s: %w", op, key, err)
			}
			c := Condition{Operator: op, Key: key}
			for _, v := range vals {
				c.Values = append(c.Values, fmt.Sprint(v))
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// stringList decodes an element that is a string or an array of strings.
func stringList(name string, data json.RawMessage) ([]string, error) {
	switch firstByte(data) {
	case '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return []string{s}, nil
	case '[':
		var l []string
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("%s must be a string or an array of strings", name)
		}
		return l, nil
	}
	return nil, fmt.Errorf("%s must be a string or an array of strings", name)
}

// isAbsent reports whether an element is missing or null.
func isAbsent(data json.RawMessage) bool {
	t := strings.TrimSpace(string(data))
	return t == "" || t == "null"
}

func firstByte(data json.RawMessage) byte {
	t := strings.TrimSpace(string(data))
	if t == "" {
		return 0
	}
	return t[0]
}
