package kubeletconfig

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// eval is the evaluator the engine is given wherever a spec becomes capacity settings.
var eval = EvaluateForCapacity

func network(name string, vcpus, enis, ips int) capacity.Network {
	return capacity.Network{InstanceType: name, VCPUs: vcpus, Hypervisor: capacity.HypervisorNitro,
		MaxENIs: enis, CardENIs: []int{enis}, IPv4PerENI: ips, IPv6PerENI: ips}
}

// Karpenter v1.15's maxPods expression is evaluated per type by the capacity engine with the type's numbers; it
// replaces max pods for Karpenter and the kubelet alike, and its excess over what the ENIs
// address is the same warning as a literal max_pods.
func TestComputeMaxPodsExpression(t *testing.T) {
	large := network("m5.large", 2, 3, 10)
	large.MemoryMiB = 8192
	for _, tc := range []struct {
		name, expr string
		n          capacity.Network
		want       int
		warn       bool
	}{
		{"vcpus", "vcpus * 8", large, 16, false},
		{"the ENI-limited default", "max_pods", large, 29, false},
		{"bounded", "min(max_pods, 20)", network("m5.xlarge", 4, 4, 15), 20, false},
		{"memory", "memory_mib / 512", large, 16, false},
		{"ENIs and IPs", "default_enis * (ips_per_eni - 1) + 2", large, 29, false},
		{"the type's name", "instance_type == 'm5.large' ? 17 : 5", large, 17, false},
		{"above what the ENIs address", "max_pods + 100", large, 129, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := capacity.Compute(tc.n, capacity.Settings{MaxPodsExpression: tc.expr, MaxPodsEval: eval})
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
	if _, err := capacity.Compute(large, capacity.Settings{MaxPodsExpression: "max_pods / 0", MaxPodsEval: eval}); !errors.Is(err, capacity.ErrMaxPodsExpression) || !strings.Contains(err.Error(), "m5.large") {
		t.Errorf("a failing expression: %v", err)
	}
}

// Without an evaluator the engine refuses an expression instead of ignoring it.
func TestComputeNeedsAnEvaluator(t *testing.T) {
	if _, err := capacity.Compute(network("m5.large", 2, 3, 10), capacity.Settings{MaxPodsExpression: "vcpus"}); !errors.Is(err, capacity.ErrMaxPodsExpression) {
		t.Errorf("err = %v", err)
	}
}
