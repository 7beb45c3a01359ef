package launchplan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// WindowsBuild is the node.kubernetes.io/windows-build value of a Windows AMI family ("" for
// others).
func WindowsBuild(family string) string { return windowsBuilds[family] }

// windowsBuilds are the node.kubernetes.io/windows-build values of the Windows AMI families.
var windowsBuilds = map[string]string{
	capacity.FamilyWindows2019: "10.0.17763",
	capacity.FamilyWindows2022: "10.0.20348",
	capacity.FamilyWindows2025: "10.0.26100",
}

// eligible is one instance type that survived every filter.
type eligible struct {
	sel           catalog.Selected
	it            *catalog.InstanceType
	res           capacity.Result
	zones         []string           // pool zones where it is offered and allowed
	capacityTypes []string           // allowed capacity types it is offered as, spot first
	efa           int                // EFA interfaces of its launch-template layout
	ami           int                // index into Class.AMIs of the image it launches with; -1: none resolved
	group         int                // index into the launch templates
	price         float64            // cheapest allowed offering's hourly price (the sort key)
	priceCT       string             // its capacity type
	priceZone     string             // its zone
	prices        pricing.TypePrices // its prices (Prices.Of), looked up once by price
}

// eligibleTypes selects the types the requirements allow, drops those the class's network spec
// rules out, and orders the rest in launch order (sortByPrice).
//
// Zone and capacity-type requirements are not passed to Select: the catalog's offerings are the
// cross product of a type's zones and usage classes, and each requirement has one key, so
// evaluating them per offering equals intersecting the allowed zones (b.zones, from
// AllowedValues) and capacity types (b.capTypes) with each type's own. That spares Select a label
// map per offering, most of the planning time on a large catalog. min_values on those keys is
// checked afterwards by minValuesShortfall.
func (b *builder) eligibleTypes() []*eligible {
	opts := catalog.SelectOptions{Region: b.in.Region, Zones: b.zoneNames(), KarpenterVersion: b.in.KarpenterVersion}
	if capacity.IsWindows(b.family) {
		opts.OS, opts.WindowsBuild = "windows", windowsBuilds[b.family]
	}
	perType, origIndex := perTypeRequirements(b.in.Requirements)
	res, ok := b.selectMatching(perType, origIndex, opts)
	if !ok {
		return nil
	}
	elsewhere := b.offeredElsewhere(perType, opts, res.Types)
	if len(res.Types) == 0 {
		b.failNoneInZones(elsewhere)
		return nil
	}
	// Reported once: a warning when other types remain, else part of the error below.
	notInZones := b.notInZonesNote(elsewhere)

	out, dropped := b.launchable(res.Types)
	summary := b.describeDrops(&dropped, len(out) > 0)
	if len(out) == 0 {
		if notInZones != "" {
			summary = append(summary, notInZones)
		}
		b.failNoneLaunchable(len(res.Types), summary)
		return nil
	}
	if notInZones != "" {
		b.warn(SummaryNotInZones, pathRequirements, "%s", notInZones)
	}

	sortByPrice(out)
	if !b.checkEligibleMinValues(out, summary) {
		return nil
	}
	return out
}

// perTypeRequirements are the requirements Select evaluates (all but zone and capacity type, see
// eligibleTypes), with the index each has among reqs so that problems point at the right one.
func perTypeRequirements(reqs []requirements.Requirement) (perType []requirements.Requirement, origIndex []int) {
	for i, r := range reqs {
		if r.Key == requirements.LabelZone || r.Key == requirements.LabelCapacityType {
			continue
		}
		perType = append(perType, r)
		origIndex = append(origIndex, i)
	}
	return perType, origIndex
}

// selectMatching selects the catalog's types that match perType in the pool's zones. A min_values
// shortfall among them fails the plan, or is a warning under the BestEffort policy (Karpenter
// then launches them anyway); false when the plan failed.
func (b *builder) selectMatching(perType []requirements.Requirement, origIndex []int, opts catalog.SelectOptions) (catalog.SelectResult, bool) {
	res, err := b.in.Catalog.Select(perType, opts)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		at := pathRequirements.Index(origIndex[mv.Index]).Attr("min_values")
		msg := fmt.Sprintf("requirement on %q needs at least %d distinct values (min_values) but the matching instance types offer only %d",
			mv.Key, mv.Want, mv.Got)
		return res, b.minValuesShort(at, msg)
	}
	if err != nil {
		b.fail(pathRequirements, "selecting instance types: %v", err)
		return res, false
	}
	return res, true
}

// minValuesShort fails the plan with msg, or under the BestEffort min-values policy only warns;
// false when the plan failed.
func (b *builder) minValuesShort(at attrpath.Path, msg string) bool {
	if !b.in.MinValuesBestEffort {
		b.fail(at, "%s", msg)
		return false
	}
	b.warn(SummaryMinValuesAtRisk, at, "%s; with the BestEffort min-values policy Karpenter launches them anyway", msg)
	return true
}

// failNoneInZones fails a plan whose requirements match no type in the pool's zones, naming the
// types offered elsewhere when there are some: more subnets would fix it.
func (b *builder) failNoneInZones(elsewhere []string) {
	if len(elsewhere) > 0 {
		b.fail(pathRequirements, "the instance types the requirements match are not offered in the pool's zones %s: %s; add subnets in "+
			"those zones to the node class, or choose types offered in its zones", strings.Join(b.zoneNames(), ", "), someOf(elsewhere))
		return
	}
	b.fail(pathRequirements, "no instance type in the catalog (%d types) matches the requirements in the pool's zones %s",
		b.in.Catalog.Len(), strings.Join(b.zoneNames(), ", "))
}

// notInZonesNote says which matching types the pool's zones miss; "" when none.
func (b *builder) notInZonesNote(elsewhere []string) string {
	if len(elsewhere) == 0 {
		return ""
	}
	what := "the requirements name"
	if b.in.Class.EFA {
		what = "with EFA the requirements match"
	}
	return fmt.Sprintf("%d instance type(s) %s are not offered in the pool's zones %s: %s; add subnets in those zones to "+
		"the node class to launch them", len(elsewhere), what, strings.Join(b.zoneNames(), ", "), someOf(elsewhere))
}

// launchable runs the class's filters over the selected types, keeping their order: the types
// that pass, and the names of those that do not by drop reason.
func (b *builder) launchable(types []catalog.Selected) ([]*eligible, [dropReasons][]string) {
	var dropped [dropReasons][]string
	out := make([]*eligible, 0, len(types))
	pool := make([]eligible, len(types)) // one allocation for every candidate
	zoneBuf := make([]string, 0, len(types)*len(b.zones))
	memo := newComputeMemo(b.settings)
	for i, sel := range types {
		if reason, ok := b.admit(&pool[i], sel, memo, &zoneBuf); !ok {
			dropped[reason] = append(dropped[reason], sel.Type.Name)
			continue
		}
		out = append(out, &pool[i])
	}
	return out, dropped
}

// admit fills e for sel and reports whether the type can be launched, or else why it is dropped.
// The checks run cheapest first, so that most drops skip capacity.Compute and pricing.
func (b *builder) admit(e *eligible, sel catalog.Selected, memo *computeMemo, zoneBuf *[]string) (reason int, ok bool) {
	it := sel.Type
	if b.in.Class.EFA && !it.EFASupported {
		return dropNoEFA, false
	}
	if b.in.Class.AutoMode != nil {
		if !AutoModeFamily(it.Name) {
			return dropAutoMode, false
		}
	} else if !OfferedForFamily(b.in.KarpenterVersion, b.family, it.Name) {
		return dropAMIFamily, false
	}
	if reason, dropped := settingDrop(b.in.KarpenterVersion, &b.in.Class, it); dropped {
		return reason, false
	}
	ami, served := b.imageFor(it)
	if !served {
		return dropNoAMI, false
	}
	r, err := memo.compute(it)
	if err != nil {
		return dropReason(err), false
	}
	*e = eligible{sel: sel, it: it, res: r, ami: ami}
	if e.zones = b.poolZones(sel.Zones, zoneBuf); len(e.zones) == 0 {
		return dropZones, false
	}
	if e.capacityTypes = b.allowedCapacityTypes(it, e.zones); len(e.capacityTypes) == 0 {
		return dropCapacityType, false
	}
	if !b.price(e) {
		return dropNoPrice, false
	}
	if b.ifaces != nil || b.in.Class.EFA {
		// The configured efa-only count, or the type's EFA maximum for an EFA class.
		e.efa = r.EFAInterfaces
	}
	return 0, true
}

// imageFor is the index into Class.AMIs of the image the type launches with, -1 when the class
// resolved none (Karpenter then resolves it). It is false when no class image serves the type;
// the type's kind is then recorded for the drop message.
func (b *builder) imageFor(it *catalog.InstanceType) (int, bool) {
	if len(b.in.Class.AMIs) == 0 {
		return -1, true
	}
	ami := amiFor(b.in.Class.AMIs, it)
	if ami < 0 {
		if k := imageKind(it); !slices.Contains(b.noImage, k) {
			b.noImage = append(b.noImage, k)
		}
		return -1, false
	}
	return ami, true
}

// poolZones are the type's zones that are pool zones, appended to zoneBuf (shared by every
// candidate, so that one allocation serves them all) and capped there so that a later append
// cannot overwrite them.
func (b *builder) poolZones(offered []string, zoneBuf *[]string) []string {
	buf := *zoneBuf
	start := len(buf)
	for _, z := range offered {
		if b.zoneSet[z] {
			buf = append(buf, z)
		}
	}
	*zoneBuf = buf
	return buf[start:len(buf):len(buf)]
}

// allowedCapacityTypes are the pool's capacity types the type is offered as, in the pool's order
// (spot first); nil when none.
func (b *builder) allowedCapacityTypes(it *catalog.InstanceType, zones []string) []string {
	var out []string
	for _, ct := range b.capTypes {
		if ct == requirements.CapacityTypeReserved {
			if slices.ContainsFunc(zones, func(z string) bool { return b.hasReservedOffer(it.Name, z) }) {
				out = append(out, ct)
			}
			continue
		}
		if slices.Contains(it.UsageClasses, ct) {
			out = append(out, ct)
		}
	}
	return out
}

// describeDrops describes, in report order, each reason types were dropped for; while some
// types remain (warn), each is also a warning.
func (b *builder) describeDrops(dropped *[dropReasons][]string, warn bool) []string {
	var summary []string
	for reason, names := range dropped {
		if len(names) == 0 {
			continue
		}
		msg := b.dropMessage(reason, len(names), exampleNames(names))
		summary = append(summary, msg)
		if warn {
			b.warn(SummaryTypesDropped, pathRequirements, "dropped %s", msg)
		}
	}
	return summary
}

// failNoneLaunchable fails a plan whose matching types the class's filters all dropped, saying
// why for each.
func (b *builder) failNoneLaunchable(matched int, summary []string) {
	verb := "match"
	if matched == 1 {
		verb = "matches"
	}
	b.fail(pathRequirements, "%s %s the requirements but none can be launched: %s",
		pluralTypes(matched), verb, strings.Join(summary, "; "))
}

// checkEligibleMinValues checks min_values on the eligible types, naming the class's filters
// when they dropped types; false when the plan failed.
func (b *builder) checkEligibleMinValues(types []*eligible, summary []string) bool {
	i, got, short := minValuesShortfall(b.in.Requirements, types)
	if !short {
		return true
	}
	r := b.in.Requirements[i]
	msg := fmt.Sprintf("requirement on %q needs at least %d distinct values (min_values) but the eligible instance types offer only %d",
		r.Key, *r.MinValues, got)
	if len(summary) > 0 {
		msg += " after the node class's filters: " + strings.Join(summary, "; ")
	}
	return b.minValuesShort(pathRequirements.Index(i).Attr("min_values"), msg)
}

// minValuesShortfall is the first requirement whose min_values the types do not meet, with the
// distinct values they offer. Zone and capacity type count the types' pool zones and capacity
// types; tenancy and keys the catalog does not define are not checked.
func minValuesShortfall(reqs []requirements.Requirement, types []*eligible) (index, got int, short bool) {
	for i, r := range reqs {
		if r.MinValues == nil || r.Key == requirements.LabelInstanceTenancy || !catalog.IsDefinedKey(r.Key) {
			continue
		}
		distinct := map[string]bool{}
		for _, t := range types {
			switch r.Key {
			case requirements.LabelZone:
				for _, z := range t.zones {
					distinct[z] = true
				}
			case requirements.LabelCapacityType:
				for _, ct := range t.capacityTypes {
					distinct[ct] = true
				}
			default:
				if v, ok := t.sel.Labels[r.Key]; ok {
					distinct[v] = true
				}
			}
			if len(distinct) >= *r.MinValues {
				break
			}
		}
		if len(distinct) < *r.MinValues {
			return i, len(distinct), true
		}
	}
	return 0, 0, false
}

// offeredElsewhere names the types the requirements select by name (instance-type In) that the
// catalog offers, but only outside the pool's zones, with the zones where they are offered: a
// type dropped for its zones is otherwise silent, or the plan fails without saying why. Only
// pools that name types pay the second Select.
func (b *builder) offeredElsewhere(reqs []requirements.Requirement, opts catalog.SelectOptions, kept []catalog.Selected) []string {
	named := false
	for _, r := range reqs {
		if r.Key == requirements.LabelInstanceType && r.Operator == requirements.OpIn {
			named = true
		}
	}
	// Types named one by one, or the EFA-capable types of an EFA class (scarce, and offered in
	// few zones), are worth naming when the class's zones miss them; so is any type when none is
	// left in those zones.
	if !named && !b.in.Class.EFA && len(kept) > 0 {
		return nil
	}
	in := map[string]bool{}
	for _, t := range kept {
		in[t.Type.Name] = true
	}
	opts.Zones = nil
	all, err := b.in.Catalog.Select(reqs, opts)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range all.Types {
		if in[t.Type.Name] || len(t.Zones) == 0 || (b.in.Class.EFA && !t.Type.EFASupported) {
			continue
		}
		out = append(out, fmt.Sprintf("%s (offered in %s)", t.Type.Name, strings.Join(t.Zones, ", ")))
	}
	return out
}

// someOf joins up to five items and counts the rest.
func someOf(items []string) string {
	const shown = 5
	if len(items) <= shown {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:shown], "; "), len(items)-shown)
}
