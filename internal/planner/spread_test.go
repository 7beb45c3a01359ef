package planner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

var threeZones = []string{"us-west-2a", "us-west-2b", "us-west-2c"}

// zoneSpecs are the zones' NodePools of a pool spread over threeZones, with their limits.nodes set.
func zoneSpecs(in PoolInput) []nodepool.ZoneSpec { return nodepool.ZoneSpecs(in.Spec(), threeZones) }

// The zones' limits.nodes sum to the pool's: each zone its replicas plus a share of the headroom,
// over the zones that get a NodePool; with fewer headroom nodes than zones, one each.
func TestZoneNodeLimits(t *testing.T) {
	for _, tc := range []struct {
		replicas int
		nodes    string
		want     []string
	}{
		{3, "6", []string{"2", "2", "2"}},
		{3, "10", []string{"4", "3", "3"}}, // headroom 7: 3, 2, 2
		{5, "9", []string{"4", "3", "2"}},  // replicas 2, 2, 1; headroom 4: 2, 1, 1
		{2, "6", []string{"3", "3"}},       // the third zone has no replica: its share goes to the others
		{5, "5", []string{"2", "2", "1"}},  // no headroom
		{3, "4", []string{"2", "2", "2"}},  // headroom 1 for 3 zones: one each, 6 (spreadOverCap warns)
		{7, "9", []string{"4", "3", "3"}},  // headroom 2 for 3 zones: 10
		{1, "100", []string{"100"}},        // one zone gets it all
		{4, "3", []string{"2", "1", "1"}},  // below replicas: replicas alone
	} {
		in := poolInput(&tc.replicas)
		in.Limits = map[string]string{"nodes": tc.nodes, "cpu": "100"}
		var got []string
		for _, z := range zoneSpecs(in) {
			got = append(got, z.Spec.Limits["nodes"])
			if z.Spec.Limits["cpu"] != "100" {
				t.Errorf("replicas %d nodes %s: zone %s limits %v", tc.replicas, tc.nodes, z.Zone, z.Spec.Limits)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("replicas %d nodes %s: zones' limits.nodes %v, want %v", tc.replicas, tc.nodes, got, tc.want)
		}
	}
}

// Three zones of a pool with replicas 3 and limits.nodes 4 allow 6 nodes between them (each zone
// keeps one node of headroom): a warning on limits.nodes; from 6 up the zones share the cap.
func TestSpreadOverCap(t *testing.T) {
	three := 3
	for nodes, want := range map[string]string{
		"4": "leaves a headroom of 1 above replicas = 3 for 3 zones, so each zone's cap is its replicas plus one node of headroom " +
			"to replace a drifted node. Together they allow 6 nodes, above limits.nodes = 4",
		"5": "Together they allow 6 nodes, above limits.nodes = 5", "6": "", "7": "", "10": ""} {
		in := poolInput(&three)
		in.Limits = map[string]string{"nodes": nodes}
		got := spreadOverCap(in, zoneSpecs(in))
		switch {
		case want == "" && len(got) > 0:
			t.Errorf("nodes %s: %v", nodes, got)
		case want != "" && (len(got) != 1 || got[0].Path.String() != `limits["nodes"]` || !strings.Contains(got[0].Message, want)):
			t.Errorf("nodes %s: %+v, want %q on limits[\"nodes\"]", nodes, got, want)
		}
	}
	in := poolInput(&three) // no limits.nodes: no cap to exceed
	if got := spreadOverCap(in, zoneSpecs(in)); len(got) > 0 {
		t.Errorf("without limits.nodes: %v", got)
	}
	for _, z := range zoneSpecs(in) {
		if _, set := z.Spec.Limits["nodes"]; set {
			t.Errorf("without limits.nodes, zone %s has limits %v", z.Zone, z.Spec.Limits)
		}
	}
}
