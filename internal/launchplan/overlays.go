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
// labels, so that conflicts are judged on the same offerings. Karpenter judges conflicts over
// every NodePool of the cluster and ignores a conflicting overlay in all of them: with the
// class's other NodePools known (SiblingPools, the same types with their own labels), conflicts
// are found over all of them in the same evaluation that applies the others. Prices then
// come through offerPrice; a conflict is a warning, as Karpenter ignores the overlay.
func (b *builder) applyOverlays() {
	if len(b.in.Overlays) == 0 {
		return
	}
	var types, all []nodeoverlay.Type
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
		if len(offs) == 0 {
			continue
		}
		typeLabels := catalog.Labels(it) // derived once per type: the siblings' copies first, then the pool's own
		for _, sp := range b.in.SiblingPools {
			all = append(all, nodeoverlay.Type{Name: it.Name + " in NodePool " + sp.Name,
				Labels: b.overlayLabels(maps.Clone(typeLabels), sp.Name, sp.TemplateLabels), Offerings: offs})
		}
		types = append(types, nodeoverlay.Type{Name: it.Name, Labels: b.overlayLabels(typeLabels, b.in.PoolName, b.in.TemplateLabels), Offerings: offs})
	}
	overlays, scope := b.in.Overlays, "this pool's types alone: with the provider's kubernetes access, over every NodePool of the "+
		"cluster on the same EC2NodeClass, as Karpenter judges them"
	if b.in.SiblingPools != nil {
		scope = fmt.Sprintf("the types of this pool and of the cluster's %d other NodePools on the same EC2NodeClass", len(b.in.SiblingPools))
		// One evaluation over every pool's types: an overlay that conflicts anywhere is ignored
		// everywhere, and the pool's own types (named apart from the siblings' copies) get what
		// the others apply.
		types = append(types, all...)
	}
	b.overlays = nodeoverlay.Apply(overlays, types)
	b.overlaid = true
	for _, c := range b.overlays.Conflicts {
		b.warn(SummaryOverlayConflict, pathNodeOverlays, "%s (judged over %s)", c, scope)
	}
}

// overlayLabels are the labels a type's nodes get in a pool of this class, as overlays select
// them: the type's (l, catalog.Labels, which it adds to), the pool's template labels and name.
func (b *builder) overlayLabels(l map[string]string, pool string, templateLabels map[string]string) map[string]string {
	maps.Copy(l, templateLabels)
	l[requirements.LabelNodePool] = pool
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
