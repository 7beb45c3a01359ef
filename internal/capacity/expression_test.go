package capacity

import (
	"errors"
	"strings"
	"testing"
)

// Karpenter v1.15's maxPods expression is evaluated per type with the type's numbers; it
// replaces max pods for Karpenter and the kubelet alike, and its excess over what the ENIs
// address is the same warning as a literal max_pods.
func TestComputeMaxPodsExpression(t *testing.T) {
	large := m5Large()
	large.MemoryMiB = 8192
	for _, tc := range []struct {
		name, expr string
		n          Network
		want       int
		warn       bool
	}{
		{"vcpus", "vcpus * 8", large, 16, false},
		{"the ENI-limited default", "max_pods", large, 29, false},
		{"bounded", "min(max_pods, 20)", m5XLarge(), 20, false},
		{"memory", "memory_mib / 512", large, 16, false},
		{"ENIs and IPs", "default_enis * (ips_per_eni - 1) + 2", large, 29, false},
		{"the type's name", "instance_type == 'm5.large' ? 17 : 5", large, 17, false},
		{"above what the ENIs address", "max_pods + 100", large, 129, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(tc.n, Settings{MaxPodsExpression: tc.expr})
			warnings := r.Warnings
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxPods != tc.want || r.KarpenterAssumedPods != tc.want || !r.Consistent {
				t.Errorf("max pods %d, Karpenter assumes %d; want %d for both", r.MaxPods, r.KarpenterAssumedPods, tc.want)
			}
			if !strings.Contains(r.Formula, tc.expr) {
				t.Errorf("formula %q does not name the expression", r.Formula)
			}
			if got := len(warnings) > 0 && strings.Contains(strings.Join(warnings, ";"), "above the"); got != tc.warn {
				t.Errorf("warnings %v, want the addressable warning: %v", warnings, tc.warn)
			}
		})
	}
	if _, err := Compute(large, Settings{MaxPodsExpression: "max_pods / 0"}); !errors.Is(err, ErrMaxPodsExpression) || !strings.Contains(err.Error(), "m5.large") {
		t.Errorf("a failing expression: %v", err)
	}
}
