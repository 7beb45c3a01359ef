package discovery

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sameSets compares filter-set lists, treating nil and empty as equal.
func sameSets(got, want []FilterSet) bool {
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	return reflect.DeepEqual(got, want)
}

func fmtSets(sets []FilterSet) string {
	var b strings.Builder
	for i, s := range sets {
		fmt.Fprintf(&b, "\n  [%d] %+v", i, []Filter(s))
	}
	return b.String()
}

func keysOf(sets []FilterSet) []string {
	out := make([]string, len(sets))
	for i, s := range sets {
		out[i] = s.Key()
	}
	return out
}

func TestSubnetFilterSets(t *testing.T) {
	tests := []struct {
		name  string
		terms []SubnetTerm
		want  []FilterSet
	}{
		{
			name:  "no terms",
			terms: nil,
			want:  nil,
		},
		{
			name:  "one tags term with an exact value",
			terms: []SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "my-cluster"}}},
			want: []FilterSet{
				{{Name: "tag:karpenter.sh/discovery", Values: []string{"my-cluster"}}},
			},
		},
		{
			name:  "star value becomes a tag-key filter",
			terms: []SubnetTerm{{Tags: map[string]string{"kubernetes.io/role/internal-elb": "*"}}},
			want: []FilterSet{
				{{Name: "tag-key", Values: []string{"kubernetes.io/role/internal-elb"}}},
			},
		},
		{
			name:  "wildcard inside a value passes through",
			terms: []SubnetTerm{{Tags: map[string]string{"Name": "*private*"}}},
			want: []FilterSet{
				{{Name: "tag:Name", Values: []string{"*private*"}}},
			},
		},
		{
			name:  "values that merely contain a star are not tag-key filters",
			terms: []SubnetTerm{{Tags: map[string]string{"a": "**", "b": "* ", "c": "x*"}}},
			want: []FilterSet{{
				{Name: "tag:a", Values: []string{"**"}},
				{Name: "tag:b", Values: []string{"* "}},
				{Name: "tag:c", Values: []string{"x*"}},
			}},
		},
		{
			name: "several tags in one term are ANDed in one set, keys sorted",
			terms: []SubnetTerm{{Tags: map[string]string{
				"zeta":                   "z",
				"Name":                   "*private*",
				"karpenter.sh/discovery": "c1",
				"kubernetes.io/role/elb": "*",
				"alpha":                  "a",
			}}},
			want: []FilterSet{{
				{Name: "tag:Name", Values: []string{"*private*"}},
				{Name: "tag:alpha", Values: []string{"a"}},
				{Name: "tag:karpenter.sh/discovery", Values: []string{"c1"}},
				{Name: "tag-key", Values: []string{"kubernetes.io/role/elb"}},
				{Name: "tag:zeta", Values: []string{"z"}},
			}},
		},
		{
			name:  "two star tags in one term stay two ANDed tag-key filters",
			terms: []SubnetTerm{{Tags: map[string]string{"b": "*", "a": "*"}}},
			want: []FilterSet{{
				{Name: "tag-key", Values: []string{"a"}},
				{Name: "tag-key", Values: []string{"b"}},
			}},
		},
		{
			name: "several tags terms give one set each, in term order",
			terms: []SubnetTerm{
				{Tags: map[string]string{"env": "prod"}},
				{Tags: map[string]string{"Name": "*public*"}},
				{Tags: map[string]string{"tier": "*"}},
			},
			want: []FilterSet{
				{{Name: "tag:env", Values: []string{"prod"}}},
				{{Name: "tag:Name", Values: []string{"*public*"}}},
				{{Name: "tag-key", Values: []string{"tier"}}},
			},
		},
		{
			name:  "one id term",
			terms: []SubnetTerm{{ID: "subnet-0abc"}},
			want: []FilterSet{
				{{Name: "subnet-id", Values: []string{"subnet-0abc"}}},
			},
		},
		{
			name: "id terms merge into one sorted, de-duplicated subnet-id filter",
			terms: []SubnetTerm{
				{ID: "subnet-ccc"},
				{ID: "subnet-aaa"},
				{ID: "subnet-bbb"},
				{ID: "subnet-aaa"},
				{ID: "subnet-ccc"},
			},
			want: []FilterSet{
				{{Name: "subnet-id", Values: []string{"subnet-aaa", "subnet-bbb", "subnet-ccc"}}},
			},
		},
		{
			name: "mixed id and tags terms: the id set comes first, tags sets keep term order",
			terms: []SubnetTerm{
				{Tags: map[string]string{"env": "prod"}},
				{ID: "subnet-222"},
				{Tags: map[string]string{"Name": "*private*", "team": "*"}},
				{ID: "subnet-111"},
			},
			want: []FilterSet{
				{{Name: "subnet-id", Values: []string{"subnet-111", "subnet-222"}}},
				{{Name: "tag:env", Values: []string{"prod"}}},
				{
					{Name: "tag:Name", Values: []string{"*private*"}},
					{Name: "tag-key", Values: []string{"team"}},
				},
			},
		},
		{
			name: "duplicate tags terms are de-duplicated, first occurrence kept",
			terms: []SubnetTerm{
				{Tags: map[string]string{"a": "1", "b": "2"}},
				{Tags: map[string]string{"c": "3"}},
				{Tags: map[string]string{"b": "2", "a": "1"}},
				{Tags: map[string]string{"c": "3"}},
			},
			want: []FilterSet{
				{
					{Name: "tag:a", Values: []string{"1"}},
					{Name: "tag:b", Values: []string{"2"}},
				},
				{{Name: "tag:c", Values: []string{"3"}}},
			},
		},
		{
			name: "star and exact value of the same key are different sets",
			terms: []SubnetTerm{
				{Tags: map[string]string{"a": "*"}},
				{Tags: map[string]string{"a": "x"}},
			},
			want: []FilterSet{
				{{Name: "tag-key", Values: []string{"a"}}},
				{{Name: "tag:a", Values: []string{"x"}}},
			},
		},
		{
			// Tag keys and values may contain '=', ',' and ';' (EC2 allows any character).
			// Terms that differ must not collapse into one call.
			name: "terms whose text forms look alike are not merged",
			terms: []SubnetTerm{
				{Tags: map[string]string{"a=b": "c"}},
				{Tags: map[string]string{"a": "b=c"}},
				{Tags: map[string]string{"a": "b;tag:c=d"}},
				{Tags: map[string]string{"a": "b", "c": "d"}},
			},
			want: []FilterSet{
				{{Name: "tag:a=b", Values: []string{"c"}}},
				{{Name: "tag:a", Values: []string{"b=c"}}},
				{{Name: "tag:a", Values: []string{"b;tag:c=d"}}},
				{
					{Name: "tag:a", Values: []string{"b"}},
					{Name: "tag:c", Values: []string{"d"}},
				},
			},
		},
		{
			// Id takes precedence over tags within a term (such a term is invalid, but the
			// function still has a defined result).
			name:  "id wins over tags within a term",
			terms: []SubnetTerm{{ID: "subnet-1", Tags: map[string]string{"a": "b"}}},
			want: []FilterSet{
				{{Name: "subnet-id", Values: []string{"subnet-1"}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SubnetFilterSets(tc.terms)
			if !sameSets(got, tc.want) {
				t.Fatalf("SubnetFilterSets() mismatch\n got: %s\nwant: %s", fmtSets(got), fmtSets(tc.want))
			}
			// Deterministic: repeated calls give the same keys.
			want := keysOf(got)
			for i := 0; i < 20; i++ {
				if again := keysOf(SubnetFilterSets(tc.terms)); !reflect.DeepEqual(again, want) {
					t.Fatalf("call %d: keys %q, first call %q", i, again, want)
				}
			}
		})
	}
}

func TestSubnetFilterSetsDoesNotMutateTerms(t *testing.T) {
	terms := []SubnetTerm{
		{ID: "subnet-b"},
		{Tags: map[string]string{"x": "*", "y": "1"}},
		{ID: "subnet-a"},
		{Tags: map[string]string{"x": "*", "y": "1"}},
	}
	orig := []SubnetTerm{
		{ID: "subnet-b"},
		{Tags: map[string]string{"x": "*", "y": "1"}},
		{ID: "subnet-a"},
		{Tags: map[string]string{"x": "*", "y": "1"}},
	}
	_ = SubnetFilterSets(terms)
	if !reflect.DeepEqual(terms, orig) {
		t.Fatalf("terms mutated: %+v", terms)
	}
}

func TestSubnetFilterSetsManyTagsDeterministic(t *testing.T) {
	tags := map[string]string{}
	for i := 0; i < MaxTagsPerTerm; i++ {
		v := fmt.Sprintf("v%d", i)
		if i%3 == 0 {
			v = "*"
		}
		tags[fmt.Sprintf("k%02d", i)] = v
	}
	first := SubnetFilterSets([]SubnetTerm{{Tags: tags}})
	if len(first) != 1 || len(first[0]) != MaxTagsPerTerm {
		t.Fatalf("want one set of %d filters, got %s", MaxTagsPerTerm, fmtSets(first))
	}
	for i, f := range first[0] {
		k := fmt.Sprintf("k%02d", i)
		if i%3 == 0 {
			if f.Name != "tag-key" || !reflect.DeepEqual(f.Values, []string{k}) {
				t.Errorf("filter %d = %+v, want tag-key [%s]", i, f, k)
			}
		} else if f.Name != "tag:"+k || !reflect.DeepEqual(f.Values, []string{fmt.Sprintf("v%d", i)}) {
			t.Errorf("filter %d = %+v, want tag:%s", i, f, k)
		}
	}
	for i := 0; i < 100; i++ {
		if got := SubnetFilterSets([]SubnetTerm{{Tags: tags}}); !reflect.DeepEqual(got, first) {
			t.Fatalf("call %d differs:%s", i, fmtSets(got))
		}
	}
}

func TestSecurityGroupFilterSets(t *testing.T) {
	tests := []struct {
		name  string
		terms []SecurityGroupTerm
		want  []FilterSet
	}{
		{
			name:  "no terms",
			terms: nil,
			want:  nil,
		},
		{
			name: "id terms merge into one sorted, de-duplicated group-id filter",
			terms: []SecurityGroupTerm{
				{ID: "sg-0bbb"},
				{ID: "sg-0aaa"},
				{ID: "sg-0bbb"},
			},
			want: []FilterSet{
				{{Name: "group-id", Values: []string{"sg-0aaa", "sg-0bbb"}}},
			},
		},
		{
			name: "name terms merge into one sorted, de-duplicated group-name filter",
			terms: []SecurityGroupTerm{
				{Name: "nodes"},
				{Name: "default"},
				{Name: "nodes"},
			},
			want: []FilterSet{
				{{Name: "group-name", Values: []string{"default", "nodes"}}},
			},
		},
		{
			name: "tags terms are one set each",
			terms: []SecurityGroupTerm{
				{Tags: map[string]string{"karpenter.sh/discovery": "c1"}},
				{Tags: map[string]string{"Name": "*nodes*", "aws:eks:cluster-name": "*"}},
			},
			want: []FilterSet{
				{{Name: "tag:karpenter.sh/discovery", Values: []string{"c1"}}},
				{
					{Name: "tag:Name", Values: []string{"*nodes*"}},
					{Name: "tag-key", Values: []string{"aws:eks:cluster-name"}},
				},
			},
		},
		{
			name: "mixed: group-id set, then group-name set, then tags sets in term order",
			terms: []SecurityGroupTerm{
				{Tags: map[string]string{"b": "2"}},
				{Name: "web"},
				{ID: "sg-2"},
				{Tags: map[string]string{"a": "1"}},
				{Name: "app"},
				{ID: "sg-1"},
				{Tags: map[string]string{"b": "2"}},
			},
			want: []FilterSet{
				{{Name: "group-id", Values: []string{"sg-1", "sg-2"}}},
				{{Name: "group-name", Values: []string{"app", "web"}}},
				{{Name: "tag:b", Values: []string{"2"}}},
				{{Name: "tag:a", Values: []string{"1"}}},
			},
		},
		{
			name:  "precedence: id over name and tags",
			terms: []SecurityGroupTerm{{ID: "sg-1", Name: "n", Tags: map[string]string{"a": "b"}}},
			want: []FilterSet{
				{{Name: "group-id", Values: []string{"sg-1"}}},
			},
		},
		{
			name:  "precedence: id over name",
			terms: []SecurityGroupTerm{{ID: "sg-1", Name: "n"}},
			want: []FilterSet{
				{{Name: "group-id", Values: []string{"sg-1"}}},
			},
		},
		{
			name:  "precedence: name over tags",
			terms: []SecurityGroupTerm{{Name: "n", Tags: map[string]string{"a": "b"}}},
			want: []FilterSet{
				{{Name: "group-name", Values: []string{"n"}}},
			},
		},
		{
			name: "group names with separators stay distinct values",
			terms: []SecurityGroupTerm{
				{Name: "a,b"},
				{Name: "a"},
				{Name: "b"},
			},
			want: []FilterSet{
				{{Name: "group-name", Values: []string{"a", "a,b", "b"}}},
			},
		},
		{
			name: "tags terms whose text forms look alike are not merged",
			terms: []SecurityGroupTerm{
				{Tags: map[string]string{"a=b": "c"}},
				{Tags: map[string]string{"a": "b=c"}},
			},
			want: []FilterSet{
				{{Name: "tag:a=b", Values: []string{"c"}}},
				{{Name: "tag:a", Values: []string{"b=c"}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SecurityGroupFilterSets(tc.terms)
			if !sameSets(got, tc.want) {
				t.Fatalf("SecurityGroupFilterSets() mismatch\n got: %s\nwant: %s", fmtSets(got), fmtSets(tc.want))
			}
			want := keysOf(got)
			for i := 0; i < 20; i++ {
				if again := keysOf(SecurityGroupFilterSets(tc.terms)); !reflect.DeepEqual(again, want) {
					t.Fatalf("call %d: keys %q, first call %q", i, again, want)
				}
			}
		})
	}
}

func TestFilterSetKey(t *testing.T) {
	t.Run("empty set", func(t *testing.T) {
		if k := (FilterSet{}).Key(); k != "" {
			t.Errorf("empty set key = %q, want \"\"", k)
		}
		if k := FilterSet(nil).Key(); k != "" {
			t.Errorf("nil set key = %q, want \"\"", k)
		}
	})

	t.Run("stable and equal for equal sets", func(t *testing.T) {
		a := FilterSet{
			{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}},
			{Name: "vpc-id", Values: []string{"vpc-1"}},
		}
		b := FilterSet{
			{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}},
			{Name: "vpc-id", Values: []string{"vpc-1"}},
		}
		ka := a.Key()
		if ka == "" {
			t.Fatal("non-empty set has empty key")
		}
		for i := 0; i < 10; i++ {
			if k := a.Key(); k != ka {
				t.Fatalf("key changed between calls: %q vs %q", k, ka)
			}
		}
		if kb := b.Key(); kb != ka {
			t.Fatalf("equal sets, different keys: %q vs %q", ka, kb)
		}
	})

	t.Run("same terms give the same keys", func(t *testing.T) {
		k1 := keysOf(SubnetFilterSets([]SubnetTerm{{Tags: map[string]string{"a": "1", "b": "*"}}, {ID: "subnet-1"}}))
		k2 := keysOf(SubnetFilterSets([]SubnetTerm{{Tags: map[string]string{"b": "*", "a": "1"}}, {ID: "subnet-1"}}))
		if !reflect.DeepEqual(k1, k2) {
			t.Fatalf("keys differ: %q vs %q", k1, k2)
		}
	})

	// Every pair of these sets differs, so every pair of keys must differ.
	distinct := map[string]FilterSet{
		"tag a=1":              {{Name: "tag:a", Values: []string{"1"}}},
		"tag a=2":              {{Name: "tag:a", Values: []string{"2"}}},
		"tag b=1":              {{Name: "tag:b", Values: []string{"1"}}},
		"tag-key a":            {{Name: "tag-key", Values: []string{"a"}}},
		"tag a=*":              {{Name: "tag:a", Values: []string{"*"}}},
		"key with '='":         {{Name: "tag:a=b", Values: []string{"c"}}},
		"value with '='":       {{Name: "tag:a", Values: []string{"b=c"}}},
		"value with ';'":       {{Name: "tag:a", Values: []string{"b;tag:c=d"}}},
		"two filters":          {{Name: "tag:a", Values: []string{"b"}}, {Name: "tag:c", Values: []string{"d"}}},
		"value with ','":       {{Name: "group-name", Values: []string{"x,y"}}},
		"two values":           {{Name: "group-name", Values: []string{"x", "y"}}},
		"one value x":          {{Name: "group-name", Values: []string{"x"}}},
		"empty value":          {{Name: "group-name", Values: []string{""}}},
		"no values":            {{Name: "group-name"}},
		"subnet ids":           {{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}}},
		"subnet ids + vpc":     {{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}}, {Name: "vpc-id", Values: []string{"vpc-1"}}},
		"value ending in ';'":  {{Name: "tag:a", Values: []string{"b;"}}},
		"value 'b' then empty": {{Name: "tag:a", Values: []string{"b"}}, {}},
	}
	t.Run("distinct sets give distinct keys", func(t *testing.T) {
		seen := map[string]string{}
		for name, fs := range distinct {
			k := fs.Key()
			if other, ok := seen[k]; ok {
				t.Errorf("%q and %q share key %q", name, other, k)
			}
			seen[k] = name
		}
	})
}

func TestWithVPC(t *testing.T) {
	// Give the first set spare capacity so an in-place append would be visible.
	first := make(FilterSet, 1, 4)
	first[0] = Filter{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}}
	in := []FilterSet{
		first,
		{{Name: "tag:a", Values: []string{"1"}}, {Name: "tag-key", Values: []string{"b"}}},
	}
	snapshot := []FilterSet{
		{{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}}},
		{{Name: "tag:a", Values: []string{"1"}}, {Name: "tag-key", Values: []string{"b"}}},
	}

	got := WithVPC(in, "vpc-123")

	want := []FilterSet{
		{{Name: "subnet-id", Values: []string{"subnet-1", "subnet-2"}}, {Name: "vpc-id", Values: []string{"vpc-123"}}},
		{{Name: "tag:a", Values: []string{"1"}}, {Name: "tag-key", Values: []string{"b"}}, {Name: "vpc-id", Values: []string{"vpc-123"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("WithVPC mismatch\n got: %s\nwant: %s", fmtSets(got), fmtSets(want))
	}
	if !reflect.DeepEqual(in, snapshot) {
		t.Fatalf("input mutated: %s", fmtSets(in))
	}
	if spare := first[:cap(first)][1]; spare.Name != "" || spare.Values != nil {
		t.Fatalf("WithVPC wrote into the input's spare capacity: %+v", spare)
	}

	// Scoping twice to different VPCs gives independent results.
	other := WithVPC(in, "vpc-456")
	if got[0][1].Values[0] != "vpc-123" || other[0][1].Values[0] != "vpc-456" {
		t.Fatalf("results share storage: %s / %s", fmtSets(got), fmtSets(other))
	}
	if got[0].Key() == in[0].Key() {
		t.Fatalf("scoped set has the unscoped key %q", got[0].Key())
	}

	if out := WithVPC(nil, "vpc-1"); len(out) != 0 {
		t.Fatalf("WithVPC(nil) = %s, want empty", fmtSets(out))
	}
}
