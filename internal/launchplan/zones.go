package launchplan

import (
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveZones picks the pool's zones and, per zone, the subnet Karpenter launches into.
func (b *builder) resolveZones() {
	c := b.in.Class
	best := map[string]Subnet{}
	for _, s := range c.Subnets {
		cur, ok := best[s.Zone]
		if !ok || s.AvailableIPs > cur.AvailableIPs || (s.AvailableIPs == cur.AvailableIPs && s.ID < cur.ID) {
			best[s.Zone] = s
		}
	}
	for z := range best {
		b.classZones = append(b.classZones, z)
	}
	slices.Sort(b.classZones)
	if len(b.classZones) == 0 {
		b.fail(pathPool, "node class %q has no subnets, so the pool has no zone to launch into", c.Name)
		return
	}
	zoneIDs := make([]string, 0, len(b.classZones))
	zoneOfID := map[string]string{}
	for _, z := range b.classZones {
		if id := best[z].ZoneID; id != "" {
			zoneIDs = append(zoneIDs, id)
			zoneOfID[id] = z
		}
	}
	allZoneIDs := len(zoneIDs) == len(b.classZones)

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
		case r.Key == requirements.LabelZoneID && allZoneIDs:
			for _, v := range r.Values {
				if _, ok := zoneOfID[v]; !ok {
					b.fail(pathRequirements.Index(i).Attr("values"),
						"zone ID %q has no subnet of node class %q; the class's zone IDs are %s", v, c.Name, strings.Join(zoneIDs, ", "))
				}
			}
		}
	}

	allowed := requirements.AllowedValues(b.in.Requirements, requirements.LabelZone, b.classZones)
	if allZoneIDs && mentions(b.in.Requirements, requirements.LabelZoneID) {
		ok := map[string]bool{}
		for _, id := range requirements.AllowedValues(b.in.Requirements, requirements.LabelZoneID, zoneIDs) {
			ok[zoneOfID[id]] = true
		}
		allowed = slices.DeleteFunc(allowed, func(z string) bool { return !ok[z] })
	}
	if len(allowed) == 0 {
		b.fail(pathRequirements, "the zone requirements allow none of node class %q's zones (%s)", c.Name, strings.Join(b.classZones, ", "))
		return
	}

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
