package kubeletconfig

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// defaultPodsWithoutENILimit is the pod count of a family without ENI-limited pod density
// (Windows) when maxPods is unset.
const defaultPodsWithoutENILimit = 110

// Instance is what per instance type evaluation needs to know about an instance type. The
// caller fills it from its own catalog.
type Instance struct {
	// Name is the instance type, e.g. "m5.large" (instance_type).
	Name string
	// VCPUs is the default vCPU count (vcpus).
	VCPUs int64
	// MemoryMiB is the memory EC2 reports (memory_mib).
	MemoryMiB int64
	// DefaultENIs is MaximumNetworkInterfaces of the default network card (default_enis).
	DefaultENIs int64
	// IPsPerENI is Ipv4AddressesPerInterface (ips_per_eni).
	IPsPerENI int64
	// ENILimitedPods is Karpenter's ENILimitedPods for this instance type and NodeClass: the
	// usable ENIs (DefaultENIs minus --reserved-enis minus EFA-only interfaces on network card 0,
	// floored at 0) × (IPsPerENI − 1) + 2, or 0 when no ENI is usable.
	ENILimitedPods int64
}

// Pods is Karpenter's pod capacity for an instance type (instancetype.pods): maxPods when set,
// else the family default (ENILimitedPods, or 110 on Windows), then capped at
// podsPerCore × vCPUs when podsPerCore > 0 and the family honours it (not Bottlerocket).
func Pods(family string, inst Instance, maxPods, podsPerCore *int32) int64 {
	flags := flagsFor(family)
	var count int64
	switch {
	case maxPods != nil:
		count = int64(*maxPods)
	case flags.eniLimitedPods:
		count = inst.ENILimitedPods
	default:
		count = defaultPodsWithoutENILimit
	}
	if podsPerCore != nil && *podsPerCore > 0 && flags.podsPerCore {
		count = min(count, int64(*podsPerCore)*inst.VCPUs)
	}
	return count
}

// MaxPods is the outcome of ResolveMaxPods for one instance type.
type MaxPods struct {
	// Value is what resolveMaxPods returns: the integer maxPods, the maxPods expression's result,
	// or nil when maxPods is unset or is an expression while expressions are disabled (the family
	// default applies).
	Value *int32
	// Pods is the instance type's pod capacity, Pods(family, inst, Value, podsPerCore). It is what
	// Karpenter schedules with and, when maxPods isn't a literal, the maxPods it writes into the
	// node's bootstrap.
	Pods int64
	// ReservedVars are the variables kubeReserved and systemReserved expressions see.
	ReservedVars Vars
}

// ResolveMaxPods resolves maxPods for one instance type the way Karpenter's instance type
// resolver does (resolveMaxPods, then buildCELVars for the reserved maps):
//
//   - A maxPods expression sees max_pods = Pods(family, inst, nil, podsPerCore), the pods the
//     instance type would get with maxPods unset (the family default, capped by podsPerCore); it
//     can't see its own result. Its result must lie within [0, MaxInt32].
//   - kubeReserved and systemReserved expressions see max_pods = Pods(family, inst, Value,
//     podsPerCore): the resolved maxPods (or the default), capped by podsPerCore. This is the
//     same number as the instance type's pod capacity.
//   - In both, default_enis and ips_per_eni are the instance type's raw EC2 values
//     (inst.DefaultENIs, inst.IPsPerENI), not reduced by reserved or EFA-only ENIs; vcpus,
//     memory_mib and instance_type come from inst.
//
// With expressions disabled (the NodeClassCEL gate off) a maxPods expression is ignored and
// Value is nil. An error means the config doesn't parse or the expression fails.
func ResolveMaxPods(family string, config map[string]any, inst Instance, expressionsEnabled bool) (MaxPods, error) {
	parsed, err := parseManaged(config)
	if err != nil {
		return MaxPods{}, fmt.Errorf("parsing spec.kubelet: %w", err)
	}
	return resolveMaxPods(family, parsed, inst, expressionsEnabled)
}

func resolveMaxPods(family string, parsed *managed, inst Instance, expressionsEnabled bool) (MaxPods, error) {
	var value *int32
	switch {
	case parsed.MaxPods == nil:
	case parsed.MaxPods.Type != intstr.String:
		literal := parsed.MaxPods.IntVal
		value = &literal
	case expressionsEnabled:
		vars := inst.vars(Pods(family, inst, nil, parsed.PodsPerCore))
		result, err := EvaluateMaxPods(parsed.MaxPods.StrVal, vars)
		if err != nil {
			return MaxPods{}, err
		}
		evaluated := int32(result)
		value = &evaluated
	}
	pods := Pods(family, inst, value, parsed.PodsPerCore)
	return MaxPods{Value: value, Pods: pods, ReservedVars: inst.vars(pods)}, nil
}

func (inst Instance) vars(maxPods int64) Vars {
	return Vars{
		VCPUs:        inst.VCPUs,
		MemoryMiB:    inst.MemoryMiB,
		DefaultENIs:  inst.DefaultENIs,
		IPsPerENI:    inst.IPsPerENI,
		MaxPods:      maxPods,
		InstanceType: inst.Name,
	}
}

// InstanceProblems evaluates every expression in spec.kubelet for one instance type, as the
// validation controller does for every instance type it knows (ValidateKubeletExpressions, with
// the NodeClassCEL gate on; with it off the NodeClass was already refused by GateProblems). A
// failing maxPods expression is reported alone, since the reserved expressions depend on it;
// otherwise each reserved expression that fails or is negative is reported. Karpenter stops at
// the first problem over all instance types; the reason it sets is ReasonExpressionEvalFailed.
func InstanceProblems(family string, config map[string]any, inst Instance) []Problem {
	parsed, err := parseManaged(config)
	if err != nil {
		return nil
	}
	found := parsed.expressions()
	if len(found) == 0 {
		return nil
	}
	resolved, err := resolveMaxPods(family, parsed, inst, true)
	if err != nil {
		return []Problem{{Field: []string{"maxPods"}, Message: err.Error()}}
	}
	var problems []Problem
	for _, e := range found {
		if e.Field[0] == "maxPods" {
			continue
		}
		if _, err := EvaluateReserved(e.Field[1], e.Message, resolved.ReservedVars); err != nil {
			problems = append(problems, Problem{Field: e.Field, Message: err.Error()})
		}
	}
	return problems
}
