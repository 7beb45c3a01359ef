package requirements

import (
	"slices"
	"strconv"
	"testing"
)

// complement pairs: for a label that is present and (for numeric operators) an integer,
// exactly one of the two operators matches.
var complementOf = map[Operator]Operator{
	OpIn: OpNotIn, OpNotIn: OpIn,
	OpExists: OpDoesNotExist, OpDoesNotExist: OpExists,
	OpGt: OpLte, OpLte: OpGt,
	OpLt: OpGte, OpGte: OpLt,
}

func FuzzRequirements(f *testing.F) {
	f.Add(LabelZone, "In", "us-west-2a", "us-west-2b", 2, 0, "us-west-2a", true)
	f.Add(LabelZone, "NotIn", "us-west-2a", "", 1, 0, "us-west-2c", true)
	f.Add(LabelArch, "Exists", "", "", 0, 0, "arm64", false)
	f.Add(LabelInstanceGPUCount, "DoesNotExist", "", "", 0, 0, "1", true)
	f.Add(LabelInstanceCPU, "Gt", "4", "", 1, 0, "8", true)
	f.Add(LabelInstanceCPU, "Lt", "4", "", 1, 0, "4", true)
	f.Add(LabelInstanceMemory, "Gte", "8192", "", 1, 0, "8192", true)
	f.Add(LabelInstanceGeneration, "Lte", "5", "", 1, 0, "x", true)
	f.Add(LabelInstanceFamily, "In", "m5", "c5", 2, 2, "m5", true)
	f.Add(LabelCapacityType, "In", "spot", "on-demnad", 2, 0, "spot", true)
	f.Add(LabelHostname, "In", "a", "", 1, 0, "a", true)
	f.Add("karpenter.k8s.aws/instance-pods", "Exists", "", "", 0, 60, "", false)
	f.Add("Example.com/a/b", "in", "-1", "x y", 2, -3, "", true)
	f.Add("", "", "", "", 5, 0, "", false)
	f.Add("example.com/n", "Gt", "99999999999999999999", "", 1, 0, "1", true)

	f.Fuzz(func(t *testing.T, key, op, v1, v2 string, nValues, minValues int, labelValue string, present bool) {
		var values []string
		switch nValues % 3 {
		case 1, -1:
			values = []string{v1}
		case 2, -2:
			values = []string{v1, v2}
		}
		r := Requirement{Key: key, Operator: Operator(op), Values: values}
		if minValues != 0 {
			r.MinValues = &minValues
		}

		// Validation never panics and always yields well-formed errors.
		errs := Validate([]Requirement{r})
		for _, e := range errs {
			steps := e.Path.Steps()
			if len(steps) != 2 || steps[0].Index != 0 || e.Message == "" {
				t.Fatalf("malformed error %+v", e)
			}
			switch steps[1].Name {
			case FieldKey, FieldOperator, FieldValues, FieldMinValues:
			default:
				t.Fatalf("unknown field in %+v", e)
			}
			_ = e.Error()
		}

		labels := map[string]string{}
		if present {
			labels[key] = labelValue
		}
		got := r.Matches(labels) // never panics, even for invalid requirements
		_ = AllowedValues([]Requirement{r}, key, []string{labelValue, v1, v2})
		_, _ = Filter([]Requirement{r}, []map[string]string{labels, {}})

		if len(errs) > 0 {
			return
		}

		// A clean requirement is shaped as the CRD demands.
		if len(key) == 0 || len(key) > MaxKeyLength || !r.Operator.Valid() {
			t.Fatalf("accepted bad key/operator: %+v", r)
		}
		if r.Operator == OpIn && len(values) == 0 {
			t.Fatalf("accepted In without values: %+v", r)
		}
		if r.Operator.numeric() {
			if len(values) != 1 {
				t.Fatalf("accepted %s with %d values", r.Operator, len(values))
			}
			if n, err := strconv.ParseInt(values[0], 10, 64); err != nil || n < 0 {
				t.Fatalf("accepted %s with value %q", r.Operator, values[0])
			}
		}
		if r.MinValues != nil && (*r.MinValues < 1 || *r.MinValues > 50) {
			t.Fatalf("accepted min_values %d", *r.MinValues)
		}

		// Deterministic, and unaffected by labels on other keys.
		other := map[string]string{"unrelated.example.com/k": "v"}
		for k, v := range labels {
			other[k] = v
		}
		if key != "unrelated.example.com/k" && r.Matches(other) != got {
			t.Fatalf("result depends on an unrelated label: %+v", r)
		}

		// Complement operators on the same key and values.
		comp := r
		comp.Operator = complementOf[r.Operator]
		compGot := comp.Matches(labels)
		_, labelIsInt := parseInt(labelValue)
		switch {
		case r.Operator.numeric() && (!present || !labelIsInt):
			if got || compGot {
				t.Fatalf("%s/%s matched a missing or non-integer label %q (present=%v): %v/%v",
					r.Operator, comp.Operator, labelValue, present, got, compGot)
			}
		case !present && (r.Operator == OpIn || r.Operator == OpNotIn):
			if got != (r.Operator == OpNotIn) || compGot != (comp.Operator == OpNotIn) {
				t.Fatalf("absent label: In must not match and NotIn must match (%s=%v)", r.Operator, got)
			}
		default:
			if got == compGot {
				t.Fatalf("%s and %s both returned %v for labels %v, values %q", r.Operator, comp.Operator, got, labels, values)
			}
		}

		// Matches agrees with the direct definition of each operator.
		if present {
			var want bool
			switch r.Operator {
			case OpIn:
				want = slices.Contains(values, labelValue)
			case OpNotIn:
				want = !slices.Contains(values, labelValue)
			case OpExists:
				want = true
			case OpDoesNotExist:
				want = false
			default:
				have, ok := parseInt(labelValue)
				bound, _ := parseInt(values[0])
				want = ok && map[Operator]bool{OpGt: have > bound, OpLt: have < bound, OpGte: have >= bound, OpLte: have <= bound}[r.Operator]
			}
			if got != want {
				t.Fatalf("%+v.Matches(%v) = %v, want %v", r, labels, got, want)
			}
		}

		// AllowedValues and Filter agree with Matches.
		allowed := AllowedValues([]Requirement{r}, key, []string{labelValue})
		if present && (len(allowed) == 1) != got {
			t.Fatalf("AllowedValues(%q) = %v but Matches = %v", labelValue, allowed, got)
		}
		idx, err := Filter([]Requirement{r}, []map[string]string{labels})
		if (len(idx) == 1) != got {
			t.Fatalf("Filter kept %v but Matches = %v", idx, got)
		}
		if err != nil && r.MinValues == nil {
			t.Fatalf("Filter returned %v without min_values", err)
		}
		if got && present && r.MinValues != nil && *r.MinValues == 1 && err != nil {
			t.Fatalf("min_values 1 with one matching labelled item failed: %v", err)
		}
	})
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
