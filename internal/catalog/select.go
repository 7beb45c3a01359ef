package catalog

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	// KarpenterVersion is the Karpenter minor ("1.15") whose labels the types carry where they
	// differ between releases (the network bandwidth table); "" is the newest.
	KarpenterVersion string
}

// Selected is one instance type that satisfies the requirements.
type Selected struct {
	Type *InstanceType
	// Labels are Labels(Type) with the OS and region of the options applied. Shared with the
	// catalog and other Selects with the same options; do not modify.
	Labels map[string]string
	// Zones are the zones in which an offering of the type satisfies every requirement (all
	// of the type's zones, within SelectOptions.Zones, when no requirement is on the zone).
	// Shared with other Selects of the same requirements and options; do not modify.
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
//
// A catalog never changes, so Select is a function of reqs and opts: the answers of recent
// calls are kept, and pools with the same requirements on the same class (a module that stamps
// out a pool per team) share one selection. Each caller gets its own Types slice.
func (c *Catalog) Select(reqs []requirements.Requirement, opts SelectOptions) (SelectResult, error) {
	key := selectKey(reqs, opts)
	c.selectsMu.Lock()
	a, ok := c.selects[key]
	c.selectsMu.Unlock()
	if !ok {
		a.res, a.err = c.selectFresh(reqs, opts)
		c.selectsMu.Lock()
		if c.selects == nil || len(c.selects) >= maxKeptSelects {
			c.selects = map[string]selectAnswer{}
		}
		c.selects[key] = a
		c.selectsMu.Unlock()
	}
	return a.copy(), a.err
}

// maxKeptSelects bounds the Select answers a catalog keeps (a plan has a few distinct
// requirement sets per pool).
const maxKeptSelects = 256

// selectAnswer is one kept Select answer.
type selectAnswer struct {
	res SelectResult
	err error
}

// copy is the answer with Types and Ignored of the caller's own (each type's Labels and Zones
// are shared, see Selected).
func (a selectAnswer) copy() SelectResult {
	return SelectResult{Types: slices.Clone(a.res.Types), Ignored: slices.Clone(a.res.Ignored)}
}

// selectKey is everything a Select reads besides the catalog.
func selectKey(reqs []requirements.Requirement, opts SelectOptions) string {
	var b strings.Builder
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	for _, r := range reqs {
		field(r.Key)
		field(string(r.Operator))
		b.WriteString(strconv.Itoa(len(r.Values)))
		for _, v := range r.Values {
			field(v)
		}
		if r.MinValues != nil {
			b.WriteString("m" + strconv.Itoa(*r.MinValues))
		}
		b.WriteByte(';')
	}
	field(opts.Region)
	field(opts.OS)
	field(opts.WindowsBuild)
	field(opts.KarpenterVersion)
	b.WriteString(strconv.FormatBool(opts.IncludeIneligible))
	b.WriteString(strconv.Itoa(len(opts.Zones)))
	for _, z := range opts.Zones {
		field(z)
	}
	return b.String()
}

// selectFresh is Select without the kept answers.
func (c *Catalog) selectFresh(reqs []requirements.Requirement, opts SelectOptions) (SelectResult, error) {
	var res SelectResult
	q := c.newSelectQuery(reqs, opts, &res.Ignored)
	var o offerings
	for ti, it := range c.types {
		if !q.candidate(it, opts.IncludeIneligible) {
			continue
		}
		zones, ok := q.zonesOf(it)
		if !ok {
			continue
		}
		base := q.bases[ti]
		if !requirements.MatchesAll(q.perType, base) {
			continue // no offering can help: skip the expansion
		}
		o.add(q, it, base, zones)
	}

	var idx []int
	var err error
	if q.minValues {
		idx, err = requirements.Filter(q.active, o.items)
	} else { // every item passed every requirement already (add): nothing left to count
		idx = make([]int, len(o.owner))
		for i := range idx {
			idx[i] = i
		}
	}
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		remapped := *mv
		remapped.Index = q.activeIndex[mv.Index]
		err = &remapped
	}
	res.Types = o.selected(idx, q.useZone)
	return res, err
}

// selectQuery is what one Select evaluates: the requirements on keys the catalog defines,
// which offering keys they read, and the types' labels for the options' OS and region.
type selectQuery struct {
	active      []requirements.Requirement // the requirements Filter evaluates
	activeIndex []int                      // index in reqs of each active requirement
	perType     []requirements.Requirement // the active ones on per-type keys
	offering    []requirements.Requirement // the active ones on offering keys (zone, capacity type, tenancy)
	// minValues is whether an active requirement has min_values: only then are the offerings'
	// label maps built for Filter to count values over; otherwise add has decided each offering.
	minValues bool
	// activeKeys are the keys the active requirements read. Expanded offerings are evaluated on
	// maps that hold only these: Filter looks at nothing else, and a full copy of the type's
	// labels per offering is most of the cost of a Select with zone or capacity-type requirements.
	activeKeys                       []string
	useZone, useCapacity, useTenancy bool
	windows                          bool
	zoneFilter                       map[string]bool // opts.Zones; nil: any zone
	bases                            []map[string]string
}

// newSelectQuery sorts reqs into active and ignored (their indexes appended to ignored) and
// resolves the label variant of opts.
func (c *Catalog) newSelectQuery(reqs []requirements.Requirement, opts SelectOptions, ignored *[]int) *selectQuery {
	q := &selectQuery{}
	for i, r := range reqs {
		if !IsDefinedKey(r.Key) || (r.Key == requirements.LabelWindowsBuild && opts.OS == "windows" && opts.WindowsBuild == "") {
			*ignored = append(*ignored, i)
			continue
		}
		q.active = append(q.active, r)
		q.activeIndex = append(q.activeIndex, i)
		q.minValues = q.minValues || r.MinValues != nil
		switch r.Key {
		case requirements.LabelZone:
			q.useZone = true
		case requirements.LabelCapacityType:
			q.useCapacity = true
		case requirements.LabelInstanceTenancy:
			q.useTenancy = true
		default:
			q.perType = append(q.perType, r)
			continue
		}
		q.offering = append(q.offering, r)
	}
	for _, r := range q.active {
		if !slices.Contains(q.activeKeys, r.Key) {
			q.activeKeys = append(q.activeKeys, r.Key)
		}
	}

	osName := opts.OS
	if osName == "" {
		osName = OSLinux
	}
	variant := labelVariant{os: osName, region: opts.Region, minor: opts.KarpenterVersion}
	if osName == "windows" {
		variant.windowsBuild = opts.WindowsBuild
	}
	q.windows = osName == "windows"
	q.bases = c.baseLabels(variant)
	if len(opts.Zones) > 0 {
		q.zoneFilter = make(map[string]bool, len(opts.Zones))
		for _, z := range opts.Zones {
			q.zoneFilter[z] = true
		}
	}
	return q
}

// candidate reports whether the type can be selected at all: Karpenter asks EC2 only for
// eligible types, and Windows AMI families have only amd64 images.
func (q *selectQuery) candidate(it *InstanceType, includeIneligible bool) bool {
	if !includeIneligible && !it.KarpenterEligible() {
		return false
	}
	return !q.windows || it.KubeArch() == "amd64"
}

// zonesOf are the type's zones within the zone filter; false when the filter leaves none.
func (q *selectQuery) zonesOf(it *InstanceType) ([]string, bool) {
	if q.zoneFilter == nil {
		return it.Zones, true
	}
	all := true
	for _, z := range it.Zones {
		all = all && q.zoneFilter[z]
	}
	if all { // shared: selected clones what it keeps
		return it.Zones, len(it.Zones) > 0
	}
	var zones []string
	for _, z := range it.Zones {
		if q.zoneFilter[z] {
			zones = append(zones, z)
		}
	}
	return zones, len(zones) > 0
}

// offerings are the label maps Filter evaluates: one per candidate type, or one per offering of
// it that passes the offering requirements when a requirement reads an offering key. Without
// min_values the maps are not built (items stays nil): add has decided every offering.
type offerings struct {
	cands    []offeringOwner
	items    []map[string]string
	owner    []int    // candidate index of each item
	itemZone []string // zone of each item, "" when not expanded
	probe    map[string]string
}

type offeringOwner struct {
	it     *InstanceType
	labels map[string]string
	zones  []string
}

// add adds the type as a candidate, with its offerings over the offering keys q reads.
func (o *offerings) add(q *selectQuery, it *InstanceType, base map[string]string, zones []string) {
	ci := len(o.cands)
	o.cands = append(o.cands, offeringOwner{it: it, labels: base, zones: zones})

	zoneVals, capVals, tenVals := []string{""}, []string{""}, []string{""}
	if q.useZone && len(zones) > 0 {
		zoneVals = zones
	}
	if q.useCapacity {
		if cts := capacityTypes(it); len(cts) > 0 {
			capVals = cts
		}
	}
	if q.useTenancy {
		tenVals = tenancies
	}
	if len(zoneVals) == 1 && zoneVals[0] == "" && len(capVals) == 1 && capVals[0] == "" && len(tenVals) == 1 && tenVals[0] == "" {
		if q.minValues || requirements.MatchesAll(q.offering, base) {
			o.keep(q, base, ci, "") // nothing to expand: evaluate the shared map
		}
		return
	}
	for _, z := range zoneVals {
		for _, ct := range capVals {
			for _, ten := range tenVals {
				if q.minValues {
					o.keep(q, offeringLabels(q.activeKeys, base, z, ct, ten), ci, z)
					continue
				}
				// The offering requirements read only the offering keys: decide them on those.
				if o.probe == nil {
					o.probe = make(map[string]string, 3)
				}
				clear(o.probe)
				for _, k := range [...]string{requirements.LabelZone, requirements.LabelCapacityType, requirements.LabelInstanceTenancy} {
					if v, ok := offeringValue(k, base, z, ct, ten); ok {
						o.probe[k] = v
					}
				}
				if requirements.MatchesAll(q.offering, o.probe) {
					o.keep(q, nil, ci, z)
				}
			}
		}
	}
}

// keep adds an item of candidate ci in zone z (labels only when Filter will read them).
func (o *offerings) keep(q *selectQuery, labels map[string]string, ci int, z string) {
	if q.minValues {
		o.items = append(o.items, labels)
	}
	o.owner = append(o.owner, ci)
	o.itemZone = append(o.itemZone, z)
}

// offeringValue is the value an offering's label map has for the offering key k: the offering's
// own (zone, capacity type, tenancy) when set, else the type's.
func offeringValue(k string, base map[string]string, zone, capacityType, tenancy string) (string, bool) {
	switch {
	case k == requirements.LabelZone && zone != "":
		return zone, true
	case k == requirements.LabelCapacityType && capacityType != "":
		return capacityType, true
	case k == requirements.LabelInstanceTenancy && tenancy != "":
		return tenancy, true
	}
	v, ok := base[k]
	return v, ok
}

// selected folds the items Filter kept (idx, in order) back into their types; with a zone
// requirement a type's zones are those of its kept offerings, else all its candidate zones.
func (o *offerings) selected(idx []int, useZone bool) []Selected {
	var out []Selected
	last := -1
	for _, i := range idx {
		ci := o.owner[i]
		if ci != last {
			cd := o.cands[ci]
			sel := Selected{Type: cd.it, Labels: cd.labels}
			if !useZone {
				sel.Zones = slices.Clone(cd.zones)
			}
			out = append(out, sel)
			last = ci
		}
		if useZone && o.itemZone[i] != "" {
			s := &out[len(out)-1]
			if len(s.Zones) == 0 || s.Zones[len(s.Zones)-1] != o.itemZone[i] {
				s.Zones = append(s.Zones, o.itemZone[i])
			}
		}
	}
	for i := range out {
		if out[i].Zones == nil {
			out[i].Zones = []string{}
		}
	}
	return out
}

// CapacityTypes are the type's usage classes Karpenter offers: on-demand and spot.
func (it *InstanceType) CapacityTypes() []string { return capacityTypes(it) }

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
		if v, ok := offeringValue(k, base, zone, capacityType, tenancy); ok {
			l[k] = v
		}
	}
	return l
}

// labelVariant is what Select sets on top of a type's own labels: the OS, Windows build and
// region, and the Karpenter minor whose bandwidth table the network bandwidth label reads.
type labelVariant struct{ os, windowsBuild, region, minor string }

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
		if v.minor != "" {
			if mbps, ok := NetworkBandwidthMbps(v.minor, c.types[i].Name); ok {
				l[requirements.LabelInstanceNetworkBandwidth] = strconv.Itoa(mbps)
			} else {
				delete(l, requirements.LabelInstanceNetworkBandwidth)
			}
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
