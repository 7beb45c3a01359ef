// Ported from aws/karpenter-provider-aws v1.15.2, pkg/cel/environment_test.go (Describes
// "EvaluateExpression", "EvaluateExpression across instance type sizes", "max and min
// overloads", "ResolveResourceMap", "ValidateExpression" and "concurrent use of the compilation
// cache"): same inputs, expected numbers and subtest names. EvaluateExpression is Evaluate here,
// ResolveResourceMap is ResolveReservedMap, ValidateExpression is Compile.
package kubeletconfig

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

func mustEvaluate(t *testing.T, expr string, v Vars) int64 {
	t.Helper()
	got, err := Evaluate(expr, v)
	if err != nil {
		t.Fatalf("Evaluate(%q): %v", expr, err)
	}
	return got
}

func TestEvaluateExpression(t *testing.T) {
	m5large := Vars{VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 20}
	big := Vars{VCPUs: 16, MemoryMiB: 65536, DefaultENIs: 8, IPsPerENI: 30, MaxPods: 58}
	small := Vars{VCPUs: 4, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 20}
	for _, tc := range []struct {
		name string
		expr string
		vars Vars
		want int64
	}{
		{"should evaluate the ENI formula", "((default_enis - 1) * (ips_per_eni - 1)) + 2", m5large, 20},
		{"should evaluate prefix delegation with min", "min(250, ((default_enis - 1) * (ips_per_eni - 1)) * 16 + 2)", m5large, 250},
		{"should evaluate the kube-reserved CPU formula", "max(60, vcpus * 30)", big, 480},
		{"should evaluate the kube-reserved memory formula", "11 * max_pods + 255", big, 11*58 + 255},
		{"should evaluate min against max_pods", "min(110, max_pods)", small, 20},
		{"should evaluate max with mixed int and double args", "max(vcpus, 60.5)", small, 60},
		{"should evaluate min with mixed double and int args", "min(110.5, max_pods)", small, 20},
		{"should return a negative result without erroring (dropping is handled by ResolveResourceMap)", "vcpus - 100", m5large, -98},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustEvaluate(t, tc.expr, tc.vars); got != tc.want {
				t.Fatalf("Evaluate(%q) = %d, want %d", tc.expr, got, tc.want)
			}
		})
	}
	t.Run("should evaluate an expression that uses instance_type", func(t *testing.T) {
		v := small
		v.InstanceType = "m5.large"
		const expr = `instance_type == "m5.large" ? vcpus * 2 : vcpus`
		if got := mustEvaluate(t, expr, v); got != 8 {
			t.Fatalf("m5.large: got %d, want 8", got)
		}
		v.InstanceType = "c5.xlarge"
		if got := mustEvaluate(t, expr, v); got != 4 {
			t.Fatalf("c5.xlarge: got %d, want 4", got)
		}
	})
	for _, tc := range []struct{ name, expr string }{
		{"should error on integer division by zero", "100 / (vcpus - vcpus)"},
		{"should error on integer modulo by zero", "100 % (vcpus - vcpus)"},
		{"should error on double division by zero (+Inf is non-finite)", "100.0 / 0.0"},
		{"should error on a NaN result", "0.0 / 0.0"},
		{"should error on int64 overflow", "9223372036854775807 + vcpus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Evaluate(tc.expr, m5large); err == nil {
				t.Fatalf("Evaluate(%q) = %d, want an error", tc.expr, got)
			}
		})
	}
}

func TestEvaluateExpressionAcrossInstanceTypeSizes(t *testing.T) {
	const (
		maxPodsExpr        = "min(110, default_enis * (ips_per_eni - 1))"
		kubeReservedMem    = "max_pods * 11"
		systemReservedMem  = "memory_mib / 100"
		kubeReservedCPU    = "max(60, vcpus * 30)"
		systemReservedMemP = "max(100, memory_mib / 64)"
	)
	for _, v := range []Vars{
		{VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 27, InstanceType: "m5.large"},
		{VCPUs: 4, MemoryMiB: 8192, DefaultENIs: 4, IPsPerENI: 15, MaxPods: 58, InstanceType: "c5.xlarge"},
		{VCPUs: 16, MemoryMiB: 65536, DefaultENIs: 8, IPsPerENI: 30, MaxPods: 234, InstanceType: "m5.4xlarge"},
		{VCPUs: 96, MemoryMiB: 393216, DefaultENIs: 15, IPsPerENI: 50, MaxPods: 737, InstanceType: "m5.24xlarge"},
		{VCPUs: 128, MemoryMiB: 3997696, DefaultENIs: 8, IPsPerENI: 30, MaxPods: 234, InstanceType: "x1e.32xlarge"},
		{VCPUs: 448, MemoryMiB: 25165824, DefaultENIs: 15, IPsPerENI: 50, MaxPods: 737, InstanceType: "u-24tb1.metal"},
	} {
		t.Run("evaluates reserved-resource expressions without overflow or error/"+v.InstanceType, func(t *testing.T) {
			for _, expr := range []string{maxPodsExpr, kubeReservedMem, systemReservedMem, kubeReservedCPU, systemReservedMemP} {
				if got := mustEvaluate(t, expr, v); got < 0 {
					t.Fatalf("%q = %d, negative", expr, got)
				}
			}
			if got := mustEvaluate(t, systemReservedMem, v); got != v.MemoryMiB/100 {
				t.Fatalf("%q = %d, want %d", systemReservedMem, got, v.MemoryMiB/100)
			}
			if got := mustEvaluate(t, kubeReservedMem, v); got != v.MaxPods*11 {
				t.Fatalf("%q = %d, want %d", kubeReservedMem, got, v.MaxPods*11)
			}
		})
	}
}

func TestMaxAndMinOverloads(t *testing.T) {
	v := Vars{VCPUs: 4, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 20}
	for _, tc := range []struct {
		name, expr string
		want       int64
	}{
		{"max int/int", "max(3, 7)", 7},
		{"max double/double", "max(3.9, 7.9)", 7},
		{"max int/double", "max(3, 7.9)", 7},
		{"max double/int", "max(7.9, 3)", 7},
		{"min int/int", "min(3, 7)", 3},
		{"min double/double", "min(3.9, 7.9)", 3},
		{"min int/double", "min(3, 7.9)", 3},
		{"min double/int", "min(7.9, 3)", 3},
	} {
		t.Run("evaluates to the expected result/"+tc.name, func(t *testing.T) {
			if got := mustEvaluate(t, tc.expr, v); got != tc.want {
				t.Fatalf("%q = %d, want %d", tc.expr, got, tc.want)
			}
		})
	}
}

func TestResolveResourceMap(t *testing.T) {
	v := Vars{VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 20, InstanceType: "m5.large"}
	for _, tc := range []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"should pass through values that are already valid resource quantities", map[string]string{"cpu": "100m", "memory": "256Mi"}, map[string]string{"cpu": "100m", "memory": "256Mi"}},
		{"should evaluate an expression and replace it with its integer result", map[string]string{"cpu": "vcpus * 30"}, map[string]string{"cpu": "60m"}},
		{"should suffix a cpu result with m so it is interpreted as millicores", map[string]string{"cpu": "max(60, vcpus * 30)"}, map[string]string{"cpu": "60m"}},
		{"should allow a sub-core cpu reservation to be expressed", map[string]string{"cpu": "vcpus * 250"}, map[string]string{"cpu": "500m"}},
		{"should suffix memory with Mi and ephemeral-storage with Gi, leaving pid bare",
			map[string]string{"memory": "max_pods * 11", "ephemeral-storage": "1 + 1", "pid": "max_pods * 10"},
			map[string]string{"memory": "224Mi", "ephemeral-storage": "2Gi", "pid": "200"}},
		{"should express a percentage of node memory without a byte scale factor", map[string]string{"memory": "memory_mib / 100"}, map[string]string{"memory": "96Mi"}},
		{"should be exact for power-of-two divisors of node memory", map[string]string{"memory": "memory_mib / 64"}, map[string]string{"memory": "128Mi"}},
		{"should round a cpu result up to the next 10m", map[string]string{"cpu": "70 + vcpus"}, map[string]string{"cpu": "80m"}},
		{"should leave a cpu result that is already a multiple of 10m unchanged", map[string]string{"cpu": "vcpus * 30"}, map[string]string{"cpu": "60m"}},
		{"should round up rather than down, so a reservation is never smaller than requested", map[string]string{"cpu": "60 + vcpus - 1"}, map[string]string{"cpu": "70m"}},
		{"should round a memory result up to the next 16Mi", map[string]string{"memory": "max_pods + vcpus"}, map[string]string{"memory": "32Mi"}},
		{"should not round a zero result up to the granularity", map[string]string{"cpu": "vcpus - vcpus", "memory": "vcpus - vcpus"}, map[string]string{"cpu": "0m", "memory": "0Mi"}},
		{"should not round pid or ephemeral-storage", map[string]string{"pid": "70 + vcpus - 1", "ephemeral-storage": "vcpus + 1"}, map[string]string{"pid": "71", "ephemeral-storage": "3Gi"}},
		{"should drop entries whose expression evaluates to a negative value", map[string]string{"cpu": "vcpus - 100"}, map[string]string{}},
		{"should drop entries whose expression errors (e.g. division by zero)", map[string]string{"cpu": "100 / (vcpus - vcpus)"}, map[string]string{}},
		{"should keep valid entries while dropping invalid ones",
			map[string]string{"good": "vcpus * 30", "negative": "vcpus - 100", "literal": "128Mi"},
			map[string]string{"good": "60", "literal": "128Mi"}},
		{"should keep an entry that evaluates to zero (only negatives are dropped)", map[string]string{"cpu": "vcpus - vcpus"}, map[string]string{"cpu": "0m"}},
		{"should truncate a double-returning expression to its integer string", map[string]string{"memory": "double(memory_mib) * 0.5"}, map[string]string{"memory": "4096Mi"}},
		{"should return an empty map unchanged without invoking varsFn", map[string]string{}, map[string]string{}},
		{"should return a nil map unchanged without invoking varsFn", nil, nil},
		{"should not invoke varsFn when the map contains only literal quantities", map[string]string{"cpu": "100m", "memory": "256Mi"}, map[string]string{"cpu": "100m", "memory": "256Mi"}},
		{"should invoke varsFn exactly once even with multiple expressions", map[string]string{"cpu": "vcpus * 30", "memory": "max_pods * 11"}, map[string]string{"cpu": "60m", "memory": "224Mi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := ResolveReservedMap(tc.in, v, true)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ResolveReservedMap(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	testResolvedQuantities(t, v)
}

// testResolvedQuantities holds the ResolveResourceMap specs that also parse the result.
func testResolvedQuantities(t *testing.T, v Vars) {
	for _, tc := range []struct {
		name, resource, expr string
		check                func(resource.Quantity) bool
	}{
		{"should suffix a cpu result with m so it is interpreted as millicores", "cpu", "max(60, vcpus * 30)",
			func(q resource.Quantity) bool { return q.MilliValue() == 60 }},
		{"should allow a sub-core cpu reservation to be expressed", "cpu", "vcpus * 250",
			func(q resource.Quantity) bool { return q.String() == "500m" && q.Value() == 1 }},
		{"should suffix memory with Mi and ephemeral-storage with Gi, leaving pid bare/memory", "memory", "max_pods * 11",
			func(q resource.Quantity) bool { return q.Value() == 224*1048576 }},
		{"should suffix memory with Mi and ephemeral-storage with Gi, leaving pid bare/ephemeral-storage", "ephemeral-storage", "1 + 1",
			func(q resource.Quantity) bool { return q.Value() == 2*1073741824 }},
		{"should be exact for power-of-two divisors of node memory", "memory", "memory_mib / 64",
			func(q resource.Quantity) bool { return q.Value() == 8192*1048576/64 }},
		{"should round up rather than down, so a reservation is never smaller than requested", "cpu", "60 + vcpus - 1",
			func(q resource.Quantity) bool { return q.MilliValue() >= 61 }},
		{"should not overflow into a negative quantity when rounding a near-max result", "cpu", "9223372036854775807 - vcpus + 2",
			func(q resource.Quantity) bool { return q.MilliValue() > 0 }},
	} {
		t.Run(tc.name+"/quantity", func(t *testing.T) {
			out, err := EvaluateReserved(tc.resource, tc.expr, v)
			if err != nil {
				t.Fatal(err)
			}
			q, err := resource.ParseQuantity(out)
			if err != nil || !tc.check(q) {
				t.Fatalf("EvaluateReserved(%s, %q) = %q (%v)", tc.resource, tc.expr, out, err)
			}
		})
	}
	t.Run("should collapse cpu results that differ by less than the rounding granularity", func(t *testing.T) {
		low, errLow := EvaluateReserved("cpu", "70 + vcpus - 1", v)
		high, errHigh := EvaluateReserved("cpu", "80 - vcpus", v)
		if errLow != nil || errHigh != nil || low != high || low != "80m" {
			t.Fatalf("low %q (%v), high %q (%v), want both 80m", low, errLow, high, errHigh)
		}
	})
	t.Run("a negative result is ErrNegative, and the map reports why an entry was dropped", func(t *testing.T) {
		if _, err := EvaluateReserved("cpu", "vcpus - 100", v); !errors.Is(err, ErrNegative) {
			t.Fatalf("err = %v, want ErrNegative", err)
		}
		_, dropped := ResolveReservedMap(map[string]string{"cpu": "vcpus - 100", "memory": "1 / (vcpus - vcpus)"}, v, true)
		if len(dropped) != 2 || !errors.Is(dropped["cpu"], ErrNegative) || dropped["memory"] == nil {
			t.Fatalf("dropped = %v", dropped)
		}
	})
	t.Run("with expressions disabled only quantities are kept", func(t *testing.T) {
		got, dropped := ResolveReservedMap(map[string]string{"cpu": "vcpus * 30", "memory": "256Mi"}, v, false)
		if !reflect.DeepEqual(got, map[string]string{"memory": "256Mi"}) || dropped != nil {
			t.Fatalf("got %v, dropped %v", got, dropped)
		}
	})
}

func TestValidateExpression(t *testing.T) {
	t.Run("should accept a valid expression", func(t *testing.T) {
		if err := Compile("((default_enis - 1) * (ips_per_eni - 1)) + 2"); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct{ name, expr string }{
		{"should reject invalid syntax", "((default_enis -"},
		{"should reject undefined variables", "undefined_var + 1"},
		{"should reject a boolean return type", "vcpus > 4"},
		{"should reject a string return type", "instance_type"},
		{"should reject an empty expression", ""},
		{"should reject a whitespace-only expression", "   "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Compile(tc.expr); err == nil {
				t.Fatalf("Compile(%q) succeeded", tc.expr)
			}
		})
	}
}

func TestConcurrentUseOfTheCompilationCache(t *testing.T) {
	t.Run("should evaluate the same and different expressions concurrently without races or wrong results", func(t *testing.T) {
		v := Vars{VCPUs: 4, MemoryMiB: 16384, DefaultENIs: 4, IPsPerENI: 15, MaxPods: 58, InstanceType: "c5.xlarge"}
		type check struct {
			expr string
			want int64
		}
		shared := check{"max(60, vcpus * 30)", 120}
		const goroutines, iterations = 32, 200
		errs := make(chan error, goroutines*iterations*2)
		var wg sync.WaitGroup
		for g := range goroutines {
			distinct := check{fmt.Sprintf("100 + %d", g), int64(100 + g)}
			wg.Go(func() {
				for range iterations {
					for _, c := range []check{shared, distinct} {
						got, err := Evaluate(c.expr, v)
						if err == nil && got != c.want {
							err = fmt.Errorf("%q = %d, want %d", c.expr, got, c.want)
						}
						if err != nil {
							errs <- err
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func TestRoundUp(t *testing.T) {
	for _, tc := range []struct{ value, step, want int64 }{
		{0, 10, 0}, {1, 10, 10}, {10, 10, 10}, {11, 16, 16}, {-5, 10, -5},
		{math.MaxInt64, 10, math.MaxInt64}, {math.MaxInt64 - 5, 10, math.MaxInt64 - 5},
	} {
		if got := roundUp(tc.value, tc.step); got != tc.want {
			t.Errorf("roundUp(%d, %d) = %d, want %d", tc.value, tc.step, got, tc.want)
		}
	}
}

// A runaway expression fails on the cost budget instead of running on; arithmetic is far below it.
func TestExpressionCostBudget(t *testing.T) {
	ten := "[0,1,2,3,4,5,6,7,8,9]"
	runaway := fmt.Sprintf("size(%s.map(a, %s.map(b, %s.map(c, %s.map(d, %s.map(e, %s))))))", ten, ten, ten, ten, ten, ten)
	v := Vars{VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3, IPsPerENI: 10, MaxPods: 29, InstanceType: "m5.large"}
	if err := Compile(runaway); err == nil || !strings.Contains(err.Error(), "over the CEL cost budget") {
		t.Fatalf("runaway expression: %v", err)
	}
	if got, err := Evaluate(`instance_type.startsWith("m5") ? 20 : 30`, v); err != nil || got != 20 {
		t.Errorf("a string test on instance_type: %d, %v", got, err)
	}
	if got, err := Evaluate("max(default_enis * (ips_per_eni - 1) + 2, vcpus * 8)", v); err != nil || got != 29 {
		t.Errorf("arithmetic: %d, %v", got, err)
	}
}
