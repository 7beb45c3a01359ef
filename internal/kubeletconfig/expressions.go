package kubeletconfig

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// reservedFields are the maps whose values may be expressions.
var reservedFields = []string{"kubeReserved", "systemReserved"}

// expressions lists the expressions in a parsed config: a string maxPods, and reserved values
// that aren't quantities. Each comes with its field path; order is maxPods, then kubeReserved,
// then systemReserved, keys sorted.
func (m *managed) expressions() []Problem {
	if m == nil {
		return nil
	}
	var found []Problem
	if m.MaxPods != nil && m.MaxPods.Type == intstr.String {
		found = append(found, Problem{Field: []string{"maxPods"}, Message: m.MaxPods.StrVal})
	}
	for _, field := range reservedFields {
		values := m.reserved(field)
		for _, key := range slices.Sorted(maps.Keys(values)) {
			if IsExpression(values[key]) {
				found = append(found, Problem{Field: []string{field, key}, Message: values[key]})
			}
		}
	}
	return found
}

func (m *managed) reserved(field string) map[string]string {
	if field == "kubeReserved" {
		return m.KubeReserved
	}
	return m.SystemReserved
}

// HasExpressions tells whether spec.kubelet holds any expression: a string maxPods, or a
// kubeReserved or systemReserved value that isn't a quantity. A config that doesn't parse has
// none (Validate reports it).
func HasExpressions(config map[string]any) bool {
	parsed, err := parseManaged(config)
	return err == nil && len(parsed.expressions()) > 0
}

// HasResourceExpressions is HasExpressions limited to kubeReserved and systemReserved: when
// false, reserved values need no per instance type evaluation.
func HasResourceExpressions(config map[string]any) bool {
	parsed, err := parseManaged(config)
	if err != nil {
		return false
	}
	for _, e := range parsed.expressions() {
		if e.Field[0] != "maxPods" {
			return true
		}
	}
	return false
}

// GateProblems reports each expression when expressions are disabled (the NodeClassCEL gate
// off): Karpenter then refuses the whole NodeClass (KubeletExpressionsDisabled).
func GateProblems(config map[string]any, expressionsEnabled bool) []Problem {
	if expressionsEnabled {
		return nil
	}
	parsed, err := parseManaged(config)
	if err != nil {
		return nil
	}
	var problems []Problem
	for _, e := range parsed.expressions() {
		problems = append(problems, Problem{
			Field:   e.Field,
			Message: "is a CEL expression, but the " + FeatureGate + " feature gate is disabled",
		})
	}
	return problems
}

// ExpressionProblems compiles every expression in spec.kubelet and reports those that don't
// compile or don't return a number (validateKubeletExpressions, which stops at the first). A
// config that doesn't parse yields none (Validate reports it).
func ExpressionProblems(config map[string]any) []Problem {
	parsed, err := parseManaged(config)
	if err != nil {
		return nil
	}
	var problems []Problem
	for _, e := range parsed.expressions() {
		if err := Compile(e.Message); err != nil {
			problems = append(problems, Problem{Field: e.Field, Message: "invalid expression: " + err.Error()})
		}
	}
	return problems
}

// Condition reasons Karpenter sets on ValidationSucceeded for spec.kubelet, in the order its
// validation controller checks them.
const (
	ReasonInvalid              = "InvalidKubeletConfiguration"
	ReasonExpressionsDisabled  = "KubeletExpressionsDisabled"
	ReasonExpressionInvalid    = "KubeletExpressionInvalid"
	ReasonUnsupportedForFamily = "UnsupportedKubeletConfiguration"
	ReasonExpressionEvalFailed = "KubeletExpressionEvaluationFailed"
)

// Check runs the checks in the validation controller's order and stops at the first that
// fails, as the controller does, returning that condition reason with its problems; "" and nil
// when spec.kubelet passes. The per instance type evaluation (ReasonExpressionEvalFailed) runs
// later in the controller and needs instance data: see InstanceProblems.
func Check(family string, config map[string]any, expressionsEnabled bool) (reason string, problems []Problem) {
	if problems := Validate(config); len(problems) > 0 {
		return ReasonInvalid, problems
	}
	if _, err := parseManaged(config); err != nil {
		// Unreachable when Validate is complete; Karpenter checks it all the same.
		return ReasonInvalid, []Problem{{Message: "parsing spec.kubelet: " + err.Error()}}
	}
	if problems := GateProblems(config, expressionsEnabled); len(problems) > 0 {
		return ReasonExpressionsDisabled, problems
	}
	if problems := ExpressionProblems(config); len(problems) > 0 {
		return ReasonExpressionInvalid, problems
	}
	if problems := FamilyProblems(family, config); len(problems) > 0 {
		return ReasonUnsupportedForFamily, problems
	}
	return "", nil
}
