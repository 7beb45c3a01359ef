package nodepool

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// TestZoneSpecs: replicas and the drift headroom split over the zones as the provider's
// launcher spreads nodes, the zone requirement narrowed per NodePool, none for a zone without a
// replica.
func TestZoneSpecs(t *testing.T) {
	five, launcher := 5, LauncherKarpenter
	s := Spec{Name: "static", Replicas: &five, Launcher: &launcher, Limits: map[string]string{"nodes": "8"},
		Requirements: []requirements.Requirement{{Key: zoneKey, Operator: requirements.OpIn, Values: []string{"a", "b", "c"}},
			{Key: "karpenter.sh/capacity-type", Operator: requirements.OpIn, Values: []string{"on-demand"}}}}
	got := ZoneSpecs(s, []string{"a", "b", "c"})
	want := []struct {
		name       string
		replicas   int
		nodes      string
		zoneValues string
	}{{"static-a", 2, "3", "a"}, {"static-b", 2, "3", "b"}, {"static-c", 1, "2", "c"}}
	if len(got) != len(want) {
		t.Fatalf("got %d NodePools, want %d", len(got), len(want))
	}
	for i, w := range want {
		z := got[i].Spec
		last := z.Requirements[len(z.Requirements)-1]
		if z.Name != w.name || *z.Replicas != w.replicas || z.Limits["nodes"] != w.nodes || len(z.Requirements) != 2 ||
			last.Key != zoneKey || len(last.Values) != 1 || last.Values[0] != w.zoneValues {
			t.Errorf("zone %d: %s replicas %d limits %v requirements %+v", i, z.Name, *z.Replicas, z.Limits, z.Requirements)
		}
	}
	if s.Limits["nodes"] != "8" || len(s.Requirements) != 2 || len(s.Requirements[0].Values) != 3 {
		t.Errorf("the pool's own spec changed: %+v", s)
	}
	one := 1
	s.Replicas, s.Limits = &one, nil
	if got := ZoneSpecs(s, []string{"a", "b", "c"}); len(got) != 1 || got[0].Zone != "a" || got[0].Spec.Limits != nil {
		t.Errorf("one replica over three zones: %+v", got)
	}
}

// TestSpreadNeedsKarpenterLauncher: spread is refused on its attribute for a dynamic pool and for
// the provider's launcher.
func TestSpreadNeedsKarpenterLauncher(t *testing.T) {
	three, provider, zones := 3, LauncherProvider, SpreadZones
	for _, s := range []Spec{{Spread: &zones}, {Replicas: &three, Spread: &zones}, {Replicas: &three, Launcher: &provider, Spread: &zones}} {
		if ps := launcherProblems(s); len(ps) != 1 || ps[0].Path.String() != "spread" {
			t.Errorf("%+v: %+v", s, ps)
		}
	}
}
