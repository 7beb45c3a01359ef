package launchplan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
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
	zones         []string // pool zones where it is offered and allowed
	capacityTypes []string // allowed capacity types it is offered as, spot first
	efa           int      // EFA interfaces of its launch-template layout
	ami           int      // index into Class.AMIs of the image it launches with; -1: none resolved
	group         int      // index into the launch templates
	price         float64  // cheapest allowed offering's hourly price (the sort key)
	priceCT       string   // its capacity type
	priceZone     string   // its zone
}

// eligibleTypes selects the types the requirements allow, drops those the class's network spec
// rules out, and orders the rest by (vCPUs, memory, name).
//
// Zone and capacity-type requirements are not passed to Select: the catalog's offerings are the
// cross product of a type's zones and usage classes, and each requirement has one key, so
// evaluating them per offering equals intersecting the allowed zones (b.zones, from
// AllowedValues) and capacity types (b.capTypes) with each type's own. That spares Select a label
// map per offering, most of the planning time on a large catalog. min_values on those keys is
// checked afterwards by minValuesShortfall.
func (b *builder) eligibleTypes() []*eligible {
	opts := catalog.SelectOptions{Region: b.in.Region, Zones: b.zoneNames()}
	if capacity.IsWindows(b.family) {
		opts.OS, opts.WindowsBuild = "windows", windowsBuilds[b.family]
	}
	var perType []requirements.Requirement
	var origIndex []int
	for i, r := range b.in.Requirements {
		if r.Key == requirements.LabelZone || r.Key == requirements.LabelCapacityType {
			continue
		}
		perType = append(perType, r)
		origIndex = append(origIndex, i)
	}
	res, err := b.in.Catalog.Select(perType, opts)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		at := pathRequirements.Index(origIndex[mv.Index]).Attr("min_values")
		msg := fmt.Sprintf("requirement on %q needs at least %d distinct values (min_values) but the matching instance types offer only %d",
			mv.Key, mv.Want, mv.Got)
		if !b.in.MinValuesBestEffort {
			b.fail(at, "%s", msg)
			return nil
		}
		b.warn(SummaryMinValuesAtRisk, at, "%s; with the BestEffort min-values policy Karpenter launches them anyway", msg)
	} else if err != nil {
		b.fail(pathRequirements, "selecting instance types: %v", err)
		return nil
	}
	elsewhere := b.offeredElsewhere(perType, opts, res.Types)
	if len(res.Types) == 0 {
		if len(elsewhere) > 0 {
			b.fail(pathRequirements, "the instance types the requirements match are not offered in the pool's zones %s: %s; add subnets in "+
				"those zones to the node class, or choose types offered in its zones", strings.Join(b.zoneNames(), ", "), someOf(elsewhere))
			return nil
		}
		b.fail(pathRequirements, "no instance type in the catalog (%d types) matches the requirements in the pool's zones %s",
			b.in.Catalog.Len(), strings.Join(b.zoneNames(), ", "))
		return nil
	}
	// Reported once: a warning when other types remain, else part of the error below.
	notInZones := ""
	if len(elsewhere) > 0 {
		what := "the requirements name"
		if b.in.Class.EFA {
			what = "with EFA the requirements match"
		}
		notInZones = fmt.Sprintf("%d instance type(s) %s are not offered in the pool's zones %s: %s; add subnets in those zones to "+
			"the node class to launch them", len(elsewhere), what, strings.Join(b.zoneNames(), ", "), someOf(elsewhere))
	}

	var dropped [dropReasons][]string
	out := make([]*eligible, 0, len(res.Types))
	pool := make([]eligible, len(res.Types)) // one allocation for every candidate
	zoneBuf := make([]string, 0, len(res.Types)*len(b.zones))
	memo := computeMemo{settings: b.settings, results: make(map[string]computed, len(res.Types)/2)}
	for i, sel := range res.Types {
		it := sel.Type
		if b.in.Class.EFA && !it.EFASupported {
			dropped[dropNoEFA] = append(dropped[dropNoEFA], it.Name)
			continue
		}
		ami := -1
		if len(b.in.Class.AMIs) > 0 {
			if ami = amiFor(b.in.Class.AMIs, it); ami < 0 {
				dropped[dropNoAMI] = append(dropped[dropNoAMI], it.Name)
				if k := imageKind(it); !slices.Contains(b.noImage, k) {
					b.noImage = append(b.noImage, k)
				}
				continue
			}
		}
		r, err := memo.compute(it)
		if err != nil {
			reason := dropReason(err)
			dropped[reason] = append(dropped[reason], it.Name)
			continue
		}
		e := &pool[i]
		*e = eligible{sel: sel, it: it, res: r, ami: ami}
		start := len(zoneBuf)
		for _, z := range sel.Zones {
			if b.zoneSet[z] {
				zoneBuf = append(zoneBuf, z)
			}
		}
		e.zones = zoneBuf[start:len(zoneBuf):len(zoneBuf)]
		if len(e.zones) == 0 {
			dropped[dropZones] = append(dropped[dropZones], it.Name)
			continue
		}
		for _, ct := range b.capTypes {
			if slices.Contains(it.UsageClasses, ct) {
				e.capacityTypes = append(e.capacityTypes, ct)
			}
		}
		if len(e.capacityTypes) == 0 {
			dropped[dropCapacityType] = append(dropped[dropCapacityType], it.Name)
			continue
		}
		if !b.price(e) {
			dropped[dropNoPrice] = append(dropped[dropNoPrice], it.Name)
			continue
		}
		if b.ifaces != nil || b.in.Class.EFA {
			// The configured efa-only count, or the type's EFA maximum for an EFA class.
			e.efa = r.EFAInterfaces
		}
		out = append(out, e)
	}

	var summary []string
	for reason, names := range dropped {
		if len(names) == 0 {
			continue
		}
		msg := b.dropMessage(reason, len(names), exampleNames(names))
		summary = append(summary, msg)
		if len(out) > 0 {
			b.warn(SummaryTypesDropped, pathRequirements, "dropped %s", msg)
		}
	}
	if len(out) == 0 {
		verb := "match"
		if len(res.Types) == 1 {
			verb = "matches"
		}
		if notInZones != "" {
			summary = append(summary, notInZones)
		}
		b.fail(pathRequirements, "%s %s the requirements but none can be launched: %s",
			pluralTypes(len(res.Types)), verb, strings.Join(summary, "; "))
		return nil
	}
	if notInZones != "" {
		b.warn(SummaryNotInZones, pathRequirements, "%s", notInZones)
	}

	sortByPrice(out)
	if i, got, ok := minValuesShortfall(b.in.Requirements, out); ok {
		r := b.in.Requirements[i]
		msg := fmt.Sprintf("requirement on %q needs at least %d distinct values (min_values) but the eligible instance types offer only %d",
			r.Key, *r.MinValues, got)
		if len(summary) > 0 {
			msg += " after the node class's filters: " + strings.Join(summary, "; ")
		}
		if !b.in.MinValuesBestEffort {
			b.fail(pathRequirements.Index(i).Attr("min_values"), "%s", msg)
			return nil
		}
		b.warn(SummaryMinValuesAtRisk, pathRequirements.Index(i).Attr("min_values"),
			"%s; with the BestEffort min-values policy Karpenter launches them anyway", msg)
	}
	return out
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
