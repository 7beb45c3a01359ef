// Ported from aws/karpenter-provider-aws v1.15.2, pkg/controllers/nodeclass/validation_test.go,
// Context "Kubelet Field AMI Family Support" (validateKubeletFieldsSupported in
// pkg/controllers/nodeclass/validation.go; family flags from pkg/providers/amifamily): same
// families, inputs and subtest names, asserting the field path of each problem and, through
// Check, the UnsupportedKubeletConfiguration reason.
package kubeletconfig

import (
	"strings"
	"testing"
)

func TestKubeletFieldAMIFamilySupport(t *testing.T) {
	twoDNS := map[string]any{"clusterDNS": []string{"10.0.0.10", "10.0.0.11"}}
	for _, tc := range []struct {
		name, family string
		config       map[string]any
		want         []string
	}{
		{"passthrough field on Bottlerocket", FamilyBottlerocket, map[string]any{"registryPullQPS": 10}, f("registryPullQPS")},
		{"passthrough field on Windows", FamilyWindows2022, map[string]any{"registryPullQPS": 10}, f("registryPullQPS")},
		{"podsPerCore on Bottlerocket", FamilyBottlerocket, map[string]any{"podsPerCore": 10}, f("podsPerCore")},
		{"multiple clusterDNS entries on AL2", FamilyAL2, twoDNS, f("clusterDNS")},
		{"multiple clusterDNS entries on Bottlerocket", FamilyBottlerocket, twoDNS, f("clusterDNS")},
		{"multiple clusterDNS entries on Windows", FamilyWindows2022, twoDNS, f("clusterDNS")},
	} {
		t.Run("should reject a kubelet field the AMI family won't apply/"+tc.name, func(t *testing.T) {
			expectFields(t, FamilyProblems(tc.family, tc.config), tc.want)
			expectCheck(t, tc.family, tc.config, true, ReasonUnsupportedForFamily, tc.want)
		})
	}
	for _, tc := range []struct {
		name, family string
		config       map[string]any
	}{
		{"should accept multiple clusterDNS entries on AL2023, which renders the whole list", FamilyAL2023, twoDNS},
		{"should accept a single clusterDNS entry on a family that applies only one", FamilyBottlerocket, map[string]any{"clusterDNS": []string{"10.0.0.10"}}},
		{"should accept a passthrough field on AL2023, which renders the raw config through", FamilyAL2023, map[string]any{"registryPullQPS": 10}},
		{"should accept podsPerCore on AL2023", FamilyAL2023, map[string]any{"podsPerCore": 10}},
		{"shouldn't flag fields the AMI family does apply", FamilyBottlerocket, map[string]any{"maxPods": 110, "kubeReserved": map[string]string{"cpu": "100m"}}},
		{"should exempt the Custom AMI family, which owns its own userdata", FamilyCustom, map[string]any{"registryPullQPS": 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectFields(t, FamilyProblems(tc.family, tc.config))
			expectCheck(t, tc.family, tc.config, true, "")
		})
	}
}

// Beyond upstream: the per-family flags and several problems at once.
func TestFamilyProblemsDetails(t *testing.T) {
	t.Run("podsPerCore is applied by AL2 and Windows", func(t *testing.T) {
		for _, family := range []string{FamilyAL2, FamilyWindows2019, FamilyWindows2022, FamilyWindows2025} {
			expectFields(t, FamilyProblems(family, map[string]any{"podsPerCore": 10}))
		}
	})
	t.Run("every managed field is applied by every family", func(t *testing.T) {
		config := map[string]any{
			"clusterDNS": []string{"10.0.0.10"}, "maxPods": 110, "systemReserved": map[string]string{"cpu": "1"},
			"kubeReserved": map[string]string{"cpu": "1"}, "evictionHard": map[string]string{"memory.available": "5%"},
			"evictionSoft": map[string]string{"memory.available": "10%"}, "evictionSoftGracePeriod": map[string]string{"memory.available": "1m"},
			"evictionMaxPodGracePeriod": 30, "imageGCHighThresholdPercent": 80, "imageGCLowThresholdPercent": 60, "cpuCFSQuota": true,
		}
		for _, family := range Families {
			expectFields(t, FamilyProblems(family, config))
		}
	})
	t.Run("all dropped fields are listed sorted, then clusterDNS", func(t *testing.T) {
		config := map[string]any{"serializeImagePulls": false, "podsPerCore": 2, "containerLogMaxSize": "10Mi", "clusterDNS": []string{"a", "b"}}
		problems := FamilyProblems(FamilyBottlerocket, config)
		expectFields(t, problems, f("containerLogMaxSize"), f("podsPerCore"), f("serializeImagePulls"), f("clusterDNS"))
		if !strings.Contains(problems[3].Message, "2 were set") {
			t.Fatalf("clusterDNS message %q", problems[3].Message)
		}
	})
	t.Run("an unknown family is treated as AL2", func(t *testing.T) {
		expectFields(t, FamilyProblems("Ubuntu", map[string]any{"registryPullQPS": 10}), f("registryPullQPS"))
	})
	t.Run("a null podsPerCore isn't flagged", func(t *testing.T) {
		expectFields(t, FamilyProblems(FamilyBottlerocket, map[string]any{"podsPerCore": nil}))
	})
}
