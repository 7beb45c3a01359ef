package planner

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

// A Karpenter-launched static pool at its node limit: without TerminateFirstDrift drift never
// proceeds (aws#8873), a warning naming the gate as a way out; with the gate (1.15) drift
// deletes first, the pool one node short during each replacement. With room under the limit,
// or the provider's launcher, neither.
func TestLauncherFindingsTerminateFirstDrift(t *testing.T) {
	replicas, launcher := 3, nodepool.LauncherKarpenter
	in := func(limit string) PoolInput {
		var p PoolInput
		p.Replicas, p.Launcher = &replicas, &launcher
		p.Limits = map[string]string{"nodes": limit}
		return p
	}
	summaries := func(gates []string, p PoolInput) []string {
		errs, warnings := launcherFindings(PoolFacts{FeatureGates: gates}, p)
		var out []string
		for _, f := range append(errs, warnings...) {
			out = append(out, f.Path.String()+"|"+f.Summary+"|"+f.Message)
		}
		return out
	}
	got := summaries([]string{"StaticCapacity"}, in("3"))
	if len(got) != 1 || !strings.HasPrefix(got[0], "limits[\"nodes\"]|No room to replace drifted nodes|") ||
		!strings.Contains(got[0], "aws/karpenter-provider-aws#8873") || !strings.Contains(got[0], "TerminateFirstDrift") {
		t.Errorf("at the limit, gate off: %q", got)
	}
	got = summaries([]string{"StaticCapacity", "TerminateFirstDrift"}, in("3"))
	if len(got) != 1 || !strings.HasPrefix(got[0], "limits[\"nodes\"]|Drifted nodes go before their replacements|") ||
		!strings.Contains(got[0], "one node short during each replacement") || strings.Contains(got[0], "8873") {
		t.Errorf("at the limit, gate on: %q", got)
	}
	if got := summaries([]string{"StaticCapacity", "TerminateFirstDrift=false"}, in("3")); len(got) != 1 || !strings.Contains(got[0], "No room") {
		t.Errorf("gate turned off again: %q", got)
	}
	if got := summaries([]string{"StaticCapacity", "TerminateFirstDrift"}, in("4")); len(got) != 0 {
		t.Errorf("room under the limit: %q", got)
	}
	provider := in("3")
	other := nodepool.LauncherProvider
	provider.Launcher = &other
	if got := summaries(nil, provider); len(got) != 0 {
		t.Errorf("the provider's launcher: %q", got)
	}
}
