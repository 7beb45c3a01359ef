package requirements

import "testing"

func TestLabelsCompatibleMergesPerKey(t *testing.T) {
	team := func(op Operator, vs ...string) Requirement {
		return Requirement{Key: "example.com/team", Operator: op, Values: vs}
	}
	for _, c := range []struct {
		labels map[string]string
		reqs   []Requirement
		want   bool
	}{
		{nil, []Requirement{team(OpIn, "a")}, false},
		{nil, []Requirement{team(OpNotIn, "a")}, true},
		{nil, []Requirement{team(OpIn, "a"), team(OpDoesNotExist)}, true},
		{nil, []Requirement{team(OpIn, "a"), team(OpIn, "b")}, true}, // In ∩ In is empty: absent is allowed
		{nil, []Requirement{team(OpExists), team(OpDoesNotExist)}, true},
		{nil, []Requirement{team(OpGt, "5"), team(OpLt, "3")}, true},
		{map[string]string{"example.com/team": "a"}, []Requirement{team(OpIn, "a"), team(OpDoesNotExist)}, false},
		{map[string]string{"example.com/team": "a"}, []Requirement{team(OpIn, "a", "b"), team(OpNotIn, "b")}, true},
	} {
		if got := LabelsCompatible(c.labels, c.reqs); got != c.want {
			t.Errorf("LabelsCompatible(%v, %v) = %v, want %v", c.labels, c.reqs, got, c.want)
		}
	}
}
