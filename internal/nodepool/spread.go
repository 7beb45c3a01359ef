package nodepool

import (
	"maps"
	"slices"
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// zoneKey is the well-known label of a node's zone.
const zoneKey = "topology.kubernetes.io/zone"

// ZoneSpec is one NodePool of a pool spread over zones.
type ZoneSpec struct {
	Zone string
	Spec Spec
}

// ZoneSpecs splits a Karpenter-launched static pool over zones (in that order): one NodePool
// per zone named <name>-<zone>, its zone requirement narrowed to that zone, replicas split evenly
// with the remainder to the first zones, as the provider's own launcher spreads its nodes. Zones
// that would get no replica get no NodePool.
//
// A limits.nodes above replicas leaves room to replace drifted nodes (Karpenter launches the new
// node first: aws/karpenter-provider-aws#8873). Each zone's limits.nodes is its replicas plus a
// share of that headroom, shared over the zones that get a NodePool, evenly with the remainder to
// the first zones, so that the zones' caps sum to the pool's limits.nodes. Each zone keeps at
// least one node of headroom when there is any: with fewer headroom nodes than zones, every zone
// gets one and the sum exceeds limits.nodes (the planner says so).
func ZoneSpecs(s Spec, zones []string) []ZoneSpec {
	if s.Replicas == nil || len(zones) == 0 {
		return nil
	}
	replicas := split(*s.Replicas, len(zones))
	var out []ZoneSpec
	for i, zone := range zones {
		if replicas[i] == 0 {
			continue
		}
		z := s
		z.Name = s.Name + "-" + zone
		r := replicas[i]
		z.Replicas = &r
		z.Requirements = withZone(s.Requirements, zone)
		out = append(out, ZoneSpec{Zone: zone, Spec: z})
	}
	n, ok := NodeLimit(s.Limits)
	if !ok {
		return out
	}
	headroom := max(n-*s.Replicas, 0)
	shares := split(headroom, len(out))
	for i := range out {
		if headroom > 0 {
			shares[i] = max(shares[i], 1)
		}
		out[i].Spec.Limits = maps.Clone(s.Limits)
		out[i].Spec.Limits["nodes"] = strconv.Itoa(*out[i].Spec.Replicas + shares[i])
	}
	return out
}

// split divides n into parts as evenly as possible, the remainder to the first parts.
func split(n, parts int) []int {
	out := make([]int, parts)
	for i := range out {
		out[i] = n / parts
		if i < n%parts {
			out[i]++
		}
	}
	return out
}

// withZone is reqs with the zone requirement replaced by zone alone.
func withZone(reqs []requirements.Requirement, zone string) []requirements.Requirement {
	out := slices.DeleteFunc(slices.Clone(reqs), func(r requirements.Requirement) bool { return r.Key == zoneKey })
	return append(out, requirements.Requirement{Key: zoneKey, Operator: requirements.OpIn, Values: []string{zone}})
}

// NodeLimit is limits.nodes as a count; false when it is not set or not a plain integer.
func NodeLimit(limits map[string]string) (int, bool) {
	n, err := strconv.Atoi(limits["nodes"])
	return n, err == nil && limits["nodes"] != ""
}
