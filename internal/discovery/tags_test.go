package discovery

import (
	"reflect"
	"slices"
	"testing"
)

// The provider decodes selector terms by their tfsdk tags, and findings name a term's fields
// by FieldTags, FieldID and FieldName: the two must be the same names.
func TestTermTagsAreFindingFields(t *testing.T) {
	for _, c := range []struct {
		term any
		want []string
	}{
		{SubnetTerm{}, []string{FieldTags, FieldID}},
		{SecurityGroupTerm{}, []string{FieldTags, FieldID, FieldName}},
	} {
		typ := reflect.TypeOf(c.term)
		var got []string
		for i := 0; i < typ.NumField(); i++ {
			got = append(got, typ.Field(i).Tag.Get("tfsdk"))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s tags %q, want %q", typ.Name(), got, c.want)
		}
	}
	// An invalid term is reported on the fields the tags name.
	errs := ValidateSecurityGroupTerms([]SecurityGroupTerm{{ID: "sg-0abc", Name: "x"}, {Tags: map[string]string{}}})
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path.String())
	}
	if !slices.Equal(paths, []string{"[0].id", "[1].tags"}) {
		t.Errorf("finding paths %q", paths)
	}
}
