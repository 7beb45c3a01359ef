package launchplan

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// price sets e's sort key: the cheapest priced offering among its allowed zones and capacity
// types, as Karpenter's OrderByPrice takes the cheapest available, compatible offering. It
// reports false when no offering has a price.
func (b *builder) price(e *eligible) bool {
	best := -1.0
	e.prices = b.in.Prices.Of(e.it.Name)
	for _, ct := range e.capacityTypes {
		for _, z := range e.zones {
			v, ok := b.offerPrice(e.it.Name, e.prices, ct, z)
			if ok && (best < 0 || v < best) {
				best, e.priceCT, e.priceZone = v, ct, z
			}
		}
	}
	e.price = best
	return best >= 0
}

// sortByPrice is Karpenter's order: cheapest offering first; equal prices by name, so that the
// plan is deterministic where Karpenter's sort is not.
func sortByPrice(types []*eligible) {
	sort.Slice(types, func(i, j int) bool {
		if types[i].price != types[j].price {
			return types[i].price < types[j].price
		}
		return types[i].it.Name < types[j].it.Name
	})
}

// truncate keeps the first MaxInstanceTypes types, as Karpenter's Truncate does before each
// CreateFleet, and checks min_values on what is kept: with the Strict policy (Karpenter's
// default) a shortfall fails the plan, since Karpenter would not launch; with BestEffort it
// launches the cut anyway, and the plan warns.
func (b *builder) truncate(types []*eligible) []*eligible {
	if len(types) <= MaxInstanceTypes && b.res.kind == "" {
		return types // min_values was checked on every eligible type
	}
	launch := types[:min(len(types), MaxInstanceTypes)]
	i, got, short := minValuesShortfall(b.in.Requirements, launch)
	if !short {
		return launch
	}
	r := b.in.Requirements[i]
	at := pathRequirements.Index(i).Attr("min_values")
	msg := fmt.Sprintf("the %d cheapest of %d eligible instance types, which Karpenter sends to CreateFleet, offer only %d distinct values "+
		"of %q, below min_values %d", MaxInstanceTypes, len(types), got, r.Key, *r.MinValues)
	if b.res.kind != "" {
		msg = fmt.Sprintf("the %d instance types Karpenter launches into reserved capacity first (reservations of kind %s), which it sends "+
			"to CreateFleet alone, offer only %d distinct values of %q, below min_values %d", len(launch), b.res.kind, got, r.Key, *r.MinValues)
	}
	if b.in.MinValuesBestEffort {
		b.warn(SummaryMinValuesAtRisk, at, "%s; with the BestEffort min-values policy Karpenter launches them anyway", msg)
		return launch
	}
	b.fail(at, "%s: Karpenter (Strict min-values policy, its default) will not launch. Narrow the requirements to fewer, more varied "+
		"types, lower min_values, or set min_values_policy = \"BestEffort\" if the cluster's Karpenter runs with it", msg)
	return nil
}

// priceSource names where the prices came from, for the plan and its warnings.
func (b *builder) priceSource() string { return PriceSource(b.in.Prices) }

// PriceSource names where prices came from, in a line.
func PriceSource(p *pricing.Prices) string {
	if p == nil {
		return ""
	}
	if f := p.Fallback; f != nil {
		return fmt.Sprintf("Karpenter %s's on-demand table of %s (%s prices)", f.KarpenterVersion, f.Generated, f.TableRegion)
	}
	if p.SpotFromOnDemand {
		return p.OnDemandSource + " (spot priced as on-demand)"
	}
	return p.OnDemandSource + " and " + p.SpotSource
}

// priceWarning says, once per pool, that the prices are Karpenter's embedded table and not
// AWS's current ones, or that spot prices could not be read.
func (b *builder) priceWarning() {
	p := b.in.Prices
	switch {
	case p.Fallback != nil:
		b.warn(SummaryPriceFallback, pathPool, "launch order and cost from %s, as Karpenter falls back: %s", b.priceSource(), p.Fallback.Reason)
	case p.SpotFromOnDemand && slices.Contains(b.capTypes, requirements.CapacityTypeSpot):
		b.warn(SummaryPriceFallback, pathPool, "spot offerings are priced as on-demand, as Karpenter does until it reads spot prices: %s", p.SpotError)
	}
}

// cost bounds the pool's hourly cost. Nodes the class's reservations cover come first (uses):
// they are paid for already, and counted at on-demand prices as ReservedHourly. The rest: a
// static pool's remaining replicas at the cheapest offering of the first capacity type it
// launches as after reserved (EC2 Fleet's lowest-price choice among the overrides); a dynamic
// pool's nodes the limits leave, at its cheapest type's cheapest offering that is not reserved.
//
// launch is the launch once the reservations are full (restLaunch): the types and offerings the
// rest of the nodes launch as.
func (b *builder) cost(launch []*eligible, uses []reservations.Use) Cost {
	var c Cost
	for _, u := range uses {
		if u.Nodes == 0 {
			continue
		}
		c.ReservedNodes += u.Nodes
		if v, ok := b.onDemandPrice(u.InstanceType, u.Zone); ok {
			c.ReservedHourly += float64(u.Nodes) * v
		}
	}
	if r := b.replicas(); r != nil {
		ct := b.restCapacityType()
		best, bestPrice := (*eligible)(nil), 0.0
		for _, t := range launch {
			if v := b.cheapestOf(t, ct); v != nil && (best == nil || *v < bestPrice) {
				best, bestPrice = t, *v
			}
		}
		if best == nil {
			return c // reserved capacity only, or nothing priced
		}
		c.Bounded, c.Nodes, c.InstanceType, c.CapacityType, c.Price, c.Basis = true, max(0, *r-c.ReservedNodes), best.it.Name, ct, bestPrice, "replicas"
		c.Hourly = float64(c.Nodes) * bestPrice
		return c
	}
	if len(launch) == 0 {
		return c // reserved capacity only
	}
	first, price, ct := launch[0], launch[0].price, launch[0].priceCT
	c.InstanceType, c.CapacityType, c.Price = first.it.Name, ct, price
	limits := b.limitsAfter(uses, launch)
	nodes, basis := -1, ""
	take := func(n int, why string) {
		if nodes < 0 || n < nodes {
			nodes, basis = n, why
		}
	}
	if q, ok := limits[limitNodes]; ok {
		take(max(0, floorDiv(q, 1)), "nodes "+b.in.Limits[limitNodes])
	}
	if q, ok := limits[limitCPU]; ok && first.it.VCPUs > 0 {
		take(max(0, floorDiv(q, int64(first.it.VCPUs))), "cpu "+b.in.Limits[limitCPU])
	}
	if q, ok := limits[limitMemory]; ok && first.it.MemoryMiB > 0 {
		take(max(0, floorDiv(q, int64(first.it.MemoryMiB)*bytesPerMiB)), "memory "+b.in.Limits[limitMemory])
	}
	if nodes < 0 {
		return c
	}
	c.Bounded, c.Nodes, c.Basis, c.Hourly = true, nodes, basis, float64(nodes)*price
	return c
}

// restCapacityType is the capacity type a static pool launches as beyond its reservations.
func (b *builder) restCapacityType() string {
	for _, ct := range b.capTypes {
		if ct != requirements.CapacityTypeReserved {
			return ct
		}
	}
	return b.capTypes[0]
}

// limitsAfter are the pool's limits less what its reserved nodes take.
func (b *builder) limitsAfter(uses []reservations.Use, launch []*eligible) map[string]*big.Rat {
	if ReservedNodes(uses) == 0 {
		return b.limits
	}
	size := map[string]*eligible{}
	for _, t := range launch {
		size[t.it.Name] = t
	}
	out := make(map[string]*big.Rat, len(b.limits))
	for k, q := range b.limits {
		out[k] = new(big.Rat).Set(q)
	}
	for _, u := range uses {
		t := size[u.InstanceType]
		if u.Nodes == 0 || t == nil {
			continue
		}
		per := map[string]int64{limitNodes: 1, limitCPU: int64(t.it.VCPUs), limitMemory: int64(t.it.MemoryMiB) * bytesPerMiB}
		for k, q := range out {
			q.Sub(q, new(big.Rat).SetInt64(per[k]*int64(u.Nodes)))
		}
	}
	return out
}

// String is the cost in one line, e.g. "cpu 1000 → at most 250 × c5.xlarge, 42.50 USD/h on-demand".
// Nodes in reservations lead, as paid already.
func (c Cost) String() string {
	if c.InstanceType == "" {
		if c.ReservedNodes > 0 {
			return c.reservedPart() + "; the pool launches nothing beyond them"
		}
		return ""
	}
	var s string
	switch {
	case !c.Bounded:
		s = fmt.Sprintf("no cpu, memory or nodes limit bounds the cost; the cheapest type, %s, costs %s USD/h %s", c.InstanceType,
			FormatPrice(c.Price), c.CapacityType)
	case c.Basis == "replicas" && c.ReservedNodes > 0:
		s = fmt.Sprintf("the other %d replicas × %s %s at %s USD/h = %s USD/h", c.Nodes, c.InstanceType, c.CapacityType, FormatPrice(c.Price),
			formatUSD(c.Hourly))
	case c.Basis == "replicas":
		s = fmt.Sprintf("%d replicas × %s %s at %s USD/h = %s USD/h", c.Nodes, c.InstanceType, c.CapacityType, FormatPrice(c.Price),
			formatUSD(c.Hourly))
	case c.ReservedNodes > 0:
		s = fmt.Sprintf("%s then leaves at most %d × %s, %s USD/h %s", c.Basis, c.Nodes, c.InstanceType, formatUSD(c.Hourly), c.CapacityType)
	default:
		s = fmt.Sprintf("%s → at most %d × %s, %s USD/h %s", c.Basis, c.Nodes, c.InstanceType, formatUSD(c.Hourly), c.CapacityType)
	}
	if c.ReservedNodes > 0 {
		return c.reservedPart() + "; " + s
	}
	return s
}

func (c Cost) reservedPart() string {
	return fmt.Sprintf("%d nodes in capacity reservations, paid for already (%s USD/h at on-demand prices)", c.ReservedNodes,
		formatUSD(c.ReservedHourly))
}

// FormatPrice writes an hourly price with the precision AWS lists it at, without trailing zeros.
func FormatPrice(v float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// formatUSD writes a total in dollars and cents.
func formatUSD(v float64) string {
	return new(big.Float).SetFloat64(v).Text('f', 2)
}

// cheapestOf is t's cheapest allowed offering of capacity type ct; nil when it has none.
func (b *builder) cheapestOf(t *eligible, ct string) *float64 {
	if !slices.Contains(t.capacityTypes, ct) {
		return nil
	}
	best := -1.0
	for _, z := range t.zones {
		if v, ok := b.offerPrice(t.it.Name, t.prices, ct, z); ok && (best < 0 || v < best) {
			best = v
		}
	}
	if best < 0 {
		return nil
	}
	return &best
}

// offerPrice is an offering's price as the launch sees it: the price as the NodeOverlays change
// it, unless Karpenter's spot offering filter leaves a spot offering out (above the cheapest
// on-demand one). tp is the type's prices (eligible.prices).
func (b *builder) offerPrice(name string, tp pricing.TypePrices, ct, zone string) (float64, bool) {
	if ct == requirements.CapacityTypeReserved {
		if b.hasReservedOffer(name, zone) {
			return b.reservedPrice(name, zone), true
		}
		return 0, false
	}
	v, ok := tp.Price(ct, zone)
	if b.overlaid {
		v, ok, _ = b.overlays.Price(name, nodeoverlay.Offering{CapacityType: ct, Zone: zone}, v, ok)
	}
	if ok && ct == pricing.Spot && b.spotCap > 0 && v > b.spotCap {
		return 0, false
	}
	return v, ok
}

// launchSet applies the filters Karpenter's instance provider runs before it truncates a
// launch's types (pkg/providers/instance: filterInstanceTypes), for a NodeClaim of generic pods,
// when no requirement has min_values:
//   - exotic types — bare metal, or with NVIDIA, AMD or Habana GPUs or AWS Neuron devices —
//     are left out while a generic type remains;
//   - when both spot and on-demand are allowed, spot offerings priced above the cheapest
//     on-demand offering are left out, which reprices (and can drop) types.
//
// types stay the pool's eligible types, repriced and reordered; the result is the launch's.
func (b *builder) launchSet(types []*eligible) []*eligible {
	if set, ok := b.reservedLaunch(types); ok {
		return set
	}
	return b.openLaunchSet(types)
}

// openLaunchSet is launchSet for a launch that is not into reserved capacity.
func (b *builder) openLaunchSet(types []*eligible) []*eligible {
	if hasMinValues(b.in.Requirements) {
		return types
	}
	set := types
	generic := make([]*eligible, 0, len(types))
	for _, t := range types {
		if !isExotic(t) {
			generic = append(generic, t)
		}
	}
	if len(generic) > 0 {
		set = generic
	}
	if !slices.Contains(b.capTypes, pricing.Spot) || !slices.Contains(b.capTypes, pricing.OnDemand) {
		return set
	}
	cheapestOD := -1.0
	for _, t := range set {
		if v := b.cheapestOf(t, pricing.OnDemand); v != nil && (cheapestOD < 0 || *v < cheapestOD) {
			cheapestOD = *v
		}
	}
	if cheapestOD <= 0 {
		return set // no on-demand offering (or a free one): Karpenter's filter leaves spot alone
	}
	b.spotCap = cheapestOD
	for _, t := range types {
		b.price(t)
	}
	sortByPrice(types)
	kept := make([]*eligible, 0, len(set))
	inSet := make(map[*eligible]bool, len(set))
	for _, t := range set {
		inSet[t] = true
	}
	for _, t := range types {
		if inSet[t] && t.price >= 0 {
			kept = append(kept, t)
		}
	}
	return kept
}

func hasMinValues(reqs []requirements.Requirement) bool {
	for _, r := range reqs {
		if r.MinValues != nil {
			return true
		}
	}
	return false
}

// isExotic is Karpenter's exotic instance type (its ExoticInstanceTypeFilter): a size that
// names metal, or a type whose capacity Karpenter gives NVIDIA, AMD or Habana GPUs or Neuron
// devices or cores. Karpenter counts them from EC2's description: GPUs by exact maker and count
// (a fractional GPU, EC2's count 0 as on g6f and gr6f, is no GPU capacity), Neuron devices from
// NeuronInfo alone (an inference accelerator entry without it adds none).
func isExotic(t *eligible) bool {
	if _, size, _ := strings.Cut(t.it.Name, "."); strings.Contains(size, "metal") {
		return true
	}
	gpus := 0
	for _, g := range t.it.GPUs {
		switch g.Manufacturer {
		case "NVIDIA", "AMD", "Habana":
			gpus += g.Count
		}
	}
	neuron := 0
	for i, d := range t.it.NeuronDevices {
		neuron += d.Count
		if i == 0 {
			neuron += d.Count * d.Cores
		}
	}
	return gpus > 0 || neuron > 0
}
