// Package requirements validates and evaluates Karpenter NodePool requirements
// (node-selector requirements with Karpenter's Gte/Lte operators and minValues)
// against node label sets.
//
// Matching follows Kubernetes node-selector semantics: requirements are ANDed, so
// several requirements on the same key intersect. Validation mirrors the rules the
// NodePool CRD enforces (OpenAPI patterns and CEL) plus a few provider-side checks,
// so that problems surface at plan time instead of at apply time.
package requirements

import (
	"fmt"
	"slices"
	"strconv"
)

// Operator relates a requirement's key to its values.
type Operator string

// Supported operators. Gte and Lte are Karpenter extensions of the Kubernetes set.
const (
	OpIn           Operator = "In"
	OpNotIn        Operator = "NotIn"
	OpExists       Operator = "Exists"
	OpDoesNotExist Operator = "DoesNotExist"
	OpGt           Operator = "Gt"
	OpLt           Operator = "Lt"
	OpGte          Operator = "Gte"
	OpLte          Operator = "Lte"
)

var operators = []Operator{OpIn, OpNotIn, OpExists, OpDoesNotExist, OpGt, OpLt, OpGte, OpLte}

// Operators returns every supported operator, in a stable order.
func Operators() []Operator {
	return append([]Operator(nil), operators...)
}

// Valid reports whether o is a supported operator (case-sensitive).
func (o Operator) Valid() bool {
	return slices.Contains(operators, o)
}

// numeric reports whether o compares integers.
func (o Operator) numeric() bool {
	switch o {
	case OpGt, OpLt, OpGte, OpLte:
		return true
	}
	return false
}

// Requirement is one NodePool requirement: a label key, an operator, its values and an
// optional minimum number of distinct values (minValues).
type Requirement struct {
	Key       string   `tfsdk:"key"`
	Operator  Operator `tfsdk:"operator"`
	Values    []string `tfsdk:"values"`
	MinValues *int     `tfsdk:"min_values"`
}

// Matches reports whether labels satisfy r.
//
//   - In: the label is present and its value is one of Values.
//   - NotIn: the label is absent, or its value is not one of Values.
//   - Exists / DoesNotExist: the label is present / absent.
//   - Gt, Lt, Gte, Lte: the label is present, Values has exactly one element, both the
//     label value and Values[0] parse as base-10 int64, and the comparison
//     label <op> Values[0] holds. Anything unparsable does not match.
//
// An unknown operator never matches.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.Key]
	switch r.Operator {
	case OpIn:
		return ok && slices.Contains(r.Values, v)
	case OpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	case OpGt, OpLt, OpGte, OpLte:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		bound, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		switch r.Operator {
		case OpGt:
			return have > bound
		case OpLt:
			return have < bound
		case OpGte:
			return have >= bound
		default: // OpLte
			return have <= bound
		}
	}
	return false
}

// MatchesAll reports whether labels satisfy every requirement. An empty set matches everything.
func MatchesAll(reqs []Requirement, labels map[string]string) bool {
	for i := range reqs {
		if !reqs[i].Matches(labels) {
			return false
		}
	}
	return true
}

// MinValuesError reports that, after filtering, fewer distinct values of a requirement's key
// remain than its MinValues asks for.
type MinValuesError struct {
	Key   string // the requirement's label key
	Index int    // the requirement's position in the list passed to Filter
	Want  int    // the requirement's MinValues
	Got   int    // distinct values of Key among the items that satisfy every requirement
}

func (e *MinValuesError) Error() string {
	return fmt.Sprintf("requirement %d on key %q needs at least %d distinct values (min_values) but the matching items offer only %d",
		e.Index, e.Key, e.Want, e.Got)
}

// Filter returns, in ascending order, the indexes of the items whose labels satisfy every
// requirement. It then enforces MinValues: for each requirement with MinValues set, the
// surviving items must carry at least MinValues distinct values of that requirement's key
// (items without the label do not count). The first requirement (in list order) that falls
// short yields a *MinValuesError; the surviving indexes are returned alongside it.
func Filter(reqs []Requirement, items []map[string]string) ([]int, error) {
	idx := make([]int, 0, len(items))
	for i, labels := range items {
		if MatchesAll(reqs, labels) {
			idx = append(idx, i)
		}
	}
	for ri := range reqs {
		r := &reqs[ri]
		if r.MinValues == nil {
			continue
		}
		want := *r.MinValues
		distinct := make(map[string]struct{}, want)
		for _, i := range idx {
			if v, ok := items[i][r.Key]; ok {
				distinct[v] = struct{}{}
				if len(distinct) >= want {
					break
				}
			}
		}
		if got := len(distinct); got < want {
			return idx, &MinValuesError{Key: r.Key, Index: ri, Want: want, Got: got}
		}
	}
	return idx, nil
}

// AllowedValues returns the members of universe that the requirements on key allow, in
// universe order and without duplicates. Requirements on other keys are ignored; with no
// requirement on key every member is allowed. The result is never nil.
//
// Example: the zones a NodePool may use on a node class, AllowedValues(reqs, LabelZone, nodeClassZones).
func AllowedValues(reqs []Requirement, key string, universe []string) []string {
	var onKey []Requirement
	for _, r := range reqs {
		if r.Key == key {
			onKey = append(onKey, r)
		}
	}
	out := make([]string, 0, len(universe))
	seen := make(map[string]struct{}, len(universe))
	probe := map[string]string{}
	for _, v := range universe {
		if _, dup := seen[v]; dup {
			continue
		}
		seen[v] = struct{}{}
		probe[key] = v
		if MatchesAll(onKey, probe) {
			out = append(out, v)
		}
	}
	return out
}
