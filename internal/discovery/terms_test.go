package discovery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// wantErr describes one expected finding, at [Index].Field[TagKey]; Msg is a substring of Message.
type wantErr struct {
	Index  int
	Field  string
	TagKey string
	Msg    string
}

func checkErrs(t *testing.T, got []attrpath.Finding, want []wantErr) {
	t.Helper()
	if len(want) == 0 {
		if got != nil {
			t.Fatalf("want nil errors, got %d: %v", len(got), got)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("want %d errors, got %d: %v", len(want), len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if want := findings([]fieldError{{Index: w.Index, Field: w.Field, TagKey: w.TagKey}})[0].Path; g.Path.String() != want.String() {
			t.Errorf("error %d: got %s, want %s (%s)", i, g.Path, want, g.Message)
		}
		if !strings.Contains(g.Message, w.Msg) {
			t.Errorf("error %d: message %q does not contain %q", i, g.Message, w.Msg)
		}
		if !strings.Contains(g.Error(), g.Message) {
			t.Errorf("error %d: Error() %q does not contain the message", i, g.Error())
		}
	}
}

func manyTags(n int) map[string]string {
	m := make(map[string]string, n)
	for i := 0; i < n; i++ {
		m[fmt.Sprintf("key-%02d", i)] = "v"
	}
	return m
}

func TestValidateSubnetTerms(t *testing.T) {
	tests := []struct {
		name  string
		terms []SubnetTerm
		want  []wantErr
	}{
		{name: "no terms", terms: nil},
		{name: "valid tags term", terms: []SubnetTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c1"}}}},
		{name: "valid star and wildcard values", terms: []SubnetTerm{{Tags: map[string]string{"a": "*", "Name": "*private*"}}}},
		{name: "valid id term", terms: []SubnetTerm{{ID: "subnet-0123456789abcdef0"}}},
		{name: "valid id of one character", terms: []SubnetTerm{{ID: "subnet-a"}}},
		{name: "valid exactly 20 tags", terms: []SubnetTerm{{Tags: manyTags(MaxTagsPerTerm)}}},
		{
			name: "valid mix of terms",
			terms: []SubnetTerm{
				{ID: "subnet-1"},
				{Tags: map[string]string{"a": "b"}},
				{ID: "subnet-2"},
			},
		},
		{
			name:  "neither tags nor id",
			terms: []SubnetTerm{{}},
			want:  []wantErr{{Index: 0, Field: "", Msg: "needs `tags` or `id`"}},
		},
		{
			name:  "tags and id together",
			terms: []SubnetTerm{{ID: "subnet-1", Tags: map[string]string{"a": "b"}}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "mutually exclusive with `tags`"}},
		},
		{
			name:  "empty non-nil tags map",
			terms: []SubnetTerm{{Tags: map[string]string{}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, Msg: "must not be empty"}},
		},
		{
			name:  "more than 20 tags",
			terms: []SubnetTerm{{Tags: manyTags(MaxTagsPerTerm + 1)}},
			want:  []wantErr{{Index: 0, Field: FieldTags, Msg: "at most 20 tags per term, got 21"}},
		},
		{
			name:  "empty tag key",
			terms: []SubnetTerm{{Tags: map[string]string{"": "v"}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, TagKey: "", Msg: "tag keys must not be empty"}},
		},
		{
			name:  "empty tag key with empty value reports the key only",
			terms: []SubnetTerm{{Tags: map[string]string{"": ""}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, TagKey: "", Msg: "tag keys must not be empty"}},
		},
		{
			name:  "empty tag value",
			terms: []SubnetTerm{{Tags: map[string]string{"Name": ""}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, TagKey: "Name", Msg: `use "*" to match any value`}},
		},
		{
			name:  "several empty tag values, in key order",
			terms: []SubnetTerm{{Tags: map[string]string{"b": "", "ok": "1", "a": ""}}},
			want: []wantErr{
				{Index: 0, Field: FieldTags, TagKey: "a", Msg: "empty value"},
				{Index: 0, Field: FieldTags, TagKey: "b", Msg: "empty value"},
			},
		},
		{
			name:  "bad id: wrong prefix",
			terms: []SubnetTerm{{ID: "sn-123"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: `"sn-123" is not a subnet id`}},
		},
		{
			name:  "bad id: uppercase",
			terms: []SubnetTerm{{ID: "subnet-ABC"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: `"subnet-ABC" is not a subnet id`}},
		},
		{
			name:  "bad id: no suffix",
			terms: []SubnetTerm{{ID: "subnet-"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "expected subnet-[0-9a-z]+"}},
		},
		{
			name:  "bad id: security group id",
			terms: []SubnetTerm{{ID: "sg-123"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "is not a subnet id"}},
		},
		{
			name:  "bad id: surrounding text",
			terms: []SubnetTerm{{ID: " subnet-123"}, {ID: "subnet-123\n"}, {ID: "xsubnet-123"}},
			want: []wantErr{
				{Index: 0, Field: FieldID, Msg: "is not a subnet id"},
				{Index: 1, Field: FieldID, Msg: "is not a subnet id"},
				{Index: 2, Field: FieldID, Msg: "is not a subnet id"},
			},
		},
		{
			name:  "bad id together with tags: both problems",
			terms: []SubnetTerm{{ID: "subnet-X", Tags: map[string]string{"a": "b"}}},
			want: []wantErr{
				{Index: 0, Field: FieldID, Msg: "mutually exclusive"},
				{Index: 0, Field: FieldID, Msg: "is not a subnet id"},
			},
		},
		{
			name: "several errors in several terms, in index order",
			terms: []SubnetTerm{
				{ID: "subnet-ok"},
				{},
				{ID: "subnet-BAD"},
				{Tags: map[string]string{"k": ""}},
				{Tags: map[string]string{"fine": "*"}},
				{Tags: map[string]string{}},
			},
			want: []wantErr{
				{Index: 1, Field: "", Msg: "needs `tags` or `id`"},
				{Index: 2, Field: FieldID, Msg: "is not a subnet id"},
				{Index: 3, Field: FieldTags, TagKey: "k", Msg: "empty value"},
				{Index: 5, Field: FieldTags, Msg: "must not be empty"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErrs(t, ValidateSubnetTerms(tc.terms), tc.want)
		})
	}
}

func TestValidateSecurityGroupTerms(t *testing.T) {
	tests := []struct {
		name  string
		terms []SecurityGroupTerm
		want  []wantErr
	}{
		{name: "no terms", terms: nil},
		{name: "valid tags term", terms: []SecurityGroupTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c1", "x": "*"}}}},
		{name: "valid id term", terms: []SecurityGroupTerm{{ID: "sg-0123456789abcdef0"}}},
		{name: "valid name term", terms: []SecurityGroupTerm{{Name: "eks-cluster-sg-c1"}}},
		{name: "valid exactly 20 tags", terms: []SecurityGroupTerm{{Tags: manyTags(MaxTagsPerTerm)}}},
		{
			name: "valid mix of terms",
			terms: []SecurityGroupTerm{
				{ID: "sg-1"},
				{Name: "default"},
				{Tags: map[string]string{"a": "b"}},
			},
		},
		{
			name:  "none of tags, id, name",
			terms: []SecurityGroupTerm{{}},
			want:  []wantErr{{Index: 0, Field: "", Msg: "needs one of `tags`, `id` or `name`"}},
		},
		{
			name:  "id with tags",
			terms: []SecurityGroupTerm{{ID: "sg-1", Tags: map[string]string{"a": "b"}}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "`id` is mutually exclusive"}},
		},
		{
			name:  "id with name",
			terms: []SecurityGroupTerm{{ID: "sg-1", Name: "n"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "`id` is mutually exclusive"}},
		},
		{
			name:  "id with name and tags: one exclusivity error",
			terms: []SecurityGroupTerm{{ID: "sg-1", Name: "n", Tags: map[string]string{"a": "b"}}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "`id` is mutually exclusive"}},
		},
		{
			name:  "name with tags",
			terms: []SecurityGroupTerm{{Name: "n", Tags: map[string]string{"a": "b"}}},
			want:  []wantErr{{Index: 0, Field: FieldName, Msg: "`name` is mutually exclusive with `tags`"}},
		},
		{
			name:  "empty non-nil tags map",
			terms: []SecurityGroupTerm{{Tags: map[string]string{}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, Msg: "must not be empty"}},
		},
		{
			name:  "more than 20 tags",
			terms: []SecurityGroupTerm{{Tags: manyTags(25)}},
			want:  []wantErr{{Index: 0, Field: FieldTags, Msg: "at most 20 tags per term, got 25"}},
		},
		{
			name:  "empty tag key",
			terms: []SecurityGroupTerm{{Tags: map[string]string{"": "x"}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, Msg: "tag keys must not be empty"}},
		},
		{
			name:  "empty tag value",
			terms: []SecurityGroupTerm{{Tags: map[string]string{"team": ""}}},
			want:  []wantErr{{Index: 0, Field: FieldTags, TagKey: "team", Msg: "empty value"}},
		},
		{
			name:  "bad id: wrong prefix",
			terms: []SecurityGroupTerm{{ID: "subnet-123"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: `"subnet-123" is not a security group id`}},
		},
		{
			name:  "bad id: uppercase",
			terms: []SecurityGroupTerm{{ID: "sg-ABC"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "expected sg-[0-9a-z]+"}},
		},
		{
			name:  "bad id: no suffix",
			terms: []SecurityGroupTerm{{ID: "sg-"}},
			want:  []wantErr{{Index: 0, Field: FieldID, Msg: "is not a security group id"}},
		},
		{
			name:  "bad id with name: both problems",
			terms: []SecurityGroupTerm{{ID: "sg_1", Name: "n"}},
			want: []wantErr{
				{Index: 0, Field: FieldID, Msg: "mutually exclusive"},
				{Index: 0, Field: FieldID, Msg: "is not a security group id"},
			},
		},
		{
			name:  "name with empty tags: exclusivity and empty tags",
			terms: []SecurityGroupTerm{{Name: "n", Tags: map[string]string{}}},
			want: []wantErr{
				{Index: 0, Field: FieldName, Msg: "mutually exclusive"},
				{Index: 0, Field: FieldTags, Msg: "must not be empty"},
			},
		},
		{
			name: "several errors in several terms, in index order",
			terms: []SecurityGroupTerm{
				{Name: "ok"},
				{ID: "sg-1", Name: "x"},
				{},
				{ID: "sg-ok"},
				{Name: "n", Tags: map[string]string{"a": "b"}},
				{ID: "bad"},
				{Tags: map[string]string{"z": ""}},
			},
			want: []wantErr{
				{Index: 1, Field: FieldID, Msg: "mutually exclusive"},
				{Index: 2, Field: "", Msg: "needs one of"},
				{Index: 4, Field: FieldName, Msg: "mutually exclusive"},
				{Index: 5, Field: FieldID, Msg: "is not a security group id"},
				{Index: 6, Field: FieldTags, TagKey: "z", Msg: "empty value"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErrs(t, ValidateSecurityGroupTerms(tc.terms), tc.want)
		})
	}
}

// Findings are relative to the list of terms; the caller places them (selector_terms).
func TestFindingPaths(t *testing.T) {
	tests := []struct {
		err  fieldError
		want string
	}{
		{fieldError{Index: 0, Message: "m"}, "selector_terms[0]: m"},
		{fieldError{Index: 3, Field: FieldID, Message: "bad"}, "selector_terms[3].id: bad"},
		{fieldError{Index: 1, Field: FieldTags, TagKey: "Name", Message: "empty"}, `selector_terms[1].tags["Name"]: empty`},
		{fieldError{Index: 2, Field: FieldTags, TagKey: `a"b`, Message: "x"}, `selector_terms[2].tags["a\"b"]: x`},
	}
	for _, tc := range tests {
		if got := attrpath.Under(attrpath.Of("selector_terms"), findings([]fieldError{tc.err}))[0].Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if findings(nil) != nil {
		t.Error("no errors, no findings")
	}
}
