package planner

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

var pathSpread = attrpath.Of("spread")

// spread renders a Karpenter-launched static pool as one NodePool per zone it launches in, the
// zones the provider's own launcher spreads over (nodepool.ZoneSpecs), each admitted as the
// pool's own manifest is; nil, with the findings, when one is refused. A zone whose free IPs hold
// fewer nodes of the pool's hungriest type than its share is a warning.
func (res *PoolResult) spread(ports PoolPorts, in PoolInput, p launchplan.Plan) map[string]string {
	zones := make([]string, len(p.Zones)) // the zones the provider's own launcher spreads over
	for i, z := range p.Zones {
		zones[i] = z.Zone
	}
	room := map[string]int{}
	for _, c := range p.Capacity {
		room[c.Zone] = c.NodesByIPs
	}
	specs := nodepool.ZoneSpecs(in.Spec(), zones)
	if len(specs) == 0 {
		res.Errors = append(res.Errors, attrpath.Finding{Summary: "No zone to spread over", Path: pathSpread,
			Message: "the pool launches in no zone, so there is no NodePool to render per zone"})
		return nil
	}
	res.Warnings = append(res.Warnings, spreadOverCap(in, specs)...)
	out := make(map[string]string, len(specs))
	for _, z := range specs {
		doc, err := in.poolManifest(z.Spec)
		if err != nil {
			res.fail("Cannot render the NodePool manifest of zone "+z.Zone, err)
			return nil
		}
		if !res.admit(ports, doc) {
			return nil
		}
		out[z.Zone] = doc
		if n := *z.Spec.Replicas; n > room[z.Zone] {
			res.Warnings = append(res.Warnings, attrpath.Finding{Summary: "Zone too small for its replicas", Path: pathSpread,
				Message: fmt.Sprintf("NodePool %s asks for %d nodes in %s, whose free IPs address %d of the pool's types: Karpenter "+
					"may keep launching there while the extra NodeClaims never become nodes. Lower replicas or add subnets in that zone",
					z.Spec.Name, n, z.Zone, room[z.Zone])})
		}
	}
	return out
}

// spreadOverCap warns when the zones' NodePools together allow more nodes than limits.nodes:
// with fewer headroom nodes (limits.nodes above replicas) than zones, each zone still keeps one
// (nodepool.ZoneSpecs), so three zones of a pool with replicas 3 and nodes 4 allow 6 between them.
// Karpenter caps each NodePool alone.
func spreadOverCap(in PoolInput, specs []nodepool.ZoneSpec) []attrpath.Finding {
	limit, ok := nodepool.NodeLimit(in.Limits)
	if !ok {
		return nil
	}
	total := 0
	for _, z := range specs {
		n, _ := nodepool.NodeLimit(z.Spec.Limits)
		total += n
	}
	if total <= limit {
		return nil
	}
	replicas := 0
	if in.Replicas != nil {
		replicas = *in.Replicas
	}
	why := fmt.Sprintf("limits.nodes = %d leaves a headroom of %d above replicas = %d for %d zones, so each zone's cap is its "+
		"replicas plus one node of headroom to replace a drifted node", limit, limit-replicas, replicas, len(specs))
	if limit <= replicas {
		why = fmt.Sprintf("limits.nodes = %d is below replicas = %d, and each zone's cap is its replicas", limit, replicas)
	}
	return []attrpath.Finding{{Summary: "Zones allow more nodes than limits.nodes", Path: pathLimits.Key("nodes"),
		Message: fmt.Sprintf("spread = \"zones\" renders %d NodePools whose limits.nodes sum to limits.nodes when it can: %s. "+
			"Together they allow %d nodes, above limits.nodes = %d. Karpenter caps each NodePool alone, so during replacements "+
			"the pool can run %d nodes. Raise limits.nodes to %d to say so, or spread over fewer zones",
			len(specs), why, total, limit, total, total)}}
}
