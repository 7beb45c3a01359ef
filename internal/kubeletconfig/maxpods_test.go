// Ported from aws/karpenter-provider-aws v1.15.2:
//   - pkg/providers/instancetype/suite_test.go: the kubelet expression specs of the resolver
//     ("should fail resolution when the maxPods expression can't be resolved", "should resolve
//     maxPods from an expression when it evaluates in range", ...), using the m5.large and
//     t3.large figures of pkg/fake (2 vCPUs, 8192 MiB, 3 ENIs, 10 and 12 IPv4 per ENI).
//   - pkg/controllers/nodeclass/validation_test.go, Context "Kubelet Expression Validation": the
//     per instance type evaluation table and its success case, through InstanceProblems.
//
// The semantics follow resolveMaxPods, buildCELVars and pods in
// pkg/providers/instancetype/{instancetype,types}.go.
package kubeletconfig

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

var (
	m5Large = Instance{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, ENILimitedPods: 3*(10-1) + 2}
	t3Large = Instance{Name: "t3.large", VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 12, ENILimitedPods: 3*(12-1) + 2}
)

func mustResolve(t *testing.T, family string, config map[string]any, inst Instance, enabled bool) MaxPods {
	t.Helper()
	got, err := ResolveMaxPods(family, config, inst, enabled)
	if err != nil {
		t.Fatalf("ResolveMaxPods: %v", err)
	}
	return got
}

func TestInstanceTypeKubeletExpressions(t *testing.T) {
	for _, tc := range []struct{ name, maxPods string }{
		{"a negative result", "0 - 1"},
		{"a result above math.MaxInt32", fmt.Sprintf("%d + 1", int64(math.MaxInt32))},
		{"a runtime evaluation error", "1 / (vcpus - vcpus)"},
	} {
		t.Run("should fail resolution when the maxPods expression can't be resolved/"+tc.name, func(t *testing.T) {
			if got, err := ResolveMaxPods(FamilyAL2023, map[string]any{"maxPods": tc.maxPods}, m5Large, true); err == nil {
				t.Fatalf("ResolveMaxPods = %+v, want an error", got)
			}
		})
	}
	t.Run("should resolve maxPods from an expression when it evaluates in range", func(t *testing.T) {
		got := mustResolve(t, FamilyAL2023, map[string]any{"maxPods": "min(110, vcpus * 8)"}, m5Large, true)
		if got.Value == nil || *got.Value != 16 || got.Pods != 16 {
			t.Fatalf("got %+v, want 16 pods", got)
		}
	})
	t.Run("should use the default maxPods (not the expression result) when the gate is disabled", func(t *testing.T) {
		got := mustResolve(t, FamilyAL2023, map[string]any{"maxPods": "7"}, t3Large, false)
		if got.Value != nil || got.Pods != 35 {
			t.Fatalf("got %+v, want the default 35 pods", got)
		}
	})
	reservedCases(t)
}

func reservedCases(t *testing.T) {
	t.Run("should resolve kubeReserved expressions into the instance type's reserved overhead", func(t *testing.T) {
		reserved := map[string]string{"cpu": "vcpus * 30", "memory": "memory_mib / 100", "ephemeral-storage": "3Gi"}
		got := mustResolve(t, FamilyAL2023, map[string]any{"kubeReserved": reserved}, m5Large, true)
		resolved, dropped := ResolveReservedMap(reserved, got.ReservedVars, true)
		want := map[string]string{"cpu": "60m", "memory": "96Mi", "ephemeral-storage": "3Gi"}
		if fmt.Sprint(resolved) != fmt.Sprint(want) || dropped != nil {
			t.Fatalf("resolved %v (dropped %v), want %v", resolved, dropped, want)
		}
	})
	t.Run("should evaluate a max_pods reference in kubeReserved against the resolved maxPods expression", func(t *testing.T) {
		config := map[string]any{"maxPods": "min(110, vcpus * 8)", "kubeReserved": map[string]string{"memory": "max_pods * 11"}}
		got := mustResolve(t, FamilyAL2023, config, m5Large, true)
		memory, err := EvaluateReserved("memory", "max_pods * 11", got.ReservedVars)
		if err != nil || got.Pods != 16 || memory != "176Mi" {
			t.Fatalf("pods %d, memory %q (%v); want 16 and 176Mi", got.Pods, memory, err)
		}
	})
	t.Run("should resolve systemReserved expressions into the instance type's reserved overhead", func(t *testing.T) {
		reserved := map[string]string{"cpu": "vcpus * 30", "memory": "memory_mib / 100"}
		got := mustResolve(t, FamilyAL2023, map[string]any{"systemReserved": reserved}, m5Large, true)
		resolved, _ := ResolveReservedMap(reserved, got.ReservedVars, true)
		if resolved["cpu"] != "60m" || resolved["memory"] != "96Mi" {
			t.Fatalf("resolved %v", resolved)
		}
	})
}

// Context "Kubelet Expression Validation": expressions that compile but fail for an instance type.
func TestNodeClassKubeletExpressionEvaluation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"kubeReserved that evaluates to a negative value", map[string]any{"kubeReserved": map[string]string{"cpu": "0 - 1"}}, f("kubeReserved", "cpu")},
		{"systemReserved that divides by zero", map[string]any{"systemReserved": map[string]string{"memory": "1048576 / (vcpus - vcpus)"}}, f("systemReserved", "memory")},
		{"maxPods that evaluates to a negative value (out of range)", map[string]any{"maxPods": "0 - 1"}, f("maxPods")},
	} {
		t.Run("should set KubeletExpressionEvaluationFailed when an expression compiles but fails evaluation/"+tc.name, func(t *testing.T) {
			expectCheck(t, FamilyAL2023, tc.config, true, "")
			expectFields(t, InstanceProblems(FamilyAL2023, tc.config, m5Large), tc.want)
		})
	}
	t.Run("should succeed validation when all kubelet expressions are valid", func(t *testing.T) {
		config := map[string]any{
			"maxPods":        "min(110, default_enis * (ips_per_eni - 1))",
			"kubeReserved":   map[string]string{"cpu": "max(60, vcpus * 30)"},
			"systemReserved": map[string]string{"memory": "max_pods * 11"},
		}
		expectCheck(t, FamilyAL2023, config, true, "")
		for _, inst := range []Instance{m5Large, t3Large} {
			expectFields(t, InstanceProblems(FamilyAL2023, config, inst))
		}
	})
	t.Run("a failing maxPods is reported alone, and a config without expressions has nothing to evaluate", func(t *testing.T) {
		config := map[string]any{"maxPods": "1 / (vcpus - vcpus)", "kubeReserved": map[string]string{"cpu": "0 - 1"}}
		problems := InstanceProblems(FamilyAL2023, config, m5Large)
		expectFields(t, problems, f("maxPods"))
		if !strings.Contains(problems[0].Message, "m5.large") {
			t.Fatalf("message %q doesn't name the instance type", problems[0].Message)
		}
		expectFields(t, InstanceProblems(FamilyAL2023, map[string]any{"maxPods": 10}, m5Large))
	})
}

// Beyond upstream: what max_pods is bound to (buildCELVars over pods()).
func TestMaxPodsBinding(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	for _, tc := range []struct {
		name            string
		family          string
		config          map[string]any
		inst            Instance
		wantValue       *int32 // for maxPods "max_pods": what the maxPods expression sees
		wantPods        int64
		reservedMaxPods int64
	}{
		{"AL2023 default is the ENI limit", FamilyAL2023, map[string]any{"maxPods": "max_pods"}, m5Large, i32(29), 29, 29},
		{"podsPerCore caps the default the expression sees", FamilyAL2, map[string]any{"maxPods": "max_pods", "podsPerCore": 4}, m5Large, i32(8), 8, 8},
		{"podsPerCore caps the resolved value for reserved", FamilyAL2, map[string]any{"maxPods": "100", "podsPerCore": 4}, m5Large, i32(100), 8, 8},
		{"Bottlerocket ignores podsPerCore", FamilyBottlerocket, map[string]any{"maxPods": "max_pods", "podsPerCore": 4}, m5Large, i32(29), 29, 29},
		{"Windows defaults to 110", FamilyWindows2022, map[string]any{"maxPods": "max_pods"}, m5Large, i32(110), 110, 110},
		{"a literal maxPods isn't evaluated", FamilyAL2023, map[string]any{"maxPods": 50}, m5Large, i32(50), 50, 50},
		{"no maxPods leaves the default", FamilyAL2023, map[string]any{}, t3Large, nil, 35, 35},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustResolve(t, tc.family, tc.config, tc.inst, true)
			if got.Pods != tc.wantPods || got.ReservedVars.MaxPods != tc.reservedMaxPods || fmt.Sprint(deref(got.Value)) != fmt.Sprint(deref(tc.wantValue)) {
				t.Fatalf("got value %v pods %d reserved max_pods %d; want %v %d %d",
					deref(got.Value), got.Pods, got.ReservedVars.MaxPods, deref(tc.wantValue), tc.wantPods, tc.reservedMaxPods)
			}
			want := Vars{VCPUs: tc.inst.VCPUs, MemoryMiB: tc.inst.MemoryMiB, DefaultENIs: tc.inst.DefaultENIs, IPsPerENI: tc.inst.IPsPerENI, MaxPods: tc.reservedMaxPods, InstanceType: tc.inst.Name}
			if got.ReservedVars != want {
				t.Fatalf("ReservedVars = %+v, want %+v", got.ReservedVars, want)
			}
		})
	}
}

func deref(p *int32) any {
	if p == nil {
		return nil
	}
	return *p
}
