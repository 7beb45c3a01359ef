package launchplan

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// Limit keys that bound the number of nodes.
const (
	limitCPU    = "cpu"
	limitMemory = "memory"
	limitNodes  = "nodes"
)

const bytesPerMiB = 1 << 20

// parseLimits reads the limits that bound nodes; other resources (GPUs, ...) are left to the
// node pool's own validation.
func (b *builder) parseLimits() {
	b.limits = map[string]*big.Rat{}
	for _, k := range []string{limitCPU, limitMemory, limitNodes} {
		v, ok := b.in.Limits[k]
		if !ok {
			continue
		}
		q, err := parseQuantity(v)
		if err != nil {
			b.fail(pathLimits.Key(k), "%v", err)
			continue
		}
		b.limits[k] = q
	}
	if r := b.in.Replicas; r != nil && *r < 0 {
		b.fail(pathReplicas, "replicas must not be negative, got %d", *r)
	}
}

// nodesByLimits is the most nodes the limits allow when every node is the smallest of types:
// limits.nodes directly, cpu / the fewest vCPUs, memory / the least memory (catalog memory, not
// allocatable, so a slight undercount); the minimum of those, -1 when no limit applies.
func (b *builder) nodesByLimits(types []*eligible) int {
	best := -1
	take := func(n int) {
		if best < 0 || n < best {
			best = n
		}
	}
	if q, ok := b.limits[limitNodes]; ok {
		take(floorDiv(q, 1))
	}
	minCPU, minMiB := 0, 0
	for _, t := range types {
		if minCPU == 0 || t.it.VCPUs < minCPU {
			minCPU = t.it.VCPUs
		}
		if minMiB == 0 || t.it.MemoryMiB < minMiB {
			minMiB = t.it.MemoryMiB
		}
	}
	if q, ok := b.limits[limitCPU]; ok && minCPU > 0 {
		take(floorDiv(q, int64(minCPU)))
	}
	if q, ok := b.limits[limitMemory]; ok && minMiB > 0 {
		take(floorDiv(q, int64(minMiB)*bytesPerMiB))
	}
	return best
}

// capacity computes, per pool zone, the nodes its subnet can address over the launchable types
// offered there; and the pool-wide totals, with the nodes the limits allow.
func (b *builder) capacity(launch []*eligible) (zones []ZoneCapacity, byIPs, byLimits int) {
	custom := b.settings.CustomNetworking
	for _, z := range b.zones {
		var here []*eligible
		for _, t := range launch {
			if slices.Contains(t.zones, z.Zone) {
				here = append(here, t)
			}
		}
		zc := ZoneCapacity{
			Zone:                  z.Zone,
			AvailableIPs:          z.AvailableIPs,
			IPBasis:               IPBasisNodeSubnet,
			PodSubnetAvailableIPs: z.PodSubnetAvailableIPs,
		}
		usePod := custom && z.PodSubnetID != ""
		var hungry *eligible
		ips := func(t *eligible) int {
			if usePod {
				return t.res.PodSubnetIPsAtMaxPods
			}
			return t.res.VPCIPsAtMaxPods
		}
		for _, t := range here {
			if hungry == nil || ips(t) > ips(hungry) {
				hungry = t
			}
		}
		if hungry != nil {
			zc.HungriestType, zc.MaxPods = hungry.it.Name, hungry.res.MaxPods
			zc.IPsPerNode = max(1, hungry.res.VPCIPsAtMaxPods)
			zc.NodesByIPs = z.AvailableIPs / zc.IPsPerNode
			if usePod {
				podIPs := max(1, hungry.res.PodSubnetIPsAtMaxPods)
				if byPod := z.PodSubnetAvailableIPs / podIPs; byPod <= zc.NodesByIPs {
					zc.NodesByIPs, zc.IPsPerNode, zc.IPBasis = byPod, podIPs, IPBasisPodSubnet
				}
			}
		}
		byIPs += zc.NodesByIPs
		zones = append(zones, zc)
	}
	return zones, byIPs, b.nodesByLimits(launch)
}

// replicas are the nodes of a static pool, whoever launches them (nil for a dynamic pool).
func (b *builder) replicas() *int {
	if b.in.Replicas != nil {
		return b.in.Replicas
	}
	return b.in.KarpenterReplicas
}

// capacityWarnings warns when the limits (or replicas) allow more nodes than the pool's subnets
// can address at max pods.
func (b *builder) capacityWarnings(plan Plan) {
	var path attrpath.Path
	var what string
	var want int
	switch {
	case b.replicas() != nil:
		path, want, what = pathReplicas, *b.replicas(), fmt.Sprintf("replicas ask for %d nodes", *b.replicas())
	case plan.NodesByLimits >= 0:
		path, want, what = pathLimits, plan.NodesByLimits, fmt.Sprintf("limits allow up to %d nodes", plan.NodesByLimits)
	default:
		return
	}
	if want <= plan.NodesByIPs {
		return
	}
	// Zones whose hungriest type takes the same IPs are told together: the type once, then the
	// room per zone.
	type group struct {
		head  string
		rooms []string
	}
	var groups []*group
	byHead := map[string]*group{}
	var none []string
	for _, z := range plan.Capacity {
		if z.HungriestType == "" {
			none = append(none, z.Zone)
			continue
		}
		free := z.AvailableIPs
		if z.IPBasis == IPBasisPodSubnet {
			free = z.PodSubnetAvailableIPs
		}
		head := fmt.Sprintf("a full %s node (%d max pods) takes %d IPs of the %s", z.HungriestType, z.MaxPods, z.IPsPerNode, z.IPBasis)
		g, ok := byHead[head]
		if !ok {
			g = &group{head: head}
			byHead[head] = g
			groups = append(groups, g)
		}
		g.rooms = append(g.rooms, fmt.Sprintf("%d in %s (%d free IPs)", z.NodesByIPs, z.Zone, free))
	}
	var parts []string
	for _, g := range groups {
		parts = append(parts, g.head+", room for "+strings.Join(g.rooms, ", "))
	}
	if len(none) > 0 {
		parts = append(parts, "no launchable type in "+strings.Join(none, ", "))
	}
	lower, summary := "the limits", SummarySubnetsTooSmall
	if b.replicas() != nil {
		lower, summary = "replicas", SummarySubnetsTooSmallFor
	}
	hint := "use larger subnets, add subnets to the node class, or lower " + lower
	if b.settings.PrefixDelegation {
		hint = "prefix delegation claims whole /28 prefixes (16 IPs) per node, and a fragmented subnet holds fewer free /28 blocks " +
			"than its free IPs / 16, so this room is an upper bound; " + hint
	}
	b.warn(summary, path, "%s but the pool's subnets can address only %d at max pods: %s; %s",
		what, plan.NodesByIPs, strings.Join(parts, "; "), hint)
}
