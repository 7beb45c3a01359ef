package nodeclass

import (
	"reflect"
	"strings"
	"testing"
)

func TestLatePlaceholders(t *testing.T) {
	for _, tc := range []struct {
		name string
		late Late
		any  bool
		want []string
	}{
		{"none", Late{}, false, nil},
		{"role", Late{Role: true}, true, []string{RoleKnownAfterApply}},
		{"all", Late{Role: true, InstanceProfile: true, UserData: true, TagKeys: []string{"a"}}, true,
			[]string{RoleKnownAfterApply, ProfileKnownAfterApply, UserDataKnownAfterApply, TagKnownAfterApply}},
		// A whole tags map is no placeholder: the spec carries no tags at all.
		{"whole tags", Late{Tags: true}, true, nil},
	} {
		if got := tc.late.Placeholders(); !reflect.DeepEqual(got, tc.want) || tc.late.Any() != tc.any {
			t.Errorf("%s: placeholders %v any %v, want %v %v", tc.name, got, tc.late.Any(), tc.want, tc.any)
		}
	}
}

func TestLateSubstitute(t *testing.T) {
	s := baseSpec()
	tags := map[string]string{"team": "a", "cost": ""}
	s.Tags = tags
	Late{Role: true, UserData: true, TagKeys: []string{"cost"}}.Substitute(&s)
	if s.Role != RoleKnownAfterApply || s.InstanceProfile != "" || s.UserData == nil || *s.UserData != UserDataKnownAfterApply {
		t.Errorf("role %q profile %q user data %v", s.Role, s.InstanceProfile, s.UserData)
	}
	if !reflect.DeepEqual(s.Tags, map[string]string{"team": "a", "cost": TagKnownAfterApply}) || tags["cost"] != "" {
		t.Errorf("tags %v, config's %v: want the placeholder in a copy", s.Tags, tags)
	}
	s = baseSpec()
	s.Tags = tags
	s.Role = ""
	s.InstanceProfile = "p"
	Late{InstanceProfile: true, Tags: true}.Substitute(&s)
	if s.InstanceProfile != ProfileKnownAfterApply || s.Tags != nil || s.UserData != nil {
		t.Errorf("profile %q tags %v user data %v", s.InstanceProfile, s.Tags, s.UserData)
	}
	// The spec renders: the placeholders pass validation as the values would.
	s = baseSpec()
	Late{Role: true, UserData: true, TagKeys: []string{"k"}}.Substitute(&s)
	if errs := Validate(s); len(errs) != 0 {
		t.Errorf("validate: %s", dumpErrs(errs))
	}
	if doc, err := Manifest(s); err != nil || !contains(doc, RoleKnownAfterApply, TagKnownAfterApply, UserDataKnownAfterApply) {
		t.Errorf("manifest %q err %v", doc, err)
	}
}

func contains(doc string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(doc, p) {
			return false
		}
	}
	return true
}
