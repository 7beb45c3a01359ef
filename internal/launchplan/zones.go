package launchplan

import (
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveZones picks the pool's zones and, per zone, the subnet Karpenter launches into.
func (b *builder) resolveZones() {
	c := b.in.Class
	best := bestSubnets(c.Subnets)
	for z := range best {
		b.classZones = append(b.classZones, z)
	}
	slices.Sort(b.classZones)
	if len(b.classZones) == 0 {
		b.fail(pathPool, "node class %q has no subnets, so the pool has no zone to launch into", c.Name)
		return
	}
	ids := b.zoneIDsOf(best)
	b.checkZoneRequirements(best, ids)
	allowed := b.allowedZones(ids)
	if len(allowed) == 0 {
		b.fail(pathRequirements, "the zone requirements allow none of node class %q's zones (%s)", c.Name, strings.Join(b.classZones, ", "))
		return
	}
	b.planZones(allowed, best)
}

// bestSubnets is, per zone, the subnet Karpenter launches into: most free IPs, then lowest id.
func bestSubnets(subnets []Subnet) map[string]Subnet {
	best := map[string]Subnet{}
	for _, s := range subnets {
		cur, ok := best[s.Zone]
		if !ok || s.AvailableIPs > cur.AvailableIPs || (s.AvailableIPs == cur.AvailableIPs && s.ID < cur.ID) {
			best[s.Zone] = s
		}
	}
	return best
}

// zoneIDs are the zone IDs of the class's zones, as their best subnets report them.
type zoneIDs struct {
	ids    []string          // in the order of classZones
	zoneOf map[string]string // zone name by zone ID
	// complete: every class zone has an ID. Zone-ID requirements are only checked then, since
	// a missing ID would otherwise read as a zone the requirements rule out.
	complete bool
}

func (b *builder) zoneIDsOf(best map[string]Subnet) zoneIDs {
	z := zoneIDs{ids: make([]string, 0, len(b.classZones)), zoneOf: map[string]string{}}
	for _, zone := range b.classZones {
		if id := best[zone].ZoneID; id != "" {
			z.ids = append(z.ids, id)
			z.zoneOf[id] = zone
		}
	}
	z.complete = len(z.ids) == len(b.classZones)
	return z
}

// checkZoneRequirements fails each zone (or zone ID) an In requirement names that has no subnet
// of the class: the pool could never launch there.
func (b *builder) checkZoneRequirements(best map[string]Subnet, ids zoneIDs) {
	c := b.in.Class
	for i, r := range b.in.Requirements {
		if r.Operator != requirements.OpIn {
			continue
		}
		switch {
		case r.Key == requirements.LabelZone:
			for _, v := range r.Values {
				if _, ok := best[v]; !ok {
					b.fail(pathRequirements.Index(i).Attr("values"),
						"zone %q has no subnet of node class %q; the class's zones are %s", v, c.Name, strings.Join(b.classZones, ", "))
				}
			}
		case r.Key == requirements.LabelZoneID && ids.complete:
			for _, v := range r.Values {
				if _, ok := ids.zoneOf[v]; !ok {
					b.fail(pathRequirements.Index(i).Attr("values"),
						"zone ID %q has no subnet of node class %q; the class's zone IDs are %s", v, c.Name, strings.Join(ids.ids, ", "))
				}
			}
		}
	}
}

// allowedZones are the class's zones that both the zone and the zone-ID requirements allow.
func (b *builder) allowedZones(ids zoneIDs) []string {
	allowed := requirements.AllowedValues(b.in.Requirements, requirements.LabelZone, b.classZones)
	if ids.complete && mentions(b.in.Requirements, requirements.LabelZoneID) {
		ok := map[string]bool{}
		for _, id := range requirements.AllowedValues(b.in.Requirements, requirements.LabelZoneID, ids.ids) {
			ok[ids.zoneOf[id]] = true
		}
		allowed = slices.DeleteFunc(allowed, func(z string) bool { return !ok[z] })
	}
	return allowed
}

// planZones sets the pool's zones with their subnets and, under custom networking, their pod
// subnets; a zone without one is a warning, since its nodes' pods would get no IPs.
func (b *builder) planZones(allowed []string, best map[string]Subnet) {
	c := b.in.Class
	pods := map[string]PodSubnet{}
	for _, p := range c.PodSubnets {
		pods[p.Zone] = p
	}
	b.zoneSet = map[string]bool{}
	for _, z := range allowed {
		s := best[z]
		zp := ZonePlan{Zone: z, SubnetID: s.ID, AvailableIPs: s.AvailableIPs}
		if b.settings.CustomNetworking {
			if p, ok := pods[z]; ok {
				zp.PodSubnetID, zp.PodSubnetAvailableIPs = p.ID, p.AvailableIPs
			} else {
				b.warn(SummaryNoPodSubnet, pathPool, "custom networking is on but node class %q has no pod subnet in zone %s; pods on nodes there get no IPs",
					c.Name, z)
			}
		}
		b.zones = append(b.zones, zp)
		b.zoneSet[z] = true
	}
}

func (b *builder) zoneNames() []string {
	out := make([]string, len(b.zones))
	for i, z := range b.zones {
		out[i] = z.Zone
	}
	return out
}

func mentions(reqs []requirements.Requirement, key string) bool {
	for _, r := range reqs {
		if r.Key == key {
			return true
		}
	}
	return false
}
