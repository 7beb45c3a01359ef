// Ported from aws/karpenter-provider-aws v1.15.2, pkg/apis/v1/kubeletconfiguration_validation_test.go
// (Describe "ValidateKubeletConfig" and "ValidateKubeletConfig/ParseKubeletConfig invariant"):
// same inputs and subtest names, asserting in addition the field path of each problem.
package kubeletconfig

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fieldsOf lists the Field of each problem, in order.
func fieldsOf(problems []Problem) [][]string {
	out := make([][]string, 0, len(problems))
	for _, p := range problems {
		out = append(out, p.Field)
	}
	return out
}

func expectFields(t *testing.T, problems []Problem, want ...[]string) {
	t.Helper()
	if got := fieldsOf(problems); (len(got) != 0 || len(want) != 0) && !reflect.DeepEqual(got, want) {
		t.Fatalf("fields = %q, want %q\nproblems: %v", got, want, problems)
	}
}

func f(steps ...string) []string { return steps }

func TestValidateKubeletConfig(t *testing.T) {
	t.Run("should accept", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			config map[string]any
		}{
			{"an empty configuration", map[string]any{}},
			{"a nil configuration", nil},
			{"the fields Karpenter reads for scheduling", map[string]any{
				"maxPods":        110,
				"podsPerCore":    10,
				"kubeReserved":   map[string]string{"cpu": "200m", "memory": "100Mi"},
				"systemReserved": map[string]string{"ephemeral-storage": "1Gi", "pid": "1000"},
				"evictionHard":   map[string]string{"memory.available": "5%"},
			}},
			{"a field only the kubelet library knows about", map[string]any{"serializeImagePulls": false}},
			{"a nested subtree", map[string]any{"logging": map[string]any{
				"format":         "json",
				"flushFrequency": "5s",
				"options":        map[string]any{"json": map[string]any{"infoBufferSize": "100Mi", "splitStream": true}},
			}}},
			{"an eviction threshold as a quantity rather than a percentage", map[string]any{
				"evictionHard": map[string]string{"nodefs.available": "500Mi"},
			}},
			{"matching evictionSoft and evictionSoftGracePeriod", map[string]any{
				"evictionSoft":            map[string]string{"memory.available": "10%"},
				"evictionSoftGracePeriod": map[string]string{"memory.available": "1m"},
			}},
			{"imageGC thresholds in the correct order", map[string]any{
				"imageGCHighThresholdPercent": 80,
				"imageGCLowThresholdPercent":  60,
			}},
			{"zero-valued fields", map[string]any{"maxPods": 0, "podsPerCore": 0, "evictionMaxPodGracePeriod": 0}},
		} {
			t.Run(tc.name, func(t *testing.T) { expectFields(t, Validate(tc.config)) })
		}
	})
	t.Run("should accept a CEL expression for", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			config map[string]any
		}{
			{"maxPods", map[string]any{"maxPods": "vcpus * 10"}},
			{"kubeReserved", map[string]any{"kubeReserved": map[string]string{"memory": "memory * 0.1"}}},
			{"systemReserved", map[string]any{"systemReserved": map[string]string{"cpu": "vcpus * 10m"}}},
			{"maxPods alongside other fields", map[string]any{"maxPods": "vcpus * 10", "podsPerCore": 10}},
		} {
			t.Run(tc.name, func(t *testing.T) { expectFields(t, Validate(tc.config)) })
		}
	})
	t.Run("should reject", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			config map[string]any
			want   [][]string
		}{
			{"a field the kubelet library doesn't declare", map[string]any{"notAKubeletField": true}, [][]string{f("notAKubeletField")}},
			{"an unknown field nested in a subtree", map[string]any{"logging": map[string]any{"bogusLoggingField": true}}, [][]string{f("logging")}},
			{"an unknown field nested three levels deep", map[string]any{"logging": map[string]any{
				"options": map[string]any{"json": map[string]any{"nope": "x"}},
			}}, [][]string{f("logging")}},
			{"a field with the wrong type", map[string]any{"podsPerCore": "ten"}, [][]string{f("podsPerCore")}},
			{"a nested field with the wrong type", map[string]any{"logging": map[string]any{"format": 12345}}, [][]string{f("logging")}},
			{"arbitrary junk", map[string]any{"a": map[string]any{"b": []any{1, "two", true}}}, [][]string{f("a")}},
		} {
			t.Run(tc.name, func(t *testing.T) { expectFields(t, Validate(tc.config), tc.want...) })
		}
	})
	testRangesAndReservations(t)
	testEvictionMaps(t)
	testSoftEviction(t)
	testSpecificRules(t)
}

func testRangesAndReservations(t *testing.T) {
	t.Run("should reject a negative", func(t *testing.T) {
		for _, field := range []string{"maxPods", "podsPerCore", "evictionMaxPodGracePeriod"} {
			t.Run(field, func(t *testing.T) { expectFields(t, Validate(map[string]any{field: -1}), f(field)) })
		}
	})
	t.Run("should reject an out-of-range percentage for", func(t *testing.T) {
		for _, tc := range []struct {
			name, field string
			value       int
		}{
			{"imageGCHighThresholdPercent above 100", "imageGCHighThresholdPercent", 101},
			{"imageGCHighThresholdPercent below 0", "imageGCHighThresholdPercent", -1},
			{"imageGCLowThresholdPercent above 100", "imageGCLowThresholdPercent", 101},
			{"imageGCLowThresholdPercent below 0", "imageGCLowThresholdPercent", -1},
		} {
			t.Run(tc.name, func(t *testing.T) { expectFields(t, Validate(map[string]any{tc.field: tc.value}), f(tc.field)) })
		}
	})
	t.Run("should reject an unreservable resource in", func(t *testing.T) {
		for _, field := range []string{"kubeReserved", "systemReserved"} {
			t.Run(field, func(t *testing.T) {
				expectFields(t, Validate(map[string]any{field: map[string]string{"gpu": "1"}}), f(field, "gpu"))
			})
		}
	})
	t.Run("should reject a negative reservation in", func(t *testing.T) {
		for _, field := range []string{"kubeReserved", "systemReserved"} {
			t.Run(field, func(t *testing.T) {
				expectFields(t, Validate(map[string]any{field: map[string]string{"cpu": "-1"}}), f(field, "cpu"))
			})
		}
	})
}

func testEvictionMaps(t *testing.T) {
	t.Run("should reject an invalid eviction signal in", func(t *testing.T) {
		for _, tc := range []struct {
			field, value string
			want         [][]string
		}{
			{"evictionHard", "5%", [][]string{f("evictionHard", "notASignal")}},
			// evictionSoft and evictionSoftGracePeriod also lack their partner.
			{"evictionSoft", "5%", [][]string{f("evictionSoft", "notASignal"), f("evictionSoft", "notASignal")}},
			{"evictionMinimumReclaim", "500Mi", [][]string{f("evictionMinimumReclaim", "notASignal")}},
			{"evictionSoftGracePeriod", "1m", [][]string{f("evictionSoftGracePeriod", "notASignal"), f("evictionSoftGracePeriod", "notASignal")}},
		} {
			t.Run(tc.field, func(t *testing.T) {
				expectFields(t, Validate(map[string]any{tc.field: map[string]string{"notASignal": tc.value}}), tc.want...)
			})
		}
	})
	t.Run("should reject an eviction threshold that is neither a percentage nor a quantity in", func(t *testing.T) {
		for _, tc := range []struct {
			field string
			want  [][]string
		}{
			{"evictionHard", [][]string{f("evictionHard", "memory.available")}},
			{"evictionSoft", [][]string{f("evictionSoft", "memory.available"), f("evictionSoft", "memory.available")}},
			{"evictionMinimumReclaim", [][]string{f("evictionMinimumReclaim", "memory.available")}},
		} {
			t.Run(tc.field, func(t *testing.T) {
				problems := Validate(map[string]any{tc.field: map[string]string{"memory.available": "lots"}})
				expectFields(t, problems, tc.want...)
				if !strings.Contains(problems[0].Message, "must be a percentage or a resource quantity") {
					t.Fatalf("message = %q", problems[0].Message)
				}
			})
		}
	})
}

func testSoftEviction(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   [][]string
	}{
		{"should reject an evictionSoftGracePeriod that isn't a duration", map[string]any{
			"evictionSoft":            map[string]string{"memory.available": "10%"},
			"evictionSoftGracePeriod": map[string]string{"memory.available": "soon"},
		}, [][]string{f("evictionSoftGracePeriod", "memory.available")}},
		{"should reject a negative evictionSoftGracePeriod", map[string]any{
			"evictionSoft":            map[string]string{"memory.available": "10%"},
			"evictionSoftGracePeriod": map[string]string{"memory.available": "-1m"},
		}, [][]string{f("evictionSoftGracePeriod", "memory.available")}},
		{"should reject an evictionSoft threshold with no matching grace period", map[string]any{
			"evictionSoft":            map[string]string{"memory.available": "10%"},
			"evictionSoftGracePeriod": map[string]string{"nodefs.available": "1m"},
		}, [][]string{f("evictionSoft", "memory.available"), f("evictionSoftGracePeriod", "nodefs.available")}},
		{"should reject an evictionSoftGracePeriod with no matching threshold", map[string]any{
			"evictionSoftGracePeriod": map[string]string{"memory.available": "1m"},
		}, [][]string{f("evictionSoftGracePeriod", "memory.available")}},
		{"should reject evictionSoft with no evictionSoftGracePeriod at all", map[string]any{
			"evictionSoft": map[string]string{"memory.available": "10%"},
		}, [][]string{f("evictionSoft", "memory.available")}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectFields(t, Validate(tc.config), tc.want...) })
	}
}

func testSpecificRules(t *testing.T) {
	t.Run("should reject an imageGC high threshold at or below the low threshold", func(t *testing.T) {
		for _, pair := range [][2]int{{60, 80}, {70, 70}} {
			problems := Validate(map[string]any{"imageGCHighThresholdPercent": pair[0], "imageGCLowThresholdPercent": pair[1]})
			expectFields(t, problems, f("imageGCHighThresholdPercent"))
		}
	})
	t.Run("should reject a field Karpenter sets itself", func(t *testing.T) {
		problems := Validate(map[string]any{"registerWithTaints": []map[string]string{
			{"key": "example.com/dedicated", "value": "gpu", "effect": "NoSchedule"},
		}})
		expectFields(t, problems, f("registerWithTaints"))
		if !strings.Contains(problems[0].String(), "registerWithTaints") {
			t.Fatalf("problem %q doesn't name the field", problems[0])
		}
	})
	t.Run("should report every violation rather than stopping at the first", func(t *testing.T) {
		problems := Validate(map[string]any{
			"podsPerCore":  -1,
			"kubeReserved": map[string]string{"gpu": "1", "cpu": "-1"},
			"evictionHard": map[string]string{"notASignal": "5%"},
		})
		expectFields(t, problems, f("evictionHard", "notASignal"), f("kubeReserved", "cpu"), f("kubeReserved", "gpu"), f("podsPerCore"))
	})
	t.Run("should name the offending field in the error", func(t *testing.T) {
		problems := Validate(map[string]any{"notAKubeletField": true})
		expectFields(t, problems, f("notAKubeletField"))
		if !strings.Contains(problems[0].Message, "notAKubeletField") {
			t.Fatalf("message %q doesn't name the field", problems[0].Message)
		}
	})
}

// Describe "ValidateKubeletConfig/ParseKubeletConfig invariant": whatever the managed-field
// parse can't read, Validate must reject.
func TestValidateParseInvariant(t *testing.T) {
	t.Run("should reject anything ParseKubeletConfig can't decode", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			config map[string]any
			want   []string
		}{
			{"evictionSoftGracePeriod that isn't a duration", map[string]any{
				"evictionSoft":            map[string]string{"memory.available": "5%"},
				"evictionSoftGracePeriod": map[string]string{"memory.available": "5x"},
			}, f("evictionSoftGracePeriod", "memory.available")},
			{"clusterDNS as a string rather than a list", map[string]any{"clusterDNS": "10.0.0.10"}, f("clusterDNS")},
			{"maxPods as a bool", map[string]any{"maxPods": true}, f("maxPods")},
			{"podsPerCore as a string", map[string]any{"podsPerCore": "10"}, f("podsPerCore")},
			{"kubeReserved with non-string values", map[string]any{"kubeReserved": map[string]int{"cpu": 1}}, f("kubeReserved")},
			{"systemReserved with non-string values", map[string]any{"systemReserved": map[string]int{"cpu": 1}}, f("systemReserved")},
			{"evictionHard with non-string values", map[string]any{"evictionHard": map[string]int{"memory.available": 5}}, f("evictionHard")},
			{"evictionSoft with non-string values", map[string]any{"evictionSoft": map[string]int{"memory.available": 5}}, f("evictionSoft")},
			{"evictionMaxPodGracePeriod as a string", map[string]any{"evictionMaxPodGracePeriod": "30"}, f("evictionMaxPodGracePeriod")},
			{"imageGCHighThresholdPercent as a string", map[string]any{"imageGCHighThresholdPercent": "80"}, f("imageGCHighThresholdPercent")},
			{"imageGCLowThresholdPercent as a string", map[string]any{"imageGCLowThresholdPercent": "70"}, f("imageGCLowThresholdPercent")},
			{"cpuCFSQuota as a string", map[string]any{"cpuCFSQuota": "true"}, f("cpuCFSQuota")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := parseManaged(tc.config); err == nil {
					t.Fatal("input no longer fails the managed-field parse, so it no longer covers the invariant")
				}
				expectFields(t, Validate(tc.config), tc.want)
			})
		}
	})
	t.Run("should have an entry above for every field of ParsedKubeletConfig", func(t *testing.T) {
		covered := []string{
			"clusterDNS", "cpuCFSQuota", "evictionHard", "evictionMaxPodGracePeriod", "evictionSoft",
			"evictionSoftGracePeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent",
			"kubeReserved", "maxPods", "podsPerCore", "systemReserved",
		}
		slices.Sort(covered)
		if !slices.Equal(ManagedFields, covered) {
			t.Fatalf("ManagedFields = %v, want %v", ManagedFields, covered)
		}
	})
}

// Beyond upstream: the messages and placement of decode problems.
func TestDecodeMessages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		want   []Problem
	}{
		{"a near-miss field name gets a suggestion", map[string]any{"serializeImagePull": false}, []Problem{{
			Field:   f("serializeImagePull"),
			Message: `unknown field "serializeImagePull" (not a KubeletConfiguration v1beta1 field; did you mean "serializeImagePulls"?)`,
		}}},
		{"a wrongly cased field name gets a suggestion", map[string]any{"MaxPods": 10}, []Problem{{
			Field:   f("MaxPods"),
			Message: `unknown field "MaxPods" (not a KubeletConfiguration v1beta1 field; did you mean "maxPods"?)`,
		}}},
		{"a nested near-miss is suggested within its struct", map[string]any{"logging": map[string]any{"formt": "json"}}, []Problem{{
			Field:   f("logging"),
			Message: `unknown field "logging.formt" (not a KubeletConfiguration v1beta1 field; did you mean "logging.format"?)`,
		}}},
		{"a far-off name gets no suggestion", map[string]any{"notAKubeletField": true}, []Problem{{
			Field:   f("notAKubeletField"),
			Message: `unknown field "notAKubeletField" (not a KubeletConfiguration v1beta1 field)`,
		}}},
		{"a wrong type names the expected type", map[string]any{"serializeImagePulls": "no"}, []Problem{{
			Field:   f("serializeImagePulls"),
			Message: "got a string where KubeletConfiguration v1beta1 expects a boolean",
		}}},
		{"a nested wrong type names the nested path", map[string]any{"logging": map[string]any{"format": 12345}}, []Problem{{
			Field:   f("logging"),
			Message: "logging.format: got a number where KubeletConfiguration v1beta1 expects a string",
		}}},
		{"a fraction for an integer", map[string]any{"maxPods": 1.5}, []Problem{{
			Field:   f("maxPods"),
			Message: "got number 1.5 where KubeletConfiguration v1beta1 expects an integer (int32)",
		}}},
		{"a bad duration lands on its key", map[string]any{"shutdownGracePeriod": "5x"}, []Problem{{
			Field:   f("shutdownGracePeriod"),
			Message: `invalid value: time: unknown unit "x" in duration "5x"`,
		}}},
		{"a top-level key holding a dot stays whole", map[string]any{"memory.available": "1Gi"}, []Problem{{
			Field:   f("memory.available"),
			Message: `unknown field "memory.available" (not a KubeletConfiguration v1beta1 field)`,
		}}},
		{"an element of a list of structs", map[string]any{"registerWithTaints": []any{map[string]any{"key": "a", "efect": "NoSchedule"}}}, []Problem{
			{Field: f("registerWithTaints"), Message: `unknown field "registerWithTaints[0].efect" (not a KubeletConfiguration v1beta1 field; did you mean "registerWithTaints[0].effect"?)`},
			{Field: f("registerWithTaints"), Message: "can't be set, " + ownedFields["registerWithTaints"]},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Validate(tc.config); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Validate = %#v\nwant %#v", got, tc.want)
			}
		})
	}
	t.Run("a wrong type doesn't hide other decode problems", func(t *testing.T) {
		problems := Validate(map[string]any{"podsPerCore": "ten", "serializeImagePull": true, "cpuCFSQuota": "yes"})
		expectFields(t, problems, f("cpuCFSQuota"), f("podsPerCore"), f("serializeImagePull"))
	})
	t.Run("a null maxPods is read as a string and skipped", func(t *testing.T) {
		expectFields(t, Validate(map[string]any{"maxPods": nil}))
	})
	t.Run("Path renders map keys in brackets", func(t *testing.T) {
		p := Problem{Field: f("evictionHard", "memory.available"), Message: "m"}
		if got := p.String(); got != "spec.kubelet.evictionHard[memory.available]: m" {
			t.Fatalf("String() = %q", got)
		}
	})
}

// Karpenter v1.15.2 builds against k8s.io/kubelet v0.37.0; the three top-level fields it has
// beyond v0.34.2 are accepted and type-checked.
func TestKubeletV037Fields(t *testing.T) {
	t.Run("accepted", func(t *testing.T) {
		expectFields(t, Validate(map[string]any{
			"tlsCurvePreferences":     []int{23, 29},
			"defaultPodSysctls":       map[string]string{"net.ipv4.ip_local_port_range": "1024 65535"},
			"memoryReservationPolicy": "None",
		}))
	})
	t.Run("type-checked", func(t *testing.T) {
		expectFields(t, Validate(map[string]any{"tlsCurvePreferences": "x", "defaultPodSysctls": []string{"a"}}),
			f("defaultPodSysctls"), f("tlsCurvePreferences"))
	})
	t.Run("suggested", func(t *testing.T) {
		problems := Validate(map[string]any{"tlsCurvePreference": []int{23}})
		if len(problems) != 1 || !strings.Contains(problems[0].Message, `did you mean "tlsCurvePreferences"`) {
			t.Fatalf("problems = %v", problems)
		}
	})
}
