package discovery

import (
	"reflect"
	"strings"
	"testing"
)

// fuzzTagMaps builds up to three tag maps from fuzzed strings; mode selects which are used.
func fuzzTagMaps(k1, v1, k2, v2 string, mode uint8) []map[string]string {
	var maps []map[string]string
	if mode&1 != 0 {
		maps = append(maps, map[string]string{k1: v1})
	}
	if mode&2 != 0 {
		maps = append(maps, map[string]string{k1: v1, k2: v2})
	}
	if mode&4 != 0 {
		maps = append(maps, map[string]string{k2: v2})
	}
	if mode&8 != 0 {
		// The same pair of keys with the values swapped (and a star) exercise tag-key filters.
		maps = append(maps, map[string]string{k1: "*", k2: v1})
	}
	return maps
}

func copyTags(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// distinctMaps counts pairwise-distinct tag maps, without relying on FilterSet.Key.
func distinctMaps(maps []map[string]string) int {
	var uniq []map[string]string
next:
	for _, m := range maps {
		for _, u := range uniq {
			if reflect.DeepEqual(m, u) {
				continue next
			}
		}
		uniq = append(uniq, m)
	}
	return len(uniq)
}

// checkSets asserts the properties every output of the filter-set builders must have.
func checkSets(t *testing.T, sets []FilterSet, wantSets int) {
	t.Helper()
	if len(sets) != wantSets {
		t.Fatalf("got %d filter sets, want %d:%s", len(sets), wantSets, fmtSets(sets))
	}
	seen := map[string]bool{}
	for i, s := range sets {
		if len(s) == 0 {
			t.Fatalf("set %d is empty:%s", i, fmtSets(sets))
		}
		for _, f := range s {
			if f.Name == "" {
				t.Fatalf("set %d has a filter without a name:%s", i, fmtSets(sets))
			}
			if len(f.Values) == 0 {
				t.Fatalf("set %d filter %q has no values:%s", i, f.Name, fmtSets(sets))
			}
			switch {
			case f.Name == "tag-key", strings.HasPrefix(f.Name, "tag:"):
				if len(f.Values) != 1 {
					t.Fatalf("tag filter %q has %d values", f.Name, len(f.Values))
				}
				if f.Name == "tag:" || f.Values[0] == "" || (f.Name != "tag-key" && f.Values[0] == "*") {
					t.Fatalf("bad tag filter %+v", f)
				}
			case f.Name == "subnet-id", f.Name == "group-id", f.Name == "group-name":
				if len(s) != 1 {
					t.Fatalf("%s filter shares a set with other filters:%s", f.Name, fmtSets(sets))
				}
			default:
				t.Fatalf("unexpected filter name %q", f.Name)
			}
		}
		k := s.Key()
		if seen[k] {
			t.Fatalf("duplicate set key %q:%s", k, fmtSets(sets))
		}
		seen[k] = true
	}
}

func FuzzSubnetFilterSets(f *testing.F) {
	f.Add("karpenter.sh/discovery", "my-cluster", "Name", "*private*", "0abc123", uint8(0xff))
	f.Add("kubernetes.io/role/internal-elb", "*", "env", "prod", "1", uint8(0x1f))
	f.Add("a=b", "c", "a", "b=c", "", uint8(0x07))
	f.Add("a", "b;tag:c=d", "c", "d", "xyz", uint8(0x13))
	f.Add("", "", "", "", "", uint8(0))
	f.Add("k", "", "k", "v", "ABC", uint8(0x3f))
	f.Add("k", "v", "k", "v", "subnet-1", uint8(0x7f))
	f.Add("x,y", "*", "x", "y", "0", uint8(0x0b))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, id string, mode uint8) {
		var terms []SubnetTerm
		for _, m := range fuzzTagMaps(k1, v1, k2, v2, mode) {
			terms = append(terms, SubnetTerm{Tags: m})
		}
		if mode&16 != 0 {
			terms = append(terms, SubnetTerm{ID: "subnet-" + id})
		}
		if mode&32 != 0 {
			terms = append(terms, SubnetTerm{ID: id})
		}
		if mode&64 != 0 && len(terms) > 0 {
			terms = append(terms, terms[0]) // a duplicate term
		}
		if mode&128 != 0 {
			for i, j := 0, len(terms)-1; i < j; i, j = i+1, j-1 {
				terms[i], terms[j] = terms[j], terms[i]
			}
		}

		// Keep the terms that validate cleanly on their own; validation must not panic on any.
		_ = ValidateSubnetTerms(terms)
		var valid []SubnetTerm
		for _, term := range terms {
			if ValidateSubnetTerms([]SubnetTerm{term}) == nil {
				valid = append(valid, term)
			}
		}
		if errs := ValidateSubnetTerms(valid); errs != nil {
			t.Fatalf("individually valid terms fail together: %v", errs)
		}

		want := 0
		var tagMaps []map[string]string
		hasID := false
		for _, term := range valid {
			if term.ID != "" {
				hasID = true
			} else {
				tagMaps = append(tagMaps, term.Tags)
			}
		}
		if hasID {
			want++
		}
		want += distinctMaps(tagMaps)

		var before []SubnetTerm
		for _, term := range valid {
			before = append(before, SubnetTerm{ID: term.ID, Tags: copyTags(term.Tags)})
		}
		first := SubnetFilterSets(valid)
		if !reflect.DeepEqual(valid, before) {
			t.Fatalf("SubnetFilterSets mutated its input")
		}
		checkSets(t, first, want)
		if len(valid) > 0 && len(first) == 0 {
			t.Fatalf("valid terms gave no filter sets")
		}

		// Deterministic: the same input, rebuilt, gives the same keys.
		second := SubnetFilterSets(before)
		if k1, k2 := keysOf(first), keysOf(second); !reflect.DeepEqual(k1, k2) {
			t.Fatalf("keys differ between runs:\n%q\n%q", k1, k2)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("sets differ between runs:%s\n%s", fmtSets(first), fmtSets(second))
		}

		// Scoping to a VPC keeps the count and adds exactly one filter per set.
		scoped := WithVPC(first, "vpc-1")
		if len(scoped) != len(first) {
			t.Fatalf("WithVPC changed the number of sets")
		}
		for i := range scoped {
			if len(scoped[i]) != len(first[i])+1 || scoped[i][len(scoped[i])-1].Name != "vpc-id" {
				t.Fatalf("WithVPC set %d = %+v", i, scoped[i])
			}
		}
	})
}

func FuzzSecurityGroupFilterSets(f *testing.F) {
	f.Add("karpenter.sh/discovery", "my-cluster", "Name", "*nodes*", "0abc", "eks-cluster-sg", uint8(0xff))
	f.Add("a=b", "c", "a", "b=c", "1", "a,b", uint8(0x07))
	f.Add("k", "*", "k2", "*", "", "", uint8(0x0f))
	f.Add("", "", "", "", "", "", uint8(0))
	f.Add("k", "v", "k", "v", "sg-1", "default", uint8(0x7f))
	f.Add("x", "y", "z", "", "ABC", "n;m", uint8(0x3b))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, id, name string, mode uint8) {
		var terms []SecurityGroupTerm
		for _, m := range fuzzTagMaps(k1, v1, k2, v2, mode) {
			terms = append(terms, SecurityGroupTerm{Tags: m})
		}
		if mode&16 != 0 {
			terms = append(terms, SecurityGroupTerm{ID: "sg-" + id})
		}
		if mode&32 != 0 {
			terms = append(terms, SecurityGroupTerm{Name: name})
		}
		if mode&64 != 0 {
			terms = append(terms, SecurityGroupTerm{ID: id, Name: name})
			terms = append(terms, SecurityGroupTerm{Name: name + "2"})
		}
		if mode&128 != 0 {
			for i, j := 0, len(terms)-1; i < j; i, j = i+1, j-1 {
				terms[i], terms[j] = terms[j], terms[i]
			}
		}

		_ = ValidateSecurityGroupTerms(terms)
		var valid []SecurityGroupTerm
		for _, term := range terms {
			if ValidateSecurityGroupTerms([]SecurityGroupTerm{term}) == nil {
				valid = append(valid, term)
			}
		}
		if errs := ValidateSecurityGroupTerms(valid); errs != nil {
			t.Fatalf("individually valid terms fail together: %v", errs)
		}

		want := 0
		var tagMaps []map[string]string
		hasID, hasName := false, false
		for _, term := range valid {
			switch {
			case term.ID != "":
				hasID = true
			case term.Name != "":
				hasName = true
			default:
				tagMaps = append(tagMaps, term.Tags)
			}
		}
		if hasID {
			want++
		}
		if hasName {
			want++
		}
		want += distinctMaps(tagMaps)

		var before []SecurityGroupTerm
		for _, term := range valid {
			before = append(before, SecurityGroupTerm{ID: term.ID, Name: term.Name, Tags: copyTags(term.Tags)})
		}
		first := SecurityGroupFilterSets(valid)
		if !reflect.DeepEqual(valid, before) {
			t.Fatalf("SecurityGroupFilterSets mutated its input")
		}
		checkSets(t, first, want)
		if len(valid) > 0 && len(first) == 0 {
			t.Fatalf("valid terms gave no filter sets")
		}
		if hasID && first[0][0].Name != "group-id" {
			t.Fatalf("group-id set is not first:%s", fmtSets(first))
		}
		if hasName {
			i := 0
			if hasID {
				i = 1
			}
			if first[i][0].Name != "group-name" {
				t.Fatalf("group-name set not right after group-id:%s", fmtSets(first))
			}
		}

		second := SecurityGroupFilterSets(before)
		if k1, k2 := keysOf(first), keysOf(second); !reflect.DeepEqual(k1, k2) {
			t.Fatalf("keys differ between runs:\n%q\n%q", k1, k2)
		}
		if !reflect.DeepEqual(first, second) {
			t.Fatalf("sets differ between runs:%s\n%s", fmtSets(first), fmtSets(second))
		}
	})
}
