package requirements

import "testing"

func TestMatches(t *testing.T) {
	const k = "example.com/n"
	labels := func(v string) map[string]string { return map[string]string{k: v, "other": "x"} }
	absent := map[string]string{"other": "x"}
	req := func(op Operator, vs ...string) Requirement { return Requirement{Key: k, Operator: op, Values: vs} }

	tests := []struct {
		name   string
		req    Requirement
		labels map[string]string
		want   bool
	}{
		{"In present, listed", req(OpIn, "a", "b"), labels("b"), true},
		{"In present, not listed", req(OpIn, "a", "b"), labels("c"), false},
		{"In absent", req(OpIn, "a"), absent, false},
		{"In empty label value listed", req(OpIn, ""), labels(""), true},
		{"In nil labels", req(OpIn, "a"), nil, false},
		{"In without values never matches", req(OpIn), labels("a"), false},

		{"NotIn present, listed", req(OpNotIn, "a", "b"), labels("a"), false},
		{"NotIn present, not listed", req(OpNotIn, "a", "b"), labels("c"), true},
		{"NotIn absent", req(OpNotIn, "a"), absent, true},
		{"NotIn without values matches everything", req(OpNotIn), labels("a"), true},

		{"Exists present", req(OpExists), labels(""), true},
		{"Exists absent", req(OpExists), absent, false},
		{"DoesNotExist present", req(OpDoesNotExist), labels("a"), false},
		{"DoesNotExist absent", req(OpDoesNotExist), absent, true},

		{"Gt greater", req(OpGt, "4"), labels("8"), true},
		{"Gt equal", req(OpGt, "4"), labels("4"), false},
		{"Gt smaller", req(OpGt, "4"), labels("2"), false},
		{"Gt absent", req(OpGt, "4"), absent, false},
		{"Gt non-integer label", req(OpGt, "4"), labels("8xl"), false},
		{"Gt leading zeros", req(OpGt, "4"), labels("0010"), true},
		{"Gt negative label", req(OpGt, "0"), labels("-3"), false},

		{"Lt smaller", req(OpLt, "4"), labels("2"), true},
		{"Lt equal", req(OpLt, "4"), labels("4"), false},
		{"Lt greater", req(OpLt, "4"), labels("5"), false},
		{"Lt absent", req(OpLt, "4"), absent, false},
		{"Lt non-integer label", req(OpLt, "4"), labels("1.5"), false},

		{"Gte greater", req(OpGte, "4"), labels("5"), true},
		{"Gte equal", req(OpGte, "4"), labels("4"), true},
		{"Gte smaller", req(OpGte, "4"), labels("3"), false},
		{"Gte absent", req(OpGte, "4"), absent, false},
		{"Gte non-integer label", req(OpGte, "4"), labels("four"), false},

		{"Lte smaller", req(OpLte, "4"), labels("3"), true},
		{"Lte equal", req(OpLte, "4"), labels("4"), true},
		{"Lte greater", req(OpLte, "4"), labels("5"), false},
		{"Lte absent", req(OpLte, "4"), absent, false},
		{"Lte non-integer label", req(OpLte, "4"), labels(""), false},

		{"numeric with non-integer bound", req(OpGt, "x"), labels("8"), false},
		{"numeric with two values", req(OpLt, "4", "8"), labels("2"), false},
		{"numeric without values", req(OpGte), labels("2"), false},
		{"numeric int64 overflow label", req(OpGt, "1"), labels("99999999999999999999"), false},
		{"unknown operator", req("Contains", "a"), labels("a"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.Matches(tc.labels); got != tc.want {
				t.Errorf("%+v.Matches(%v) = %v, want %v", tc.req, tc.labels, got, tc.want)
			}
		})
	}
}

func TestMatchesAll(t *testing.T) {
	zoneAB := Requirement{Key: LabelZone, Operator: OpIn, Values: []string{"a", "b"}}
	zoneBC := Requirement{Key: LabelZone, Operator: OpIn, Values: []string{"b", "c"}}
	notB := Requirement{Key: LabelZone, Operator: OpNotIn, Values: []string{"b"}}
	cpu := Requirement{Key: LabelInstanceCPU, Operator: OpGte, Values: []string{"4"}}
	cpuMax := Requirement{Key: LabelInstanceCPU, Operator: OpLt, Values: []string{"16"}}
	node := func(zone, cpus string) map[string]string {
		return map[string]string{LabelZone: zone, LabelInstanceCPU: cpus}
	}

	tests := []struct {
		name   string
		reqs   []Requirement
		labels map[string]string
		want   bool
	}{
		{"no requirements match anything", nil, node("z", "1"), true},
		{"no requirements match nil labels", nil, nil, true},
		{"In ∩ In: value in both", []Requirement{zoneAB, zoneBC}, node("b", "4"), true},
		{"In ∩ In: value only in first", []Requirement{zoneAB, zoneBC}, node("a", "4"), false},
		{"In ∩ In: value only in second", []Requirement{zoneAB, zoneBC}, node("c", "4"), false},
		{"In ∩ NotIn removes a value", []Requirement{zoneBC, notB}, node("b", "4"), false},
		{"In ∩ NotIn keeps the rest", []Requirement{zoneBC, notB}, node("c", "4"), true},
		{"range lower bound", []Requirement{cpu, cpuMax}, node("a", "4"), true},
		{"range upper bound excluded", []Requirement{cpu, cpuMax}, node("a", "16"), false},
		{"range below", []Requirement{cpu, cpuMax}, node("a", "2"), false},
		{"different keys ANDed", []Requirement{zoneAB, cpu}, node("a", "2"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MatchesAll(tc.reqs, tc.labels); got != tc.want {
				t.Errorf("MatchesAll = %v, want %v", got, tc.want)
			}
		})
	}
}
