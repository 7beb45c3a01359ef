package discovery

import (
	"reflect"
	"testing"
)

func TestCapacityReservationQueries(t *testing.T) {
	terms := []CapacityReservationTerm{
		{ID: "cr-b"},
		{Tags: map[string]string{"team": "ml", "env": "*"}, OwnerID: "123456789012"},
		{ID: "cr-a"},
		{InstanceMatchCriteria: InstanceMatchTargeted},
		{ID: "cr-b"},
		{Tags: map[string]string{"env": "*", "team": "ml"}, OwnerID: "123456789012"}, // same as term 1
	}
	got := CapacityReservationQueries(terms)
	active := Filter{Name: "state", Values: []string{"active", "scheduled"}}
	want := []CapacityReservationQuery{
		{IDs: []string{"cr-a", "cr-b"}, Terms: []int{0, 2, 4}},
		{Filters: FilterSet{active, {Name: "owner-id", Values: []string{"123456789012"}},
			{Name: "tag-key", Values: []string{"env"}}, {Name: "tag:team", Values: []string{"ml"}}}, Terms: []int{1, 5}},
		{Filters: FilterSet{active, {Name: "instance-match-criteria", Values: []string{"targeted"}}}, Terms: []int{3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	if got[0].Key() == got[1].Key() || got[1].Key() == got[2].Key() {
		t.Errorf("keys collide: %q %q %q", got[0].Key(), got[1].Key(), got[2].Key())
	}
	if q := CapacityReservationQueries(nil); len(q) != 0 {
		t.Errorf("no terms: %v", q)
	}
}

func TestValidateCapacityReservationTerms(t *testing.T) {
	tests := []struct {
		name  string
		terms []CapacityReservationTerm
		want  []wantErr
	}{
		{"valid terms", []CapacityReservationTerm{
			{ID: "cr-0123456789abcdef0"},
			{Tags: map[string]string{"team": "*"}},
			{InstanceMatchCriteria: "open"},
			{Tags: map[string]string{"team": "ml"}, OwnerID: "123456789012", InstanceMatchCriteria: "targeted"},
		}, nil},
		{"empty term", []CapacityReservationTerm{{}}, []wantErr{{Index: 0, Msg: "needs `tags`, `id` or `instance_match_criteria`"}}},
		{"owner alone", []CapacityReservationTerm{{OwnerID: "123456789012"}}, []wantErr{{Index: 0, Msg: "needs `tags`"}}},
		{"id with tags", []CapacityReservationTerm{{ID: "cr-1", Tags: map[string]string{"a": "b"}}},
			[]wantErr{{Index: 0, Field: FieldID, Msg: "cannot be combined"}}},
		{"id with owner", []CapacityReservationTerm{{ID: "cr-1", OwnerID: "123456789012"}},
			[]wantErr{{Index: 0, Field: FieldID, Msg: "cannot be combined"}}},
		{"bad id", []CapacityReservationTerm{{ID: "sg-1"}}, []wantErr{{Index: 0, Field: FieldID, Msg: "not a capacity reservation id"}}},
		{"bad owner", []CapacityReservationTerm{{InstanceMatchCriteria: "open", OwnerID: "self"}},
			[]wantErr{{Index: 0, Field: FieldOwnerID, Msg: "12 digits"}}},
		{"bad criteria", []CapacityReservationTerm{{InstanceMatchCriteria: "any"}},
			[]wantErr{{Index: 0, Field: FieldInstanceMatchCriteria, Msg: `must be "open" or "targeted"`}}},
		{"bad tags", []CapacityReservationTerm{{Tags: map[string]string{}}, {Tags: map[string]string{"k": ""}}, {Tags: manyTags(21)}},
			[]wantErr{{Index: 0, Field: FieldTags, Msg: "must not be empty"}, {Index: 1, Field: FieldTags, TagKey: "k", Msg: "empty value"},
				{Index: 2, Field: FieldTags, Msg: "at most 20"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErrs(t, ValidateCapacityReservationTerms(tc.terms), tc.want)
		})
	}
}

func TestPlacementGroupSelectorString(t *testing.T) {
	if s := (PlacementGroupSelector{ID: "pg-1"}).String(); s != "pg-1" {
		t.Errorf("id: %q", s)
	}
	if s := (PlacementGroupSelector{Name: "hpc"}).String(); s != `named "hpc"` {
		t.Errorf("name: %q", s)
	}
	if !ValidPlacementGroupID("pg-0abc") || ValidPlacementGroupID("pg-") || ValidPlacementGroupID("cr-1") {
		t.Error("ValidPlacementGroupID")
	}
}
