package launchplan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// pathNodeOverlays is the node pool attribute that lists the cluster's overlays.
var pathNodeOverlays = attrpath.Of("node_overlays")

// OverlayUse is one overlay that changes some of the pool's eligible types.
type OverlayUse struct {
	Name   string
	Change string   // "price -90%", "example.com/slot=4", …
	Types  []string // the eligible types it changes, in launch order
}

// applyOverlays evaluates the cluster's NodeOverlays (Input.Overlays) as Karpenter's NodeOverlay
// controller does for this pool: on every type Karpenter lists for it (all it can launch in the
// pool's zones, before the pool's requirements narrow them), with the pool's name and template
// labels, so that conflicts are judged on the same offerings. Prices then come through
// offerPrice; a conflict is a warning, as Karpenter ignores the overlay.
func (b *builder) applyOverlays() {
	if len(b.in.Overlays) == 0 {
		return
	}
	var types []nodeoverlay.Type
	for _, it := range b.in.Catalog.Types() {
		if !it.KarpenterEligible() {
			continue
		}
		var offs []nodeoverlay.Offering
		for _, z := range b.zones {
			if !it.OfferedIn(z.Zone) {
				continue
			}
			for _, ct := range it.CapacityTypes() {
				offs = append(offs, nodeoverlay.Offering{CapacityType: ct, Zone: z.Zone})
			}
		}
		if len(offs) > 0 {
			types = append(types, nodeoverlay.Type{Name: it.Name, Labels: b.overlayLabels(it), Offerings: offs})
		}
	}
	b.overlays = nodeoverlay.Apply(b.in.Overlays, types)
	b.overlaid = true
	for _, c := range b.overlays.Conflicts {
		b.warn(SummaryOverlayConflict, pathNodeOverlays, "%s", c)
	}
}

// overlayLabels are the labels a type's nodes get in this pool, as overlays select them.
func (b *builder) overlayLabels(it *catalog.InstanceType) map[string]string {
	l := catalog.Labels(it)
	maps.Copy(l, b.in.TemplateLabels)
	l[requirements.LabelNodePool] = b.in.PoolName
	l[requirements.LabelRegion] = b.in.Region
	if capacity.IsWindows(b.family) {
		l[requirements.LabelOS] = "windows"
	}
	return l
}

// overlayUses are the overlays that change the eligible types, each with the types it
// changes (a price of one of their allowed offerings, or an extended resource).
func (b *builder) overlayUses(types []*eligible) []OverlayUse {
	if !b.overlaid {
		return nil
	}
	byName := map[string][]string{}
	for _, t := range types {
		for _, name := range b.overlaysOf(t) {
			byName[name] = append(byName[name], t.it.Name)
		}
	}
	var out []OverlayUse
	for _, o := range nodeoverlay.Ordered(b.in.Overlays) {
		if names := byName[o.Name]; len(names) > 0 {
			out = append(out, OverlayUse{Name: o.Name, Change: o.Change(), Types: names})
		}
	}
	return out
}

// overlaysOf are the overlays that set a price of t's allowed offerings or a capacity of t.
func (b *builder) overlaysOf(t *eligible) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, ct := range t.capacityTypes {
		for _, z := range t.zones {
			base, ok := b.in.Prices.Price(t.it.Name, ct, z)
			_, _, by := b.overlays.Price(t.it.Name, nodeoverlay.Offering{CapacityType: ct, Zone: z}, base, ok)
			add(by)
		}
	}
	_, from := b.overlays.Capacity(t.it.Name)
	for _, k := range slices.Sorted(maps.Keys(from)) {
		add(from[k])
	}
	return names
}

// String is the use in a phrase: "cheap-m5 (price -90%) on m5.large, m5.xlarge and 3 more".
func (u OverlayUse) String() string {
	shown := u.Types[:min(3, len(u.Types))]
	s := fmt.Sprintf("%s (%s) on %s", u.Name, u.Change, strings.Join(shown, ", "))
	if more := len(u.Types) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
