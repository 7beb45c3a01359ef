package catalog

import (
	"errors"
	"maps"
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Tenancies Karpenter offers for every instance type.
var tenancies = []string{"default", "dedicated"}

// SelectOptions shape a Select.
type SelectOptions struct {
	// Region is the topology.kubernetes.io/region value; "" leaves the label out.
	Region string
	// Zones, when non-empty, restricts offerings to these zones: a type offered in none of
	// them is dropped.
	Zones []string
	// OS is the kubernetes.io/os value, "" for linux. With "windows" only amd64 types are
	// candidates, as Karpenter gives Windows AMI families no OS on other architectures.
	OS string
	// WindowsBuild is the node.kubernetes.io/windows-build value of a Windows AMI family.
	WindowsBuild string
	// IncludeIneligible also lists types Karpenter never asks EC2 for (non-HVM, or neither
	// x86_64 nor arm64, such as the Mac types).
	IncludeIneligible bool
}

// Selected is one instance type that satisfies the requirements.
type Selected struct {
	Type *InstanceType
	// Labels are Labels(Type) with the OS and region of the options applied. Shared with the
	// catalog and other Selects with the same options; do not modify.
	Labels map[string]string
	// Zones are the zones in which an offering of the type satisfies every requirement (all
	// of the type's zones, within SelectOptions.Zones, when no requirement is on the zone).
	Zones []string
}

// SelectResult is the outcome of Select.
type SelectResult struct {
	Types []Selected // sorted by name
	// Ignored lists the indexes of requirements whose key the catalog does not define (custom
	// node labels, topology.k8s.aws/zone-id, ...): they label nodes but do not narrow types.
	Ignored []int
}

// Select returns the instance types whose labels satisfy every requirement, NodePool style.
//
// Requirements on per-type keys (Labels) are matched against the type's labels. Requirements
// on offering keys (zone, capacity type, tenancy) are matched per offering: a type survives
// when at least one of its (zone, capacity type, tenancy) offerings satisfies every
// requirement. A key the type has no value for behaves as Karpenter's "does not exist": In,
// Exists, Gt, Lt, Gte and Lte fail, NotIn and DoesNotExist pass.
//
// min_values is then enforced over the surviving offerings; the first requirement that falls
// short yields a *requirements.MinValuesError whose Index is the requirement's index in reqs.
// The surviving types are returned alongside that error.
func (c *Catalog) Select(reqs []requirements.Requirement, opts SelectOptions) (SelectResult, error) {
	var res SelectResult
	var active, perType []requirements.Requirement
	var activeIndex []int
	useZone, useCapacity, useTenancy := false, false, false
	for i, r := range reqs {
		if !IsDefinedKey(r.Key) || (r.Key == requirements.LabelWindowsBuild && opts.OS == "windows" && opts.WindowsBuild == "") {
			res.Ignored = append(res.Ignored, i)
			continue
		}
		active = append(active, r)
		activeIndex = append(activeIndex, i)
		switch r.Key {
		case requirements.LabelZone:
			useZone = true
		case requirements.LabelCapacityType:
			useCapacity = true
		case requirements.LabelInstanceTenancy:
			useTenancy = true
		default:
			perType = append(perType, r)
		}
	}

	osName := opts.OS
	if osName == "" {
		osName = OSLinux
	}
	variant := labelVariant{os: osName, region: opts.Region}
	if osName == "windows" {
		variant.windowsBuild = opts.WindowsBuild
	}
	bases := c.baseLabels(variant)
	// Expanded offerings are evaluated on maps that hold only the keys the requirements read:
	// Filter looks at nothing else, and a full copy of the type's labels per offering is most
	// of the cost of a Select with zone or capacity-type requirements.
	var activeKeys []string
	for _, r := range active {
		if !slices.Contains(activeKeys, r.Key) {
			activeKeys = append(activeKeys, r.Key)
		}
	}

	var zoneFilter map[string]bool
	if len(opts.Zones) > 0 {
		zoneFilter = make(map[string]bool, len(opts.Zones))
		for _, z := range opts.Zones {
			zoneFilter[z] = true
		}
	}

	type candidate struct {
		it     *InstanceType
		labels map[string]string
		zones  []string
	}
	var cands []candidate
	var items []map[string]string
	var owner []int       // candidate index of each item
	var itemZone []string // zone of each item, "" when not expanded
	for ti, it := range c.types {
		if !opts.IncludeIneligible && !it.KarpenterEligible() {
			continue
		}
		if osName == "windows" && it.KubeArch() != "amd64" {
			continue
		}
		zones := it.Zones
		if zoneFilter != nil {
			zones = nil
			for _, z := range it.Zones {
				if zoneFilter[z] {
					zones = append(zones, z)
				}
			}
			if len(zones) == 0 {
				continue
			}
		}
		base := bases[ti]
		if !requirements.MatchesAll(perType, base) {
			continue // no offering can help: skip the expansion
		}
		ci := len(cands)
		cands = append(cands, candidate{it: it, labels: base, zones: zones})

		zoneVals, capVals, tenVals := []string{""}, []string{""}, []string{""}
		if useZone && len(zones) > 0 {
			zoneVals = zones
		}
		if useCapacity {
			if cts := capacityTypes(it); len(cts) > 0 {
				capVals = cts
			}
		}
		if useTenancy {
			tenVals = tenancies
		}
		if len(zoneVals) == 1 && zoneVals[0] == "" && len(capVals) == 1 && capVals[0] == "" && len(tenVals) == 1 && tenVals[0] == "" {
			items = append(items, base) // nothing to expand: evaluate the shared map
			owner = append(owner, ci)
			itemZone = append(itemZone, "")
			continue
		}
		for _, z := range zoneVals {
			for _, ct := range capVals {
				for _, ten := range tenVals {
					items = append(items, offeringLabels(activeKeys, base, z, ct, ten))
					owner = append(owner, ci)
					itemZone = append(itemZone, z)
				}
			}
		}
	}

	idx, err := requirements.Filter(active, items)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		remapped := *mv
		remapped.Index = activeIndex[mv.Index]
		err = &remapped
	}

	last := -1
	for _, i := range idx {
		ci := owner[i]
		if ci != last {
			cd := cands[ci]
			sel := Selected{Type: cd.it, Labels: cd.labels}
			if !useZone {
				sel.Zones = slices.Clone(cd.zones)
			}
			res.Types = append(res.Types, sel)
			last = ci
		}
		if useZone && itemZone[i] != "" {
			s := &res.Types[len(res.Types)-1]
			if len(s.Zones) == 0 || s.Zones[len(s.Zones)-1] != itemZone[i] {
				s.Zones = append(s.Zones, itemZone[i])
			}
		}
	}
	for i := range res.Types {
		if res.Types[i].Zones == nil {
			res.Types[i].Zones = []string{}
		}
	}
	return res, err
}

// capacityTypes are the type's usage classes Karpenter offers: on-demand and spot.
func capacityTypes(it *InstanceType) []string {
	var out []string
	for _, uc := range it.UsageClasses {
		if uc == UsageOnDemand || uc == UsageSpot {
			out = append(out, uc)
		}
	}
	return out
}

// offeringLabels is the part of base with the offering's zone, capacity type and tenancy (each
// when not "") set, restricted to keys.
func offeringLabels(keys []string, base map[string]string, zone, capacityType, tenancy string) map[string]string {
	l := make(map[string]string, len(keys))
	for _, k := range keys {
		switch {
		case k == requirements.LabelZone && zone != "":
			l[k] = zone
		case k == requirements.LabelCapacityType && capacityType != "":
			l[k] = capacityType
		case k == requirements.LabelInstanceTenancy && tenancy != "":
			l[k] = tenancy
		default:
			if v, ok := base[k]; ok {
				l[k] = v
			}
		}
	}
	return l
}

// labelVariant is what Select sets on top of a type's own labels.
type labelVariant struct{ os, windowsBuild, region string }

// maxLabelVariants bounds the variant cache: a provider process plans for one region and at most
// a few OS / Windows-build combinations.
const maxLabelVariants = 8

// baseLabels returns, index-aligned with c.types, each type's labels with the variant's OS,
// Windows build and region applied. The maps are shared by every Select with the same variant
// and must not be modified.
func (c *Catalog) baseLabels(v labelVariant) []map[string]string {
	c.variantsMu.Lock()
	defer c.variantsMu.Unlock()
	if b, ok := c.variants[v]; ok {
		return b
	}
	b := make([]map[string]string, len(c.types))
	for i := range c.types {
		l := maps.Clone(c.labels[i])
		l[requirements.LabelOS] = v.os
		if v.windowsBuild != "" {
			l[requirements.LabelWindowsBuild] = v.windowsBuild
		}
		if v.region != "" {
			l[requirements.LabelRegion] = v.region
		}
		b[i] = l
	}
	if c.variants == nil {
		c.variants = map[labelVariant][]map[string]string{}
	}
	if len(c.variants) < maxLabelVariants {
		c.variants[v] = b
	}
	return b
}
