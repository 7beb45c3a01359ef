// Ported from aws/karpenter-provider-aws v1.15.2:
//   - pkg/apis/v1/kubeletconfiguration_test.go: Describes "HasExpressions",
//     "HasResourceExpressions", "ParseKubeletConfig" and "UnmanagedKubeletFields" (MaxPodsValue and
//     DeepCopy have no counterpart here).
//   - pkg/controllers/nodeclass/validation_test.go: Contexts "Kubelet Configuration Validation",
//     "Kubelet Expression Validation" (the compile-time table) and "Kubelet Expression Feature
//     Gate", asserted through Check, which returns the condition reason the controller sets.
//
// Same inputs and subtest names; the field paths of problems are asserted in addition.
package kubeletconfig

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestHasExpressions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   bool
	}{
		{"should return false for a nil configuration", nil, false},
		{"should return false for an empty configuration", map[string]any{}, false},
		{"should return false when every value is static", map[string]any{
			"maxPods":        110,
			"kubeReserved":   map[string]string{"cpu": "100m", "memory": "256Mi"},
			"systemReserved": map[string]string{"cpu": "50m", "memory": "128Mi", "ephemeral-storage": "1Gi"},
		}, false},
		{"should detect a string-typed maxPods expression", map[string]any{"maxPods": "vcpus * 10"}, true},
		{"should not treat an integer maxPods as an expression", map[string]any{"maxPods": 58}, false},
		{"should detect a kubeReserved expression", map[string]any{"kubeReserved": map[string]string{"cpu": "vcpus * 30"}}, true},
		{"should detect a systemReserved expression", map[string]any{"systemReserved": map[string]string{"memory": "max_pods * 11"}}, true},
		{"should detect an expression mixed in with static quantities", map[string]any{
			"maxPods": 110,
			"kubeReserved": map[string]string{
				"cpu":               "100m",
				"memory":            "((default_enis - 1) * (ips_per_eni - 1)) + 2",
				"ephemeral-storage": "1Gi",
			},
		}, true},
		{"should ignore fields that never hold expressions", map[string]any{
			"evictionHard": map[string]string{"memory.available": "10%"},
			"evictionSoft": map[string]string{"memory.available": "15%"},
			"podsPerCore":  10,
		}, false},
		{"a config that doesn't parse has none", map[string]any{"maxPods": "vcpus", "podsPerCore": "ten"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasExpressions(tc.config); got != tc.want {
				t.Fatalf("HasExpressions = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestHasResourceExpressions(t *testing.T) {
	t.Run("should return false for a nil configuration", func(t *testing.T) {
		if HasResourceExpressions(nil) {
			t.Fatal("true for nil")
		}
	})
	t.Run("should return false when a maxPods expression is the only expression", func(t *testing.T) {
		config := map[string]any{"maxPods": "vcpus * 10", "kubeReserved": map[string]string{"cpu": "100m"}}
		if HasResourceExpressions(config) || !HasExpressions(config) {
			t.Fatal("a maxPods expression alone needs no reserved-capacity evaluation")
		}
	})
	t.Run("should detect expressions in either reserved map", func(t *testing.T) {
		for _, field := range reservedFields {
			if !HasResourceExpressions(map[string]any{field: map[string]string{"cpu": "vcpus * 30"}}) {
				t.Fatalf("%s expression not detected", field)
			}
		}
	})
}

func TestParseKubeletConfig(t *testing.T) {
	t.Run("should return an empty struct for a nil or empty configuration", func(t *testing.T) {
		for _, config := range []map[string]any{nil, {}} {
			if parsed, err := parseManaged(config); err != nil || !reflect.DeepEqual(parsed, &managed{}) {
				t.Fatalf("parseManaged(%v) = %+v, %v", config, parsed, err)
			}
		}
	})
	t.Run("should extract every interpreted field", func(t *testing.T) {
		parsed, err := parseManaged(map[string]any{
			"clusterDNS": []string{"10.0.0.10"}, "maxPods": 110, "podsPerCore": 10,
			"systemReserved": map[string]string{"cpu": "100m"}, "kubeReserved": map[string]string{"memory": "256Mi"},
			"evictionHard": map[string]string{"memory.available": "5%"}, "evictionSoft": map[string]string{"memory.available": "10%"},
			"evictionSoftGracePeriod": map[string]string{"memory.available": "1m"}, "evictionMaxPodGracePeriod": 30,
			"imageGCHighThresholdPercent": 80, "imageGCLowThresholdPercent": 60, "cpuCFSQuota": false,
		})
		i32 := func(v int32) *int32 { return &v }
		no := false
		want := &managed{
			ClusterDNS: []string{"10.0.0.10"}, MaxPods: &intstr.IntOrString{Type: intstr.Int, IntVal: 110}, PodsPerCore: i32(10),
			SystemReserved: map[string]string{"cpu": "100m"}, KubeReserved: map[string]string{"memory": "256Mi"},
			EvictionHard: map[string]string{"memory.available": "5%"}, EvictionSoft: map[string]string{"memory.available": "10%"},
			EvictionSoftGracePeriod:   map[string]metav1.Duration{"memory.available": {Duration: time.Minute}},
			EvictionMaxPodGracePeriod: i32(30), ImageGCHighThresholdPercent: i32(80), ImageGCLowThresholdPercent: i32(60), CPUCFSQuota: &no,
		}
		if err != nil || !reflect.DeepEqual(parsed, want) {
			t.Fatalf("parseManaged = %+v, %v\nwant %+v", parsed, err, want)
		}
	})
	t.Run("should ignore passthrough fields it has no representation for", func(t *testing.T) {
		parsed, err := parseManaged(map[string]any{"serializeImagePulls": false, "topologyManagerPolicy": "best-effort"})
		if err != nil || !reflect.DeepEqual(parsed, &managed{}) {
			t.Fatalf("parseManaged = %+v, %v", parsed, err)
		}
	})
	t.Run("should keep maxPods as a string when it holds a CEL expression", func(t *testing.T) {
		parsed, err := parseManaged(map[string]any{"maxPods": "vcpus * 10"})
		if err != nil || parsed.MaxPods.Type != intstr.String || parsed.MaxPods.StrVal != "vcpus * 10" {
			t.Fatalf("parseManaged = %+v, %v", parsed, err)
		}
	})
	t.Run("should return an error for a field that doesn't decode", func(t *testing.T) {
		if _, err := parseManaged(map[string]any{"podsPerCore": "ten"}); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestUnmanagedKubeletFields(t *testing.T) {
	t.Run("should treat every field Karpenter maps as managed", func(t *testing.T) {
		config := map[string]any{}
		for _, field := range ManagedFields {
			config[field] = nil
		}
		if got := UnmanagedFields(config); len(got) != 0 {
			t.Fatalf("UnmanagedFields = %v", got)
		}
	})
	t.Run("should return passthrough fields Karpenter doesn't map, sorted", func(t *testing.T) {
		got := UnmanagedFields(map[string]any{"maxPods": 110, "serializeImagePulls": false, "registryPullQPS": 10})
		if want := []string{"registryPullQPS", "serializeImagePulls"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("UnmanagedFields = %v, want %v", got, want)
		}
	})
	t.Run("should return empty for a nil or empty configuration", func(t *testing.T) {
		if len(UnmanagedFields(nil)) != 0 || len(UnmanagedFields(map[string]any{})) != 0 {
			t.Fatal("not empty")
		}
	})
}

func expectCheck(t *testing.T, family string, config map[string]any, gate bool, wantReason string, want ...[]string) {
	t.Helper()
	reason, problems := Check(family, config, gate)
	if reason != wantReason {
		t.Fatalf("reason = %q, want %q (problems %v)", reason, wantReason, problems)
	}
	expectFields(t, problems, want...)
}

// Context "Kubelet Configuration Validation".
func TestNodeClassKubeletConfigurationValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"imageGCHighThresholdPercent less than imageGCLowThresholdPercent",
			map[string]any{"imageGCHighThresholdPercent": 10, "imageGCLowThresholdPercent": 60}, f("imageGCHighThresholdPercent")},
		{"imageGCHighThresholdPercent below 0", map[string]any{"imageGCHighThresholdPercent": -10}, f("imageGCHighThresholdPercent")},
		{"imageGCLowThresholdPercent below 0", map[string]any{"imageGCLowThresholdPercent": -10}, f("imageGCLowThresholdPercent")},
	} {
		t.Run("should set InvalidKubeletConfiguration when the kubelet config is structurally invalid/"+tc.name, func(t *testing.T) {
			expectCheck(t, FamilyAL2023, tc.config, true, ReasonInvalid, tc.want)
		})
	}
}

// Context "Kubelet Expression Validation", compile-time table, with the gate on.
func TestNodeClassKubeletExpressionValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"maxPods with a syntax error", map[string]any{"maxPods": "min(110,"}, f("maxPods")},
		{"maxPods referencing an undefined variable", map[string]any{"maxPods": "undefined_var + 1"}, f("maxPods")},
		{"maxPods with a non-numeric (boolean) return type", map[string]any{"maxPods": "vcpus > 4"}, f("maxPods")},
		{"kubeReserved with a syntax error", map[string]any{"kubeReserved": map[string]string{"cpu": "vcpus *"}}, f("kubeReserved", "cpu")},
		{"systemReserved referencing an undefined variable", map[string]any{"systemReserved": map[string]string{"memory": "bogus_var * 1048576"}}, f("systemReserved", "memory")},
	} {
		t.Run("should set KubeletExpressionInvalid when an expression fails to compile/"+tc.name, func(t *testing.T) {
			expectCheck(t, FamilyAL2023, tc.config, true, ReasonExpressionInvalid, tc.want)
		})
	}
	t.Run("every expression that fails to compile is reported", func(t *testing.T) {
		config := map[string]any{"maxPods": "vcpus >", "kubeReserved": map[string]string{"cpu": "x", "memory": "memory_mib / 100"}}
		expectCheck(t, FamilyAL2023, config, true, ReasonExpressionInvalid, f("maxPods"), f("kubeReserved", "cpu"))
	})
}

// Context "Kubelet Expression Feature Gate".
func TestNodeClassKubeletExpressionFeatureGate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"maxPods", map[string]any{"maxPods": "min(110, default_enis * (ips_per_eni - 1))"}, f("maxPods")},
		{"kubeReserved", map[string]any{"kubeReserved": map[string]string{"cpu": "max(60, vcpus * 30)"}}, f("kubeReserved", "cpu")},
		{"systemReserved", map[string]any{"systemReserved": map[string]string{"memory": "max_pods * 11"}}, f("systemReserved", "memory")},
	} {
		t.Run("should reject a NodeClass carrying an expression while the gate is disabled/"+tc.name, func(t *testing.T) {
			expectCheck(t, FamilyAL2023, tc.config, FeatureGateDefault, ReasonExpressionsDisabled, tc.want)
		})
	}
	t.Run("should not reject static kubelet values while the gate is disabled", func(t *testing.T) {
		config := map[string]any{
			"maxPods":        110,
			"kubeReserved":   map[string]string{"cpu": "100m"},
			"systemReserved": map[string]string{"memory": "100Mi"},
		}
		expectCheck(t, FamilyAL2023, config, false, "")
	})
	t.Run("should accept an expression once the gate is enabled", func(t *testing.T) {
		expectCheck(t, FamilyAL2023, map[string]any{"maxPods": "min(110, default_enis * (ips_per_eni - 1))"}, true, "")
	})
	t.Run("the gate is checked before compiling", func(t *testing.T) {
		expectCheck(t, FamilyAL2023, map[string]any{"maxPods": "vcpus >"}, false, ReasonExpressionsDisabled, f("maxPods"))
	})
	t.Run("the gate is named NodeClassCEL and is off by default", func(t *testing.T) {
		if FeatureGate != "NodeClassCEL" || FeatureGateDefault {
			t.Fatalf("gate %q default %v", FeatureGate, FeatureGateDefault)
		}
	})
}
