package requirements

import (
	"slices"
	"strconv"
)

// Compatibility as Karpenter's scheduling.Requirements reads it: requirements are merged per key
// (In values intersected, bounds narrowed) before a label, or its absence, is judged.

// LabelsCompatible reports whether labels (one value per key) are Compatible with reqs as
// Karpenter judges them (scheduling.NewLabelRequirements(labels).Compatible(reqs), no key
// allowed to be undefined): a label present must meet every requirement on its key; a label
// absent, only when the requirements on it merge to NotIn or DoesNotExist.
func LabelsCompatible(labels map[string]string, reqs []Requirement) bool {
	var seen []string
	for _, r := range reqs {
		if slices.Contains(seen, r.Key) {
			continue
		}
		seen = append(seen, r.Key)
		on := OnKey(reqs, r.Key)
		v, ok := labels[r.Key]
		if ok && !MatchesAll(on, map[string]string{r.Key: v}) || !ok && !AbsentAllowed(on) {
			return false
		}
	}
	return true
}

// AbsentAllowed reports whether a node without a label meets the requirements on it (all on one
// key): Karpenter merges them into one requirement and lets a node without the label through
// when that one is NotIn or DoesNotExist. In values that the others leave empty, or bounds
// (Gt, Lt, Gte, Lte) that cross, make DoesNotExist; without In, the NotIn values within the
// bounds make NotIn, and none make Exists.
func AbsentAllowed(on []Requirement) bool {
	var notIn []string
	var gte, lte *int64
	for _, r := range on {
		switch r.Operator {
		case OpDoesNotExist:
			return true
		case OpNotIn:
			notIn = append(notIn, r.Values...)
		case OpGt, OpGte, OpLt, OpLte:
			bound(r, &gte, &lte)
		}
	}
	if gte != nil && lte != nil && *gte > *lte {
		return true
	}
	if in, hasIn := InValues(on); hasIn {
		return !slices.ContainsFunc(in, func(v string) bool { return MatchesAll(on, map[string]string{on[0].Key: v}) })
	}
	return slices.ContainsFunc(notIn, func(v string) bool { return withinBounds(v, gte, lte) })
}

// InValues are the values every In requirement of on allows (their intersection); hasIn is
// false when on has no In requirement.
func InValues(on []Requirement) (in []string, hasIn bool) {
	for _, r := range on {
		if r.Operator != OpIn {
			continue
		}
		if !hasIn {
			in, hasIn = slices.Clone(r.Values), true
			continue
		}
		in = slices.DeleteFunc(in, func(v string) bool { return !slices.Contains(r.Values, v) })
	}
	return in, hasIn
}

// bound narrows the integer bounds [gte, lte] by a Gt, Gte, Lt or Lte requirement.
func bound(r Requirement, gte, lte **int64) {
	if len(r.Values) != 1 {
		return
	}
	n, err := strconv.ParseInt(r.Values[0], 10, 64)
	if err != nil {
		return
	}
	switch r.Operator {
	case OpGt:
		n++
		fallthrough
	case OpGte:
		if *gte == nil || n > **gte {
			*gte = &n
		}
	case OpLt:
		n--
		fallthrough
	case OpLte:
		if *lte == nil || n < **lte {
			*lte = &n
		}
	}
}

// withinBounds reports whether v is an integer within [gte, lte]; any v is, without bounds.
func withinBounds(v string, gte, lte *int64) bool {
	if gte == nil && lte == nil {
		return true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && (gte == nil || n >= *gte) && (lte == nil || n <= *lte)
}

// OnKey are the requirements of reqs on key.
func OnKey(reqs []Requirement, key string) []Requirement {
	var out []Requirement
	for _, r := range reqs {
		if r.Key == key {
			out = append(out, r)
		}
	}
	return out
}
