package planner

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

// Three zones of a pool with replicas 3 and limits.nodes 4 allow 6 nodes between them (each zone
// keeps one node of headroom): a warning on limits.nodes; with limits.nodes 6 they allow 6.
func TestSpreadOverCap(t *testing.T) {
	three := 3
	zones := []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	for nodes, want := range map[string]string{"4": "together they allow 6 nodes, above limits.nodes = 4", "6": "", "10": ""} {
		in := poolInput(&three)
		in.Limits = map[string]string{"nodes": nodes}
		got := spreadOverCap(in, nodepool.ZoneSpecs(in.Spec(), zones))
		switch {
		case want == "" && len(got) > 0:
			t.Errorf("nodes %s: %v", nodes, got)
		case want != "" && (len(got) != 1 || got[0].Path.String() != `limits["nodes"]` || !strings.Contains(got[0].Message, want)):
			t.Errorf("nodes %s: %+v, want %q on limits[\"nodes\"]", nodes, got, want)
		}
	}
	in := poolInput(&three) // no limits.nodes: no cap to exceed
	if got := spreadOverCap(in, nodepool.ZoneSpecs(in.Spec(), zones)); len(got) > 0 {
		t.Errorf("without limits.nodes: %v", got)
	}
}
