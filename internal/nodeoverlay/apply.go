package nodeoverlay

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Offering is one offering of an instance type: where and how it launches.
type Offering struct{ CapacityType, Zone string }

// Type is an instance type as overlays select it: its labels as Karpenter's requirements of the
// type (with the pool's template labels and name), and its offerings.
type Type struct {
	Name      string
	Labels    map[string]string
	Offerings []Offering
}

// Conflict is an overlay Karpenter ignores: an overlay of the same weight, applied before it,
// already changes the same offering's price or the same capacity of a type.
type Conflict struct {
	Overlay, With, InstanceType string
	Weight                      int64
}

// String says it in a line.
func (c Conflict) String() string {
	return fmt.Sprintf("%s has the weight of %s (%d) and changes %s too: Karpenter ignores %s (ValidationSucceeded=False, reason Conflict); "+
		"give the two overlays different weights or disjoint requirements", c.Overlay, c.With, c.Weight, c.InstanceType, c.Overlay)
}

type priceUpdate struct {
	change, overlay string
	lowestWeight    int64
	lowestOverlay   string
}

type capacityUpdate struct {
	update        map[string]string
	from          map[string]string // resource → overlay that set it
	lowestRes     map[string]string
	lowestWeight  int64
	lowestOverlay string
}

type typeUpdate struct {
	prices   map[Offering]*priceUpdate
	capacity *capacityUpdate
}

// Applied is what a cluster's overlays do to one pool's instance types, as Karpenter's
// NodeOverlay controller stores it: per offering the change of the heaviest overlay that
// selects it, per extended resource the heaviest overlay's quantity.
type Applied struct {
	updates   map[string]*typeUpdate
	fallback  map[string]float64
	Conflicts []Conflict
}

// weight is an overlay's weight as Karpenter orders it (unset: 0).
func (c Config) weight() int64 {
	if c.Weight == nil {
		return 0
	}
	return *c.Weight
}

// Ordered sorts overlays as Karpenter applies them: heaviest first, equal weights by name in
// reverse order.
func Ordered(overlays []Config) []Config {
	out := slices.Clone(overlays)
	slices.SortStableFunc(out, func(a, b Config) int {
		return cmp.Or(cmp.Compare(b.weight(), a.weight()), cmp.Compare(b.Name, a.Name))
	})
	return out
}

// Apply evaluates overlays against a pool's types. Karpenter judges conflicts over every pool
// of the cluster; here over this pool's types, so an overlay that conflicts only in another
// pool is applied here while Karpenter ignores it everywhere.
func Apply(overlays []Config, types []Type) Applied {
	a := Applied{updates: map[string]*typeUpdate{}}
	if len(overlays) == 0 {
		return a
	}
	ignored := map[string]bool{}
	for _, o := range Ordered(overlays) {
		reqs := RequirementsOf(o.Requirements)
		matched := make([][]Offering, len(types))
		for i, t := range types {
			matched[i] = selected(reqs, t)
		}
		if c, ok := a.conflict(o, types, matched); ok {
			a.Conflicts = append(a.Conflicts, c)
			ignored[o.Name] = true
			continue
		}
		for i, t := range types {
			if len(matched[i]) > 0 {
				a.store(o, t.Name, matched[i])
			}
		}
	}
	a.fallback = fallbackPrices(overlays, ignored)
	return a
}

// selected are t's offerings that the requirements select: the type's labels must be
// compatible with them, and each offering's zone and capacity type too.
func selected(reqs []requirements.Requirement, t Type) []Offering {
	var out []Offering
	labels := maps.Clone(t.Labels)
	for _, of := range t.Offerings {
		labels[requirements.LabelZone], labels[requirements.LabelCapacityType] = of.Zone, of.CapacityType
		if requirements.LabelsCompatible(labels, reqs) {
			out = append(out, of)
		}
	}
	return out
}

func (a *Applied) conflict(o Config, types []Type, matched [][]Offering) (Conflict, bool) {
	w := o.weight()
	for i, t := range types {
		u := a.updates[t.Name]
		if len(matched[i]) == 0 || u == nil {
			continue
		}
		if o.Price != nil || o.PriceAdjustment != nil {
			for _, of := range matched[i] {
				if p := u.prices[of]; p != nil && p.lowestWeight == w {
					return Conflict{Overlay: o.Name, With: p.lowestOverlay, InstanceType: t.Name, Weight: w}, true
				}
			}
		}
		if c := u.capacity; len(o.Capacity) > 0 && c != nil && c.lowestWeight == w {
			for res := range o.Capacity {
				if _, ok := c.lowestRes[res]; ok {
					return Conflict{Overlay: o.Name, With: c.lowestOverlay, InstanceType: t.Name, Weight: w}, true
				}
			}
		}
	}
	return Conflict{}, false
}

func (a *Applied) store(o Config, name string, offerings []Offering) {
	u := a.updates[name]
	if u == nil {
		u = &typeUpdate{prices: map[Offering]*priceUpdate{}}
		a.updates[name] = u
	}
	if change := o.Price; change != nil || o.PriceAdjustment != nil {
		if change == nil {
			change = o.PriceAdjustment
		}
		for _, of := range offerings {
			if p := u.prices[of]; p != nil {
				p.lowestWeight, p.lowestOverlay = o.weight(), o.Name
				continue
			}
			u.prices[of] = &priceUpdate{change: *change, overlay: o.Name, lowestWeight: o.weight(), lowestOverlay: o.Name}
		}
	}
	if len(o.Capacity) == 0 {
		return
	}
	if u.capacity == nil {
		u.capacity = &capacityUpdate{update: map[string]string{}, from: map[string]string{}}
	}
	c := u.capacity
	for res, q := range o.Capacity {
		if _, ok := c.update[res]; !ok {
			c.update[res], c.from[res] = q, o.Name
		}
	}
	c.lowestRes, c.lowestWeight, c.lowestOverlay = o.Capacity, o.weight(), o.Name
}

// fallbackPrices are the prices Karpenter gives a type it has no price for: an overlay (not
// ignored) whose only requirement is node.kubernetes.io/instance-type In [...] with a price.
// Karpenter lists overlays by name; a later name wins.
func fallbackPrices(overlays []Config, ignored map[string]bool) map[string]float64 {
	byName := slices.Clone(overlays)
	slices.SortStableFunc(byName, func(a, b Config) int { return cmp.Compare(a.Name, b.Name) })
	out := map[string]float64{}
	for _, o := range byName {
		if ignored[o.Name] || o.Price == nil || len(o.Requirements) != 1 {
			continue
		}
		r := o.Requirements[0]
		if r.Key != requirements.LabelInstanceType || r.Operator != requirements.OpIn {
			continue
		}
		v, err := strconv.ParseFloat(*o.Price, 64)
		if err != nil {
			continue
		}
		for _, name := range r.Values {
			out[name] = v
		}
	}
	return out
}

// Price is an offering's price under the overlays: base changed by the overlay that selects
// the offering; without a base price (ok false), the fallback price of the type, if any.
// overlay names the overlay that set it ("" when none did).
func (a Applied) Price(name string, of Offering, base float64, ok bool) (price float64, priced bool, overlay string) {
	if !ok {
		v, found := a.fallback[name]
		if !found {
			return 0, false, ""
		}
		base, ok = v, true
	}
	u := a.updates[name]
	if u == nil || u.prices[of] == nil {
		return base, ok, ""
	}
	p := u.prices[of]
	return AdjustedPrice(base, p.change), true, p.overlay
}

// Capacity is the extended resources the overlays add to a type, and which overlay set each.
func (a Applied) Capacity(name string) (quantities, from map[string]string) {
	u := a.updates[name]
	if u == nil || u.capacity == nil || len(u.capacity.update) == 0 {
		return nil, nil
	}
	return u.capacity.update, u.capacity.from
}

// Changes reports whether the overlays change anything of the type.
func (a Applied) Changes(name string) bool {
	u := a.updates[name]
	return u != nil && (len(u.prices) > 0 || (u.capacity != nil && len(u.capacity.update) > 0))
}
