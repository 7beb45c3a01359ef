package launchplan

import (
	"slices"
)

// options are the CreateFleet overrides: capacity type (spot first), then price order, then
// zone; offerings without a price are left out, as Karpenter leaves unavailable offerings out.
// A dynamic pool's are Karpenter's: it launches one capacity type, spot when the pool allows it
// and a type of the launch offers it, else on-demand (getCapacityType), and sends only its
// overrides. A static pool's CreateFleet, the provider's own, offers every allowed type.
func (b *builder) options(launch []*eligible, lts []LaunchTemplate) []Option {
	subnet := map[string]string{}
	for _, z := range b.zones {
		subnet[z.Zone] = z.SubnetID
	}
	n := 0
	for _, t := range launch {
		n += len(t.zones) * len(t.capacityTypes)
	}
	out := make([]Option, 0, n)
	for _, ct := range b.capTypes {
		for _, t := range launch {
			if !slices.Contains(t.capacityTypes, ct) {
				continue
			}
			for _, z := range t.zones {
				price, ok := b.offerPrice(t.it.Name, t.prices, ct, z)
				if !ok {
					continue // Karpenter's offering without a price is unavailable
				}
				out = append(out, Option{
					Price:          price,
					InstanceType:   t.it.Name,
					Zone:           z,
					SubnetID:       subnet[z],
					CapacityType:   ct,
					MaxPods:        t.res.MaxPods,
					VPCIPsAtMax:    t.res.VPCIPsAtMaxPods,
					LaunchTemplate: templateName(lts, t),
				})
			}
		}
	}
	if b.in.Replicas == nil && len(out) > 0 {
		// The options come grouped by capacity type, spot first: the first group's is the one
		// Karpenter launches.
		launched := out[0].CapacityType
		out = slices.DeleteFunc(out, func(o Option) bool { return o.CapacityType != launched })
	}
	return out
}
