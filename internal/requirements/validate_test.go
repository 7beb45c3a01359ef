package requirements

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

func intp(n int) *int { return &n }

type wantErr struct {
	index int
	field string
	msg   string // substring of the message
}

func TestValidate(t *testing.T) {
	longPrefix := strings.Repeat("a", 253)
	name63 := strings.Repeat("b", 63)

	tests := []struct {
		name string
		reqs []Requirement
		want []wantErr
	}{
		// key
		{"empty key",
			[]Requirement{{Key: "", Operator: OpExists}},
			[]wantErr{{0, FieldKey, "key must not be empty"}}},
		{"key longer than 316",
			[]Requirement{{Key: longPrefix + "/" + name63, Operator: OpExists}},
			[]wantErr{{0, FieldKey, "317 characters long; the maximum is 316"}}},
		{"key with two slashes",
			[]Requirement{{Key: "example.com/a/b", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `"example.com/a/b" is not a qualified label name: it may contain at most one '/'`}}},
		{"key with uppercase prefix",
			[]Requirement{{Key: "Example.com/team", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `the prefix "Example.com" must be a lowercase DNS subdomain`}}},
		{"key with empty prefix",
			[]Requirement{{Key: "/team", Operator: OpExists}},
			[]wantErr{{0, FieldKey, "prefix before '/' must not be empty"}}},
		{"key with empty name",
			[]Requirement{{Key: "example.com/", Operator: OpExists}},
			[]wantErr{{0, FieldKey, "name after '/' must not be empty"}}},
		{"key name starting with dash",
			[]Requirement{{Key: "-team", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `the name "-team" must consist of alphanumerics`}}},
		{"key name with a space",
			[]Requirement{{Key: "example.com/my team", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `the name "my team"`}}},
		{"key name longer than 63",
			[]Requirement{{Key: "example.com/" + name63 + "c", Operator: OpExists}},
			[]wantErr{{0, FieldKey, "name part is 64 characters long; the maximum is 63"}}},
		{"restricted hostname",
			[]Requirement{{Key: LabelHostname, Operator: OpIn, Values: []string{"ip-10-0-0-1"}}},
			[]wantErr{{0, FieldKey, `label "kubernetes.io/hostname" is restricted`}}},
		{"restricted nodepool",
			[]Requirement{{Key: LabelNodePool, Operator: OpIn, Values: []string{"default"}}},
			[]wantErr{{0, FieldKey, `label "karpenter.sh/nodepool" is restricted`}}},
		{"restricted karpenter.sh domain",
			[]Requirement{{Key: "karpenter.sh/do-not-disrupt", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `label domain "karpenter.sh" is restricted: key "karpenter.sh/do-not-disrupt"`}}},
		{"restricted karpenter.sh subdomain",
			[]Requirement{{Key: "team.karpenter.sh/x", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `label domain "karpenter.sh" is restricted`}}},
		{"restricted karpenter.k8s.aws key that is not well-known",
			[]Requirement{{Key: "karpenter.k8s.aws/instance-pods", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `key "karpenter.k8s.aws/instance-pods" is not one of its well-known labels; allowed: karpenter.k8s.aws/{instance-category,`}}},
		{"karpenter.k8s.aws typo gets a suggestion",
			[]Requirement{{Key: "karpenter.k8s.aws/instance-familly", Operator: OpExists}},
			[]wantErr{{0, FieldKey, `did you mean "karpenter.k8s.aws/instance-family"?`}}},

		// operator
		{"unknown operator",
			[]Requirement{{Key: LabelArch, Operator: "Contains", Values: []string{"amd64"}}},
			[]wantErr{{0, FieldOperator, `unknown operator "Contains"; valid operators are In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte`}}},
		{"operator with wrong case",
			[]Requirement{{Key: LabelArch, Operator: "notin", Values: []string{"amd64"}}},
			[]wantErr{{0, FieldOperator, `did you mean "NotIn"?`}}},
		{"empty operator",
			[]Requirement{{Key: LabelArch}},
			[]wantErr{{0, FieldOperator, `unknown operator ""`}}},

		// values
		{"In without values",
			[]Requirement{{Key: LabelArch, Operator: OpIn}},
			[]wantErr{{0, FieldValues, "operator In requires at least one value"}}},
		{"Exists with values",
			[]Requirement{{Key: LabelArch, Operator: OpExists, Values: []string{"amd64"}}},
			[]wantErr{{0, FieldValues, `operator Exists takes no values, got 1 ("amd64")`}}},
		{"DoesNotExist with values",
			[]Requirement{{Key: "example.com/gpu", Operator: OpDoesNotExist, Values: []string{"a", "b"}}},
			[]wantErr{{0, FieldValues, `operator DoesNotExist takes no values, got 2 ("a", "b")`}}},
		{"Gt without values",
			[]Requirement{{Key: LabelInstanceCPU, Operator: OpGt}},
			[]wantErr{{0, FieldValues, "operator Gt requires exactly one value, got 0"}}},
		{"Lt with two values",
			[]Requirement{{Key: LabelInstanceCPU, Operator: OpLt, Values: []string{"4", "8"}}},
			[]wantErr{{0, FieldValues, "operator Lt requires exactly one value, got 2"}}},
		{"Gte with a non-integer",
			[]Requirement{{Key: LabelInstanceGeneration, Operator: OpGte, Values: []string{"5.5"}}},
			[]wantErr{{0, FieldValues, `operator Gte requires a single integer value >= 0, got "5.5"`}}},
		{"Lte with a negative integer",
			[]Requirement{{Key: LabelInstanceMemory, Operator: OpLte, Values: []string{"-1"}}},
			[]wantErr{
				{0, FieldValues, `value 0 ("-1") is not a valid label value`},
				{0, FieldValues, `operator Lte requires a single integer value >= 0, got "-1"`},
			}},
		{"Gt with an empty string",
			[]Requirement{{Key: LabelInstanceCPU, Operator: OpGt, Values: []string{""}}},
			[]wantErr{{0, FieldValues, `operator Gt requires a single integer value >= 0, got ""`}}},
		{"value longer than 63",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpNotIn, Values: []string{"m5", strings.Repeat("x", 64)}}},
			[]wantErr{{0, FieldValues, "value 1 (\"xxxx"}}},
		{"value not label shaped",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpIn, Values: []string{"m5", "c5 "}}},
			[]wantErr{{0, FieldValues, `value 1 ("c5 ") is not a valid label value`}}},
		{"capacity type typo",
			[]Requirement{{Key: LabelCapacityType, Operator: OpIn, Values: []string{"spot", "on-demnad"}}},
			[]wantErr{{0, FieldValues, `invalid capacity type "on-demnad" for key karpenter.sh/capacity-type; valid values are on-demand, spot, reserved (did you mean "on-demand"?)`}}},
		{"capacity type wrong case with NotIn",
			[]Requirement{{Key: LabelCapacityType, Operator: OpNotIn, Values: []string{"Spot"}}},
			[]wantErr{{0, FieldValues, `invalid capacity type "Spot"`}}},

		// min_values
		{"min_values zero",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(0)}},
			[]wantErr{{0, FieldMinValues, "min_values must be between 1 and 50, got 0"}}},
		{"min_values 51",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(51)}},
			[]wantErr{{0, FieldMinValues, "min_values must be between 1 and 50, got 51"}}},
		{"min_values above the In value count",
			[]Requirement{{Key: LabelInstanceFamily, Operator: OpIn, Values: []string{"m5", "c5"}, MinValues: intp(3)}},
			[]wantErr{{0, FieldMinValues, "min_values is 3 but operator In lists only 2 value(s)"}}},

		// indexes and several problems at once
		{"errors carry the index of the offending item",
			[]Requirement{
				{Key: LabelArch, Operator: OpIn, Values: []string{"amd64"}},
				{Key: LabelOS, Operator: OpIn, Values: []string{"linux"}},
				{Key: LabelCapacityType, Operator: "Equals", Values: []string{"spot"}},
			},
			[]wantErr{{2, FieldOperator, `unknown operator "Equals"`}}},
		{"several fields of one item, in field order",
			[]Requirement{
				{Key: LabelArch, Operator: OpExists},
				{Key: "karpenter.sh/foo", Operator: OpIn, MinValues: intp(99)},
			},
			[]wantErr{
				{1, FieldKey, `label domain "karpenter.sh" is restricted`},
				{1, FieldValues, "operator In requires at least one value"},
				{1, FieldMinValues, "min_values must be between 1 and 50, got 99"},
				{1, FieldMinValues, "min_values is 99 but operator In lists only 0 value(s)"},
			}},

		// valid sets
		{"nil list", nil, nil},
		{"valid complex set",
			[]Requirement{
				{Key: LabelArch, Operator: OpIn, Values: []string{"amd64", "arm64"}},
				{Key: LabelOS, Operator: OpIn, Values: []string{"linux"}},
				{Key: LabelCapacityType, Operator: OpIn, Values: []string{"spot", "on-demand", "reserved"}},
				{Key: LabelCapacityType, Operator: OpNotIn, Values: []string{"reserved"}},
				{Key: LabelZone, Operator: OpIn, Values: []string{"us-west-2a", "us-west-2b"}},
				{Key: LabelZoneID, Operator: OpNotIn, Values: []string{"usw2-az4"}},
				{Key: LabelInstanceCategory, Operator: OpIn, Values: []string{"c", "m", "r"}, MinValues: intp(2)},
				{Key: LabelInstanceFamily, Operator: OpExists, MinValues: intp(5)},
				{Key: LabelInstanceGeneration, Operator: OpGt, Values: []string{"2"}},
				{Key: LabelInstanceCPU, Operator: OpLte, Values: []string{"64"}},
				{Key: LabelInstanceMemory, Operator: OpGte, Values: []string{"0"}},
				{Key: LabelInstanceNetworkBandwidth, Operator: OpLt, Values: []string{"100000"}},
				{Key: LabelInstanceGPUCount, Operator: OpDoesNotExist},
				{Key: LabelInstanceHypervisor, Operator: OpIn, Values: []string{"nitro", ""}},
				{Key: LabelInstanceTenancy, Operator: OpIn, Values: []string{"default"}},
				{Key: LabelEC2NodeClass, Operator: OpIn, Values: []string{"default"}},
				{Key: LabelPlacementGroupPartition, Operator: OpExists},
				{Key: LabelCapacityReservationInterruptible, Operator: OpNotIn, Values: []string{"true"}},
				{Key: LabelInstanceType, Operator: OpNotIn},
				{Key: "example.com/team", Operator: OpIn, Values: []string{"Platform_Team.1"}},
				{Key: "team", Operator: OpExists},
				{Key: LabelInstanceType, Operator: OpIn, Values: []string{"m5.large"}, MinValues: intp(1)},
			},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Validate(tc.reqs)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(got), len(tc.want), dumpErrs(got))
			}
			for i, w := range tc.want {
				g := got[i]
				want := (attrpath.Path{}).Index(w.index).Attr(w.field)
				if g.Path.String() != want.String() || !strings.Contains(g.Message, w.msg) {
					t.Errorf("error %d = %s %q, want %s ...%q...", i, g.Path, g.Message, want, w.msg)
				}
			}
		})
	}
}

func TestValidateAllowsEveryWellKnownAWSKey(t *testing.T) {
	for _, k := range AllowedAWSKeys() {
		if errs := Validate([]Requirement{{Key: k, Operator: OpExists}}); errs != nil {
			t.Errorf("%s: unexpected errors:\n%s", k, dumpErrs(errs))
		}
	}
}

// Findings' paths are relative to the list: the caller places them (template.requirements).
func TestFindingsUnderTheirList(t *testing.T) {
	got := attrpath.Under(attrpath.Of("template", "requirements"), Validate([]Requirement{{Key: "k", Operator: OpIn, MinValues: new(0)}}))
	if len(got) == 0 {
		t.Fatal("no finding")
	}
	if s := got[len(got)-1].Error(); !strings.HasPrefix(s, "template.requirements[0].min_values: ") {
		t.Errorf("Error() = %q", s)
	}
}

func TestOperators(t *testing.T) {
	ops := Operators()
	if len(ops) != 8 {
		t.Fatalf("Operators() has %d entries, want 8", len(ops))
	}
	for _, op := range ops {
		if !op.Valid() {
			t.Errorf("%q should be valid", op)
		}
	}
	ops[0] = "mutated"
	if Operators()[0] != OpIn {
		t.Error("Operators() must return a copy")
	}
	if Operator("in").Valid() {
		t.Error(`"in" must not be valid (operators are case-sensitive)`)
	}
}

func dumpErrs(errs []attrpath.Finding) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  ")
		b.WriteString(e.Error())
		b.WriteString("\n")
	}
	return b.String()
}
