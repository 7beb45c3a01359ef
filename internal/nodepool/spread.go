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
// with the remainder to the first zones, as the provider's own launcher spreads its nodes. A
// limits.nodes above replicas leaves room to replace drifted nodes (#8873): that headroom is split
// the same way, at least one node per zone. Zones that would get no replica get no NodePool.
func ZoneSpecs(s Spec, zones []string) []ZoneSpec {
	if s.Replicas == nil || len(zones) == 0 {
		return nil
	}
	replicas := split(*s.Replicas, len(zones))
	headroom := -1 // no limits.nodes
	if n, ok := NodeLimit(s.Limits); ok {
		headroom = max(n-*s.Replicas, 0)
	}
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
		if headroom >= 0 {
			z.Limits = maps.Clone(s.Limits)
			z.Limits["nodes"] = strconv.Itoa(r + zoneHeadroom(headroom, len(zones), i))
		}
		out = append(out, ZoneSpec{Zone: zone, Spec: z})
	}
	return out
}

// zoneHeadroom is zone i's share of the headroom: split evenly, at least 1 when there is any.
func zoneHeadroom(headroom, zones, i int) int {
	if headroom == 0 {
		return 0
	}
	return max(split(headroom, zones)[i], 1)
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
