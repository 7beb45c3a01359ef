package requirements

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Limits enforced by the NodePool CRD.
const (
	// MaxRequirements is the CRD's maxItems for spec.template.spec.requirements. Validate does
	// not check the list length (a finding always points at one item); enforce it on the
	// list attribute itself.
	MaxRequirements = 100
	MaxKeyLength    = 316
	MaxNameLength   = 63  // the name part of a qualified key
	MaxPrefixLength = 253 // the DNS-subdomain prefix of a qualified key
	MaxValueLength  = 63
	MinMinValues    = 1
	MaxMinValues    = 50
)

// Field names of a requirement in findings' paths; they match the Terraform attribute names.
const (
	FieldKey       = "key"
	FieldOperator  = "operator"
	FieldValues    = "values"
	FieldMinValues = "min_values"
)

var (
	nameRE       = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	labelValueRE = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
)

// Validate checks every requirement and returns all problems found, ordered by index and
// then by field (key, operator, values, min_values), with paths relative to the list
// ([2].values). A nil result means the list is valid.
//
// The checks mirror the NodePool CRD: key length and qualified-name shape; the restricted
// label domains (karpenter.sh except karpenter.sh/capacity-type, karpenter.sh/nodepool,
// kubernetes.io/hostname, and karpenter.k8s.aws except its well-known keys); the operator
// enum; In needs values; Gt/Lt/Gte/Lte need exactly one integer value >= 0; value length
// and shape; min_values in 1..50 and, with In, no larger than the number of values.
// On top of the CRD it rejects values on Exists/DoesNotExist and unknown capacity types
// for karpenter.sh/capacity-type with In/NotIn.
func Validate(reqs []Requirement) []attrpath.Finding {
	var errs []attrpath.Finding
	for i := range reqs {
		errs = validateOne(errs, i, &reqs[i])
	}
	return errs
}

func validateOne(errs []attrpath.Finding, i int, r *Requirement) []attrpath.Finding {
	add := func(field, format string, args ...any) {
		errs = append(errs, attrpath.Finding{Path: attrpath.Path{}.Index(i).Attr(field), Message: fmt.Sprintf(format, args...)})
	}

	// key
	for _, msg := range keyProblems(r.Key) {
		add(FieldKey, "%s", msg)
	}

	// operator
	opValid := r.Operator.Valid()
	if !opValid {
		msg := fmt.Sprintf("unknown operator %q; valid operators are %s", string(r.Operator), operatorList())
		for _, op := range operators {
			if strings.EqualFold(string(op), string(r.Operator)) {
				msg += fmt.Sprintf(" (did you mean %q?)", string(op))
				break
			}
		}
		add(FieldOperator, "%s", msg)
	}

	// values: shape of each value
	for j, v := range r.Values {
		if len(v) > MaxValueLength {
			add(FieldValues, "value %d (%s) is %d characters long; a label value may have at most %d",
				j, quoteShort(v), len(v), MaxValueLength)
		} else if !labelValueRE.MatchString(v) {
			add(FieldValues, "value %d (%q) is not a valid label value: it must be empty or consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric",
				j, v)
		}
	}
	// values: per operator
	if opValid {
		switch {
		case r.Operator == OpIn && len(r.Values) == 0:
			add(FieldValues, "operator In requires at least one value")
		case r.Operator == OpExists || r.Operator == OpDoesNotExist:
			if len(r.Values) > 0 {
				add(FieldValues, "operator %s takes no values, got %d (%s)", r.Operator, len(r.Values), quoteList(r.Values))
			}
		case r.Operator.numeric():
			if len(r.Values) != 1 {
				add(FieldValues, "operator %s requires exactly one value, got %d", r.Operator, len(r.Values))
			} else if n, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil || n < 0 {
				add(FieldValues, "operator %s requires a single integer value >= 0, got %s", r.Operator, quoteShort(r.Values[0]))
			}
		}
		if r.Key == LabelCapacityType && (r.Operator == OpIn || r.Operator == OpNotIn) {
			for _, v := range r.Values {
				if slices.Contains(capacityTypes, v) {
					continue
				}
				msg := fmt.Sprintf("invalid capacity type %s for key %s; valid values are %s",
					quoteShort(v), LabelCapacityType, strings.Join(capacityTypes, ", "))
				if s := suggest(v, capacityTypes, 3); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				add(FieldValues, "%s", msg)
			}
		}
	}

	// min_values
	if r.MinValues != nil {
		mv := *r.MinValues
		if mv < MinMinValues || mv > MaxMinValues {
			add(FieldMinValues, "min_values must be between %d and %d, got %d", MinMinValues, MaxMinValues, mv)
		}
		if r.Operator == OpIn && len(r.Values) < mv {
			add(FieldMinValues, "min_values is %d but operator In lists only %d value(s); list at least %d values or lower min_values",
				mv, len(r.Values), mv)
		}
	}
	return errs
}

// keyProblems returns human-readable problems with a requirement key.
func keyProblems(key string) []string {
	if key == "" {
		return []string{"key must not be empty"}
	}
	var out []string
	if len(key) > MaxKeyLength {
		out = append(out, fmt.Sprintf("key %s is %d characters long; the maximum is %d", quoteShort(key), len(key), MaxKeyLength))
	}
	if msg := qualifiedNameProblem(key); msg != "" {
		out = append(out, fmt.Sprintf("key %s is not a qualified label name: %s", quoteShort(key), msg))
	}
	out = append(out, restrictedProblems(key)...)
	return out
}

// qualifiedNameProblem checks the Kubernetes qualified-name shape: an optional DNS-subdomain
// prefix and "/", then a name of at most 63 characters. It returns "" when the key is fine.
func qualifiedNameProblem(key string) string {
	name := key
	if prefix, rest, found := strings.Cut(key, "/"); found {
		if strings.Contains(rest, "/") {
			return "it may contain at most one '/'"
		}
		switch {
		case prefix == "":
			return "the prefix before '/' must not be empty"
		case len(prefix) > MaxPrefixLength:
			return fmt.Sprintf("the prefix is %d characters long; the maximum is %d", len(prefix), MaxPrefixLength)
		case len(validation.IsDNS1123Subdomain(prefix)) > 0:
			return fmt.Sprintf("the prefix %s must be a lowercase DNS subdomain (lowercase alphanumerics, '-' and '.', each part starting and ending with an alphanumeric)", quoteShort(prefix))
		}
		name = rest
	}
	switch {
	case name == "":
		return "the name after '/' must not be empty"
	case len(name) > MaxNameLength:
		return fmt.Sprintf("the name part is %d characters long; the maximum is %d", len(name), MaxNameLength)
	case !nameRE.MatchString(name):
		return fmt.Sprintf("the name %s must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric", quoteShort(name))
	}
	return ""
}

// restrictedProblems mirrors the CRD's CEL rules on restricted label keys. Like the CEL
// (self.find("^([^/]+)").endsWith(...)), the domain is the text before the first '/' and is
// compared by suffix.
// nodePoolRestricted is why a NodePool requirement cannot name karpenter.sh/nodepool (an overlay's can).
var nodePoolRestricted = fmt.Sprintf("label %q is restricted: Karpenter sets it on every node it launches", LabelNodePool)

// ValidateOverlay is Validate for a NodeOverlay's requirements, which may select pools by
// karpenter.sh/nodepool (the NodeOverlay CRD allows it; a NodePool's requirements may not).
func ValidateOverlay(reqs []Requirement) []attrpath.Finding {
	var out []attrpath.Finding
	for _, f := range Validate(reqs) {
		if f.Message == nodePoolRestricted {
			continue
		}
		out = append(out, f)
	}
	return out
}

// QualifiedNameProblem says why name is not a Kubernetes qualified name (a label key or an
// extended resource name), or "".
func QualifiedNameProblem(name string) string { return qualifiedNameProblem(name) }

func restrictedProblems(key string) []string {
	domain, _, _ := strings.Cut(key, "/")
	var out []string
	if strings.HasSuffix(domain, domainKarpenter) && key != LabelCapacityType && key != LabelNodePool {
		out = append(out, fmt.Sprintf("label domain %q is restricted: key %s cannot be used in a requirement (of that domain only %s is allowed)",
			domainKarpenter, quoteShort(key), LabelCapacityType))
	}
	if key == LabelNodePool {
		out = append(out, nodePoolRestricted)
	}
	if key == LabelHostname {
		out = append(out, fmt.Sprintf("label %q is restricted: it cannot be used in a NodePool requirement", LabelHostname))
	}
	if strings.HasSuffix(domain, domainKarpenterAWS) {
		if _, ok := awsRequirementKeySet[key]; !ok {
			msg := fmt.Sprintf("label domain %q is restricted: key %s is not one of its well-known labels", domainKarpenterAWS, quoteShort(key))
			if s := suggest(key, awsRequirementKeys, 2); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				short := make([]string, len(awsRequirementKeys))
				for i, k := range awsRequirementKeys {
					short[i] = strings.TrimPrefix(k, domainKarpenterAWS+"/")
				}
				msg += fmt.Sprintf("; allowed: %s/{%s}", domainKarpenterAWS, strings.Join(short, ","))
			}
			out = append(out, msg)
		}
	}
	return out
}

func operatorList() string {
	s := make([]string, len(operators))
	for i, op := range operators {
		s[i] = string(op)
	}
	return strings.Join(s, ", ")
}

// quoteShort quotes s, eliding the middle of very long strings so messages stay readable.
func quoteShort(s string) string {
	const limit = 80
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:40]) + "..." + strconv.Quote(s[len(s)-20:])
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = quoteShort(v)
	}
	return strings.Join(q, ", ")
}

// suggest returns the candidate closest to s by edit distance (case-insensitive) when that
// distance is at most maxDist and s is not itself a candidate; otherwise "".
func suggest(s string, candidates []string, maxDist int) string {
	if len(s) > 200 {
		return ""
	}
	best, bestDist := "", maxDist+1
	ls := strings.ToLower(s)
	for _, c := range candidates {
		if d := EditDistance(ls, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == s {
		return ""
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, by bytes (used for "did you mean"
// suggestions here and in the catalog).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// LabelKeyProblems applies the requirement key rules (qualified name, restricted domains) to a
// node label key, as the NodePool CRD does for template.metadata.labels.
func LabelKeyProblems(key string) []string { return keyProblems(key) }

// LabelValueProblem describes why v is not a valid label value, or "".
func LabelValueProblem(v string) string {
	if len(v) > MaxValueLength {
		return fmt.Sprintf("label values are at most %d characters", MaxValueLength)
	}
	if !labelValueRE.MatchString(v) {
		return fmt.Sprintf("%q is not a valid label value (alphanumerics, '-', '_' or '.', starting and ending alphanumeric)", v)
	}
	return ""
}
