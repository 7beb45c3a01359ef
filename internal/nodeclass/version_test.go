package nodeclass

import (
	"strings"
	"testing"
)

func TestValidateForVersion(t *testing.T) {
	al2023 := func(k Kubelet) Spec {
		return Spec{AMISelectorTerms: []AMITerm{{Alias: "al2023@latest"}}, Kubelet: k}
	}
	bottlerocket := func(k Kubelet) Spec {
		return Spec{AMISelectorTerms: []AMITerm{{Alias: "bottlerocket@latest"}}, Kubelet: k}
	}
	cel := []string{"NodeClassCEL"}
	for _, tc := range []struct {
		name    string
		spec    Spec
		version string
		gates   []string
		path    string // "" : accepted
		msg     string
	}{
		{"typed fields on v1.9", al2023(Kubelet{MaxPods: new(50)}), "1.9", nil, "", ""},
		{"free-form fields before v1.15", al2023(Kubelet{Config: map[string]any{"serializeImagePulls": false}}), "1.14", nil,
			"kubelet.config", "free-form kubelet fields (serializeImagePulls) first appear in Karpenter 1.15"},
		{"an expression before v1.15", al2023(Kubelet{MaxPodsExpression: "vcpus * 8"}), "1.14", cel,
			"kubelet.max_pods_expression", "maxPods expressions first appear in Karpenter 1.15"},
		{"free-form fields on v1.15", al2023(Kubelet{Config: map[string]any{"serializeImagePulls": false, "containerLogMaxSize": "50Mi"}}), "1.15", nil, "", ""},
		{"a misspelled field", al2023(Kubelet{Config: map[string]any{"serializeImagePull": false}}), "1.15", nil,
			"kubelet.config", `did you mean "serializeImagePulls"`},
		{"a mistyped field", al2023(Kubelet{Config: map[string]any{"serializeImagePulls": "no"}}), "1.15", nil, "kubelet.config", "boolean"},
		{"a typed field in config", al2023(Kubelet{Config: map[string]any{"maxPods": int64(20)}}), "1.15", nil,
			"kubelet.config", `"maxPods" is the typed attribute kubelet.max_pods`},
		{"a field only AL2023 applies", bottlerocket(Kubelet{Config: map[string]any{"serializeImagePulls": false}}), "1.15", nil,
			"kubelet.config", "serializeImagePulls"},
		{"an owned field", al2023(Kubelet{Config: map[string]any{"registerWithTaints": []any{}}}), "1.15", nil, "kubelet.config", "registerWithTaints"},
		{"an expression without the gate", al2023(Kubelet{MaxPodsExpression: "vcpus * 8"}), "1.15", nil, "kubelet.max_pods_expression", ""},
		{"an expression with the gate", al2023(Kubelet{MaxPodsExpression: "vcpus * 8"}), "1.15", cel, "", ""},
		{"an expression that does not compile", al2023(Kubelet{MaxPodsExpression: "vcpu * 8"}), "1.15", cel, "kubelet.max_pods_expression", "vcpu"},
		{"an expression and max_pods", al2023(Kubelet{MaxPodsExpression: "vcpus * 8", MaxPods: new(20)}), "1.15", cel,
			"kubelet.max_pods_expression", "exclusive"},
		{"a reserved expression before v1.15", al2023(Kubelet{KubeReserved: map[string]string{"cpu": "vcpus * 10"}}), "1.14", cel,
			`kubelet.kube_reserved["cpu"]`, "needs Karpenter 1.15"},
		{"a reserved expression on v1.15", al2023(Kubelet{KubeReserved: map[string]string{"cpu": "vcpus * 10", "memory": "1Gi"}}), "1.15", cel, "", ""},
		{"a reserved expression without the gate", al2023(Kubelet{SystemReserved: map[string]string{"memory": "max_pods * 11"}}), "1.15", nil,
			`kubelet.system_reserved["memory"]`, ""},
		{"a bad eviction signal in the typed map", al2023(Kubelet{EvictionHard: map[string]string{"memory.free": "5%"}}), "1.15", nil,
			`kubelet.eviction_hard["memory.free"]`, "memory.free"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateForVersion(tc.spec, tc.version, tc.gates)
			if tc.path == "" {
				if len(errs) > 0 {
					t.Fatalf("refused: %v", errs)
				}
				return
			}
			if len(errs) == 0 {
				t.Fatal("accepted")
			}
			if got := errs[0].Path.String(); got != tc.path || !strings.Contains(errs[0].Message, tc.msg) {
				t.Errorf("%s: %q; want %s: %q", got, errs[0].Message, tc.path, tc.msg)
			}
		})
	}
}
