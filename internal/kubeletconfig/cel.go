package kubeletconfig

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// FeatureGate is the Karpenter (AWS provider) feature gate that enables kubelet expressions,
// set with --aws-feature-gates or AWS_FEATURE_GATES. FeatureGateDefault is its default.
const (
	FeatureGate        = "NodeClassCEL"
	FeatureGateDefault = false
)

// Granularities expression results are rounded up to.
const (
	cpuStepMilliCores = 10
	memoryStepMiB     = 16
)

// Vars are the values an expression sees for one instance type; see the package doc.
type Vars struct {
	VCPUs        int64
	MemoryMiB    int64
	DefaultENIs  int64
	IPsPerENI    int64
	MaxPods      int64
	InstanceType string
}

// variables declares the CEL variables and reads each from Vars.
var variables = []struct {
	name string
	typ  *cel.Type
	get  func(Vars) any
}{
	{"vcpus", cel.IntType, func(v Vars) any { return v.VCPUs }},
	{"memory_mib", cel.IntType, func(v Vars) any { return v.MemoryMiB }},
	{"default_enis", cel.IntType, func(v Vars) any { return v.DefaultENIs }},
	{"ips_per_eni", cel.IntType, func(v Vars) any { return v.IPsPerENI }},
	{"max_pods", cel.IntType, func(v Vars) any { return v.MaxPods }},
	{"instance_type", cel.StringType, func(v Vars) any { return v.InstanceType }},
}

// environment is the CEL environment, built once.
var environment = sync.OnceValues(func() (*cel.Env, error) {
	opts := make([]cel.EnvOption, 0, len(variables)+2)
	for _, v := range variables {
		opts = append(opts, cel.Variable(v.name, v.typ))
	}
	opts = append(opts, pickFunction("max", true), pickFunction("min", false))
	return cel.NewEnv(opts...)
})

// pickFunction declares min or max over two ints, two doubles, or one of each. Int/int stays
// int; any double argument makes the comparison and the result a double. On a tie (or NaN) the
// right argument is returned.
func pickFunction(name string, larger bool) cel.EnvOption {
	wins := func(l, r float64) bool { return (larger && l > r) || (!larger && l < r) }
	ints := func(lhs, rhs ref.Val) ref.Val {
		l, lok := lhs.(types.Int)
		r, rok := rhs.(types.Int)
		if !lok || !rok {
			return types.NewErr("%s: expected int arguments", name)
		}
		if (larger && l > r) || (!larger && l < r) {
			return l
		}
		return r
	}
	doubles := func(lhs, rhs ref.Val) ref.Val {
		l, lok := asDouble(lhs)
		r, rok := asDouble(rhs)
		if !lok || !rok {
			return types.NewErr("%s: expected numeric arguments", name)
		}
		if wins(float64(l), float64(r)) {
			return l
		}
		return r
	}
	i, d := cel.IntType, cel.DoubleType
	return cel.Function(name,
		cel.Overload(name+"_int_int", []*cel.Type{i, i}, i, cel.BinaryBinding(ints)),
		cel.Overload(name+"_double_double", []*cel.Type{d, d}, d, cel.BinaryBinding(doubles)),
		cel.Overload(name+"_int_double", []*cel.Type{i, d}, d, cel.BinaryBinding(doubles)),
		cel.Overload(name+"_double_int", []*cel.Type{d, i}, d, cel.BinaryBinding(doubles)),
	)
}

func asDouble(v ref.Val) (types.Double, bool) {
	switch x := v.(type) {
	case types.Double:
		return x, true
	case types.Int:
		return types.Double(x), true
	}
	return 0, false
}

// MaxCost bounds what evaluating an expression for one instance type may cost, in CEL's cost
// units (the unit the API server budgets CRD rules in). Karpenter sets no bound; the plan does,
// so that a runaway expression (nested comprehensions over large lists) fails the plan on its
// attribute instead of hanging it, and the controller after it. Arithmetic over the variables
// costs under a hundred.
const MaxCost = 1_000_000

// instanceTypeSizes bounds the sizes CEL cannot see: instance_type, an EC2 type name, is at
// most 64 characters.
type instanceTypeSizes struct{}

func (instanceTypeSizes) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if p := n.Path(); len(p) == 1 && p[0] == "instance_type" {
		return &checker.SizeEstimate{Min: 0, Max: 64}
	}
	return nil
}

func (instanceTypeSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// programs caches compiled expressions by source; only successes are stored.
var programs sync.Map

// compile parses and type-checks expr; the result must be int or double.
func compile(expr string) (cel.Program, error) {
	if cached, ok := programs.Load(expr); ok {
		if prg, ok := cached.(cel.Program); ok {
			return prg, nil
		}
	}
	env, err := environment()
	if err != nil {
		return nil, fmt.Errorf("building CEL environment: %w", err)
	}
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("compiling expression %q: %w", expr, issues.Err())
	}
	if out := ast.OutputType(); out != cel.IntType && out != cel.DoubleType {
		return nil, fmt.Errorf("expression %q must return int or double, not %s", expr, out)
	}
	if est, err := env.EstimateCost(ast, instanceTypeSizes{}); err == nil && est.Max > MaxCost {
		return nil, fmt.Errorf("expression %q may cost up to %d, over the CEL cost budget of %d: it could run for too long in Karpenter's "+
			"controller; write it as arithmetic over the variables", expr, est.Max, MaxCost)
	}
	prg, err := env.Program(ast, cel.CostLimit(MaxCost))
	if err != nil {
		return nil, fmt.Errorf("creating program for expression %q: %w", expr, err)
	}
	programs.Store(expr, prg)
	return prg, nil
}

// Compile reports whether expr is a valid kubelet expression: it parses, uses only the known
// variables and functions, and returns int or double (Karpenter's ValidateExpression).
func Compile(expr string) error {
	_, err := compile(expr)
	return err
}

// Evaluate runs expr against v and returns its integer result: an int as is, a double truncated
// toward zero. NaN and ±Inf are errors, as are CEL runtime errors. Negative results are returned.
func Evaluate(expr string, v Vars) (int64, error) {
	prg, err := compile(expr)
	if err != nil {
		return 0, err
	}
	activation := make(map[string]any, len(variables))
	for _, variable := range variables {
		activation[variable.name] = variable.get(v)
	}
	out, _, err := prg.Eval(activation)
	if err != nil && strings.Contains(err.Error(), "cost limit exceeded") {
		return 0, fmt.Errorf("expression %q exceeds the CEL cost budget of %d for %s: it would run for too long in Karpenter's controller; "+
			"write it as arithmetic over the variables", expr, MaxCost, v.InstanceType)
	}
	if err != nil {
		return 0, fmt.Errorf("evaluating expression %q for %s: %w", expr, v.InstanceType, err)
	}
	switch value := out.Value().(type) {
	case int64:
		return value, nil
	case float64:
		if math.IsInf(value, 0) || math.IsNaN(value) {
			return 0, fmt.Errorf("expression %q returned a non-finite value (%v) for %s", expr, value, v.InstanceType)
		}
		// Same conversion as Karpenter: a double beyond int64's range has no defined result.
		return int64(value), nil
	}
	return 0, fmt.Errorf("expression %q returned an unexpected %T for %s", expr, out.Value(), v.InstanceType)
}

// EvaluateMaxPods evaluates a maxPods expression; the result must lie within [0, MaxInt32].
// v.MaxPods should be the pods the instance type gets without maxPods (see ResolveMaxPods).
func EvaluateMaxPods(expr string, v Vars) (int64, error) {
	result, err := Evaluate(expr, v)
	if err != nil {
		return 0, err
	}
	if result < 0 || result > math.MaxInt32 {
		return 0, fmt.Errorf("maxPods expression %q evaluated to %d for %s, outside the valid range [0, %d]",
			expr, result, v.InstanceType, math.MaxInt32)
	}
	return result, nil
}

// ErrNegative is returned (wrapped) by EvaluateReserved for a negative result.
var ErrNegative = errors.New("evaluated to a negative value")

// EvaluateReserved resolves one kubeReserved or systemReserved value for an instance type. A
// value that parses as a quantity is returned unchanged; anything else is evaluated as an
// expression and written as a quantity in the resource's unit (cpu "<n>m" rounded up to 10m,
// memory "<n>Mi" rounded up to 16Mi, ephemeral-storage "<n>Gi", others bare). A negative result
// is an error wrapping ErrNegative. v.MaxPods should be the resolved pod capacity.
func EvaluateReserved(resourceName, expr string, v Vars) (string, error) {
	if !IsExpression(expr) {
		return expr, nil
	}
	result, err := Evaluate(expr, v)
	if err != nil {
		return "", err
	}
	if result < 0 {
		return "", fmt.Errorf("%s expression %q %w (%d) for %s", resourceName, expr, ErrNegative, result, v.InstanceType)
	}
	return formatReserved(resourceName, result), nil
}

// ResolveReservedMap resolves a kubeReserved or systemReserved map for an instance type the way
// Karpenter does when building it: quantities pass through; expressions are evaluated, and an
// entry whose expression fails or is negative is dropped (returned in dropped, with the reason).
// With expressions disabled (the NodeClassCEL gate off) every expression entry is dropped
// without evaluation and dropped stays nil.
func ResolveReservedMap(reserved map[string]string, v Vars, expressionsEnabled bool) (resolved map[string]string, dropped map[string]error) {
	if len(reserved) == 0 {
		return reserved, nil
	}
	resolved = make(map[string]string, len(reserved))
	for key, value := range reserved {
		if !IsExpression(value) {
			resolved[key] = value
			continue
		}
		if !expressionsEnabled {
			continue
		}
		quantity, err := EvaluateReserved(key, value, v)
		if err != nil {
			if dropped == nil {
				dropped = map[string]error{}
			}
			dropped[key] = err
			continue
		}
		resolved[key] = quantity
	}
	return resolved, dropped
}

// IsExpression tells whether a kubeReserved or systemReserved value is an expression: anything
// that doesn't parse as a resource quantity. (So "100" is a quantity, 100 cores, not an
// expression.)
func IsExpression(value string) bool {
	_, err := resource.ParseQuantity(value)
	return err != nil
}

// formatReserved writes an expression result as a quantity in the resource's unit.
func formatReserved(resourceName string, result int64) string {
	switch resourceName {
	case "cpu":
		return fmt.Sprintf("%dm", roundUp(result, cpuStepMilliCores))
	case "memory":
		return fmt.Sprintf("%dMi", roundUp(result, memoryStepMiB))
	case "ephemeral-storage":
		return fmt.Sprintf("%dGi", result)
	}
	return fmt.Sprint(result)
}

// roundUp rounds value up to a multiple of step. Zero, negatives, exact multiples, and values
// that would overflow int64 are returned as they are.
func roundUp(value, step int64) int64 {
	if step <= 1 || value <= 0 || value%step == 0 || value > math.MaxInt64-step {
		return value
	}
	return (value/step + 1) * step
}

// EvaluateForCapacity is EvaluateMaxPods for the pod-capacity engine (capacity.Settings'
// MaxPodsEval), which carries no expression language of its own.
func EvaluateForCapacity(expr string, v capacity.ExpressionVars) (int64, error) {
	return EvaluateMaxPods(expr, Vars(v))
}
