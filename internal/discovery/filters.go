package discovery

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Filter is one EC2 Describe* filter: the name and the values it ORs.
type Filter struct {
	Name   string
	Values []string
}

// FilterSet is the filters of one EC2 call; EC2 ANDs them.
type FilterSet []Filter

// Key is a stable text form of a filter set, for de-duplicating calls and caching results.
// Names and values are quoted because tag keys, tag values and group names may themselves
// contain '=', ',' or ';': without quoting, different sets could share a key and dedupe would
// drop a term.
func (fs FilterSet) Key() string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(strconv.Quote(f.Name))
		b.WriteByte('=')
		for i, v := range f.Values {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(v))
		}
		b.WriteByte(';')
	}
	return b.String()
}

// tagFilters converts one term's tags: "*" means the key exists with any value (tag-key filter);
// any other value passes through as an EC2 filter value, so "*private*" keeps EC2's wildcard
// semantics. Keys are sorted so the same term always yields the same filters.
func tagFilters(tags map[string]string) FilterSet {
	fs := make(FilterSet, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if v := tags[k]; v == "*" {
			fs = append(fs, Filter{Name: "tag-key", Values: []string{k}})
		} else {
			fs = append(fs, Filter{Name: "tag:" + k, Values: []string{v}})
		}
	}
	return fs
}

// SubnetFilterSets mirrors Karpenter: one filter set per tags term (terms are ORed by making
// one call each), and every id term merged into one subnet-id filter. Id wins over tags within a
// term. Duplicate sets are dropped. Terms must be valid.
func SubnetFilterSets(terms []SubnetTerm) []FilterSet {
	var ids []string
	var sets []FilterSet
	for _, t := range terms {
		if t.ID != "" {
			ids = append(ids, t.ID)
			continue
		}
		sets = append(sets, tagFilters(t.Tags))
	}
	if len(ids) > 0 {
		sets = append([]FilterSet{{{Name: "subnet-id", Values: uniqueSorted(ids)}}}, sets...)
	}
	return dedupe(sets)
}

// SecurityGroupFilterSets mirrors Karpenter: id terms merge into one group-id filter, name terms
// into one group-name filter (the EC2 group name, not the Name tag), and each tags term is its
// own set. Precedence within a term: id, then name, then tags.
func SecurityGroupFilterSets(terms []SecurityGroupTerm) []FilterSet {
	var ids, names []string
	var sets []FilterSet
	for _, t := range terms {
		switch {
		case t.ID != "":
			ids = append(ids, t.ID)
		case t.Name != "":
			names = append(names, t.Name)
		default:
			sets = append(sets, tagFilters(t.Tags))
		}
	}
	var head []FilterSet
	if len(ids) > 0 {
		head = append(head, FilterSet{{Name: "group-id", Values: uniqueSorted(ids)}})
	}
	if len(names) > 0 {
		head = append(head, FilterSet{{Name: "group-name", Values: uniqueSorted(names)}})
	}
	return dedupe(append(head, sets...))
}

// WithVPC scopes every set to one VPC (used for pod subnets and checks within a VPC).
func WithVPC(sets []FilterSet, vpcID string) []FilterSet {
	out := make([]FilterSet, len(sets))
	for i, s := range sets {
		out[i] = append(append(FilterSet{}, s...), Filter{Name: "vpc-id", Values: []string{vpcID}})
	}
	return out
}

func uniqueSorted(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func dedupe(sets []FilterSet) []FilterSet {
	seen := make(map[string]bool, len(sets))
	out := sets[:0]
	for _, s := range sets {
		if k := s.Key(); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}
