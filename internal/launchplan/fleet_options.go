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
	capTypes := b.capTypes
	if b.in.Replicas == nil {
		capTypes = b.launchedCapacityType(launch)
	}
	for _, ct := range capTypes {
		for _, t := range launch {
			if !slices.Contains(t.capacityTypes, ct) {
				continue
			}
			for _, z := range t.zones {
				price, ok := b.offerPrice(t.it.Name, ct, z)
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
					LaunchTemplate: lts[t.group].Name,
				})
			}
		}
	}
	return out
}

// launchedCapacityType is the capacity type Karpenter launches a dynamic pool's nodes as: the
// first of the allowed ones (spot first) that a type of the launch offers with a price in a pool
// zone; none when no offering has a price.
func (b *builder) launchedCapacityType(launch []*eligible) []string {
	for _, ct := range b.capTypes {
		for _, t := range launch {
			if !slices.Contains(t.capacityTypes, ct) {
				continue
			}
			for _, z := range t.zones {
				if _, ok := b.offerPrice(t.it.Name, ct, z); ok {
					return []string{ct}
				}
			}
		}
	}
	return nil
}
