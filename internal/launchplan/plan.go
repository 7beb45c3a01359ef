package launchplan

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Attribute paths of the node pool resource that problems point at.
var (
	pathRequirements = attrpath.Of("template", "requirements")
	pathLimits       = attrpath.Of("limits")
	pathReplicas     = attrpath.Of("replicas")
	pathNodeClass    = attrpath.Of("node_class")
	pathPool         = attrpath.Path{} // the pool as a whole
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

// Build plans what Karpenter would launch for one node pool on one node class.
//
// The returned problems are errors; an empty slice means success, and Plan.Warnings then holds
// the warnings. On error the plan holds only the warnings gathered so far.
//
// Instance types are ordered as Karpenter orders a NodeClaim's (InstanceTypes.OrderByPrice):
// by the price of the cheapest offering each has among the capacity types and zones the pool
// allows, ties by name; the first MaxInstanceTypes form the launch plan (Truncate), and
// min_values is checked on those. A type with no priced offering is not launched (Karpenter
// marks an offering without a price unavailable).
//
// The class's zones are the zones of its Subnets (a zone without a subnet cannot be launched
// into); Class.Zones is not consulted. Every eligible type gets a launch template, not only the
// MaxInstanceTypes in the launch plan, so that a type Karpenter picks by real price has one.
func Build(in Input) (Plan, []Problem) {
	b := &builder{in: in, seen: map[string]bool{}}
	return b.build()
}

type builder struct {
	// reservedFailed are the types each reserved-resource expression failed on (reserved.go).
	reservedFailed map[string][]string
	in             Input
	family         string // resolved AMI family
	settings       capacity.Settings
	ifaces         []capacity.Interface // configured network interfaces; nil when not configured

	classZones []string            // zones with a class subnet, sorted
	zones      []ZonePlan          // the pool's zones, sorted
	zoneSet    map[string]bool     // names of zones
	capTypes   []string            // allowed capacity types, spot first
	limits     map[string]*big.Rat // parsed cpu, memory, nodes

	warnings []Problem
	errs     []Problem
	seen     map[string]bool // warnings given, by summary, path and message

	noImage []string // kinds of eligible types no class image serves, e.g. "arm64", "amd64 with a GPU"

	// spotCap is Karpenter's spot offering filter: spot offerings above the cheapest on-demand
	// offering are left out of a launch that allows both (see launchSet); 0 when not applied.
	spotCap float64
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

func (b *builder) warn(summary string, path attrpath.Path, format string, args ...any) {
	p := Problem{Summary: summary, Path: path, Message: fmt.Sprintf(format, args...)}
	if key := p.Summary + "\x00" + p.Path.String() + "\x00" + p.Message; !b.seen[key] {
		b.seen[key] = true
		b.warnings = append(b.warnings, p)
	}
}

func (b *builder) fail(path attrpath.Path, format string, args ...any) {
	b.errs = append(b.errs, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (b *builder) failed() (Plan, []Problem) {
	return Plan{Warnings: b.warnings}, b.errs
}

func (b *builder) build() (Plan, []Problem) {
	if b.in.Catalog == nil {
		b.fail(pathPool, "no instance-type catalog: the provider could not describe the region's instance types")
		return b.failed()
	}
	if b.in.Prices == nil {
		b.in.Prices = pricing.Fallback(b.in.Region, "no prices were read for this plan")
	}
	b.resolveSettings()
	b.resolveZones()
	b.resolveCapacityTypes()
	b.parseLimits()
	b.checkBootstrap()
	b.checkImage()
	if len(b.errs) > 0 {
		return b.failed()
	}

	types := b.eligibleTypes()
	if len(b.errs) > 0 {
		return b.failed()
	}
	launch := b.truncate(b.launchSet(types))
	if len(b.errs) > 0 {
		return b.failed()
	}

	plan := Plan{Zones: b.zones, PriceSource: b.priceSource()}
	plan.LaunchTemplates = b.launchTemplates(types)
	plan.InstanceTypes = make([]TypePlan, 0, len(types))
	for _, t := range types {
		plan.InstanceTypes = append(plan.InstanceTypes, b.typePlan(t, plan.LaunchTemplates[t.group].Name))
	}
	plan.LaunchPlan = b.options(launch, plan.LaunchTemplates)
	plan.LaunchTypes = make([]string, len(launch))
	for i, t := range launch {
		plan.LaunchTypes[i] = t.it.Name
	}
	plan.Capacity, plan.NodesByIPs, plan.NodesByLimits = b.capacity(launch)
	plan.Cost = b.cost(launch)
	plan.Workloads = b.workloads(launch)
	b.capacityWarnings(plan)
	b.consistencyWarning(types)
	b.addressWarning(types)
	b.fallbackWarning(types)
	b.priceWarning()
	b.warnReservedFailures()
	plan.Warnings = b.warnings
	if len(b.errs) > 0 {
		return b.failed()
	}
	return plan, nil
}

// checkBootstrap fails a static pool whose nodes could not join: the provider launches them
// itself, so their user data must name the cluster and carry its endpoint, CA and service CIDR
// (a Custom AMI bootstraps itself). A dynamic pool's templates only show what Karpenter renders.
func (b *builder) checkBootstrap() {
	if b.in.Replicas == nil || b.family == capacity.FamilyCustom {
		return
	}
	missing := b.in.Bootstrap.Missing()
	if b.in.ClusterName == "" {
		missing = append([]string{"cluster_name"}, missing...)
	}
	if len(missing) > 0 {
		b.fail(pathReplicas, "the provider launches a static pool's nodes itself, and its %s nodes join only when their user data names "+
			"the cluster and carries its API endpoint, CA bundle and service CIDR; set the provider's %s (with terraform-aws-eks: "+
			"module.eks.cluster_name, cluster_endpoint, cluster_certificate_authority_data and cluster_service_cidr)",
			b.family, strings.Join(missing, ", "))
	}
}

// checkImage fails a static pool whose node class resolved no image at plan: the provider
// launches its nodes itself. A dynamic pool's class may leave an alias to Karpenter, which
// resolves it at runtime (the class's plan warns about that once).
func (b *builder) checkImage() {
	c := b.in.Class
	if b.in.Replicas == nil || len(c.AMIs) > 0 {
		return
	}
	why := c.AMIUnresolved
	if why == "" {
		why = "its AMI selector terms matched no image"
	}
	b.fail(pathReplicas, "the provider launches a static pool's nodes itself and needs an image, but node class %q resolved none at plan: %s "+
		"(an `ssm_parameter`, `id`, `name` or `tags` term resolves through EC2 and SSM in any account)", c.Name, why)
}

// consistencyWarning reports, once for the pool, the eligible types for which Karpenter will
// schedule against a different pod count than the kubelet runs with (the user data sets the
// kubelet's): Karpenter then over- or under-packs nodes.
func (b *builder) consistencyWarning(types []*eligible) {
	var names []string
	var first *eligible
	for _, t := range types {
		if !t.res.Consistent {
			if first == nil {
				first = t
			}
			names = append(names, t.it.Name)
		}
	}
	if first == nil {
		return
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	b.warn(SummaryMaxPodsDisagree, pathNodeClass, "Karpenter and the kubelet disagree on max pods for %d eligible instance types (%s): for %s Karpenter assumes %d, "+
		"the kubelet runs %d. %s", len(names), list, first.it.Name, first.res.KarpenterAssumedPods, first.res.MaxPods, first.res.Reason)
}

// addressWarning reports, once for the pool, the eligible types whose kubelet max pods (a fixed
// kubelet.max_pods) is above what their ENIs can address: the pods past that count stay
// without an IP. capacity.Compute carries the same rule (the pod capacity data source's
// warning), so the pool and the data source agree.
func (b *builder) addressWarning(types []*eligible) {
	var short []*eligible
	for _, t := range types {
		if t.res.AddressablePods > 0 && t.res.MaxPods > t.res.AddressablePods && (b.settings.MaxPods != nil || b.settings.MaxPodsExpression != "") {
			short = append(short, t)
		}
	}
	if len(short) == 0 {
		return
	}
	least := short[0]
	var parts []string
	for i, t := range short {
		if t.res.AddressablePods < least.res.AddressablePods {
			least = t
		}
		if i < 5 {
			parts = append(parts, fmt.Sprintf("%s %d", t.it.Name, t.res.AddressablePods))
		}
	}
	list := strings.Join(parts, ", ")
	if len(short) > 5 {
		list += fmt.Sprintf(" and %d more", len(short)-5)
	}
	fix := "turn on prefix delegation (Nitro types address up to 110 or 250 pods)"
	if b.settings.PrefixDelegation {
		fix = "use larger instance types"
	}
	if e := b.settings.MaxPodsExpression; e != "" {
		b.warn(SummaryMaxPodsUnaddressed, pathNodeClass, "the kubelet maxPods expression %q gives more pods than the ENIs can address on %d of %d "+
			"eligible instance types (type: addressable pods: %s; e.g. %s runs %d): those past the addressable count stay without an IP "+
			"(ContainerCreating). Bound it, e.g. min(%s, max_pods), %s, or narrow the requirements",
			e, len(short), len(types), list, least.it.Name, least.res.MaxPods, e, fix)
		return
	}
	b.warn(SummaryMaxPodsUnaddressed, pathNodeClass, "kubelet max_pods %d is above the pods the ENIs can address on %d of %d eligible instance "+
		"types (%s): the kubelet admits %d pods, and those past the addressable count stay without an IP (ContainerCreating). Lower "+
		"kubelet max_pods to %d, %s, or narrow the requirements to types that address %d pods",
		*b.settings.MaxPods, len(short), len(types), list, *b.settings.MaxPods, least.res.AddressablePods, fix, *b.settings.MaxPods)
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

// fallbackWarning reports the eligible types on which prefix delegation cannot work (Xen): the
// VPC CNI falls back to secondary IPs there, so they run the secondary-IP pod count.
func (b *builder) fallbackWarning(types []*eligible) {
	var parts []string
	n := 0
	for _, t := range types {
		if t.res.PrefixFallback {
			if n < 5 {
				parts = append(parts, fmt.Sprintf("%s %d", t.it.Name, t.res.MaxPods))
			}
			n++
		}
	}
	if n == 0 {
		return
	}
	list := strings.Join(parts, ", ")
	if n > 5 {
		list += fmt.Sprintf(" and %d more", n-5)
	}
	b.warn(SummaryPrefixFallback, pathNodeClass, "prefix delegation is on, but %d eligible instance type(s) run on Xen, where the VPC CNI "+
		"cannot assign prefixes and falls back to secondary IPs: they run that pod count (%s). Require Nitro types "+
		"(karpenter.k8s.aws/instance-hypervisor In [nitro]) for prefix density everywhere", n, list)
}

// resolveSettings settles the AMI family and the capacity settings. The class's AMIFamily wins
// over the CNI settings' copy; configured interfaces come from Class.NetworkInterfaces, else from
// the CNI settings.
func (b *builder) resolveSettings() {
	c := b.in.Class
	b.family = c.AMIFamily
	if b.family == "" {
		b.family = c.CNI.AMIFamily
	}
	b.family = capacity.ResolveFamily(b.family)
	b.settings = c.CNI
	b.settings.AMIFamily = b.family
	b.ifaces = c.NetworkInterfaces
	if b.ifaces == nil {
		b.ifaces = c.CNI.NetworkInterfaces
	}
	b.settings.NetworkInterfaces = b.ifaces
	for _, e := range capacity.ValidateSettings(b.settings) {
		b.fail(pathPool, "node class %q: %s", c.Name, e.Error())
	}
}

// resolveZones picks the pool's zones and, per zone, the subnet Karpenter launches into.
func (b *builder) resolveZones() {
	c := b.in.Class
	best := map[string]Subnet{}
	for _, s := range c.Subnets {
		cur, ok := best[s.Zone]
		if !ok || s.AvailableIPs > cur.AvailableIPs || (s.AvailableIPs == cur.AvailableIPs && s.ID < cur.ID) {
			best[s.Zone] = s
		}
	}
	for z := range best {
		b.classZones = append(b.classZones, z)
	}
	slices.Sort(b.classZones)
	if len(b.classZones) == 0 {
		b.fail(pathPool, "node class %q has no subnets, so the pool has no zone to launch into", c.Name)
		return
	}
	zoneIDs := make([]string, 0, len(b.classZones))
	zoneOfID := map[string]string{}
	for _, z := range b.classZones {
		if id := best[z].ZoneID; id != "" {
			zoneIDs = append(zoneIDs, id)
			zoneOfID[id] = z
		}
	}
	allZoneIDs := len(zoneIDs) == len(b.classZones)

	for i, r := range b.in.Requirements {
		if r.Operator != requirements.OpIn {
			continue
		}
		switch {
		case r.Key == requirements.LabelZone:
			for _, v := range r.Values {
				if _, ok := best[v]; !ok {
					b.fail(pathRequirements.Index(i).Attr("values"),
						"zone %q has no subnet of node class %q; the class's zones are %s", v, c.Name, strings.Join(b.classZones, ", "))
				}
			}
		case r.Key == requirements.LabelZoneID && allZoneIDs:
			for _, v := range r.Values {
				if _, ok := zoneOfID[v]; !ok {
					b.fail(pathRequirements.Index(i).Attr("values"),
						"zone ID %q has no subnet of node class %q; the class's zone IDs are %s", v, c.Name, strings.Join(zoneIDs, ", "))
				}
			}
		}
	}

	allowed := requirements.AllowedValues(b.in.Requirements, requirements.LabelZone, b.classZones)
	if allZoneIDs && mentions(b.in.Requirements, requirements.LabelZoneID) {
		ok := map[string]bool{}
		for _, id := range requirements.AllowedValues(b.in.Requirements, requirements.LabelZoneID, zoneIDs) {
			ok[zoneOfID[id]] = true
		}
		allowed = slices.DeleteFunc(allowed, func(z string) bool { return !ok[z] })
	}
	if len(allowed) == 0 {
		b.fail(pathRequirements, "the zone requirements allow none of node class %q's zones (%s)", c.Name, strings.Join(b.classZones, ", "))
		return
	}

	pods := map[string]PodSubnet{}
	for _, p := range c.PodSubnets {
		pods[p.Zone] = p
	}
	b.zoneSet = map[string]bool{}
	for _, z := range allowed {
		s := best[z]
		zp := ZonePlan{Zone: z, SubnetID: s.ID, AvailableIPs: s.AvailableIPs}
		if b.settings.CustomNetworking {
			if p, ok := pods[z]; ok {
				zp.PodSubnetID, zp.PodSubnetAvailableIPs = p.ID, p.AvailableIPs
			} else {
				b.warn(SummaryNoPodSubnet, pathPool, "custom networking is on but node class %q has no pod subnet in zone %s; pods on nodes there get no IPs",
					c.Name, z)
			}
		}
		b.zones = append(b.zones, zp)
		b.zoneSet[z] = true
	}
}

// resolveCapacityTypes reads karpenter.sh/capacity-type: on-demand only when no requirement
// mentions it; otherwise the allowed ones among spot and on-demand, spot first as Karpenter
// prefers it. Reserved capacity needs reservations the provider does not manage.
func (b *builder) resolveCapacityTypes() {
	first := -1
	for i, r := range b.in.Requirements {
		if r.Key != requirements.LabelCapacityType {
			continue
		}
		if first < 0 {
			first = i
		}
		if r.Operator == requirements.OpIn && slices.Contains(r.Values, requirements.CapacityTypeReserved) {
			b.warn(SummaryReservedIgnored, pathRequirements.Index(i).Attr("values"),
				"capacity type %q is ignored: the provider manages no capacity reservations, so nodes launch as on-demand or spot only",
				requirements.CapacityTypeReserved)
		}
	}
	if first < 0 {
		b.capTypes = []string{requirements.CapacityTypeOnDemand}
		return
	}
	b.capTypes = requirements.AllowedValues(b.in.Requirements, requirements.LabelCapacityType,
		[]string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand})
	if len(b.capTypes) == 0 {
		b.fail(pathRequirements.Index(first).Attr("values"),
			"the capacity-type requirements allow neither on-demand nor spot; the provider launches only those (reserved needs capacity reservations)")
	}
}

// Reasons an instance type that matched the requirements is not launched, in report order.
const (
	dropNoEFA = iota
	dropNoAMI
	dropInterfaces
	dropNoPodENI
	dropNetworkData
	dropOther
	dropZones
	dropCapacityType
	dropNoPrice
	dropReasons
)

func (b *builder) dropMessage(reason, count int, names string) string {
	n := pluralTypes(count)
	switch reason {
	case dropNoEFA:
		return fmt.Sprintf("%s without EFA support, which node class %q requires (%s)", n, b.in.Class.Name, names)
	case dropNoAMI:
		return fmt.Sprintf("%s of a kind no image of node class %q serves, %s (%s); its images serve %s", n, b.in.Class.Name,
			strings.Join(b.noImage, ", "), names, amiSummary(b.in.Class.AMIs))
	case dropInterfaces:
		return fmt.Sprintf("%s that cannot carry node class %q's network_interfaces layout (%s)", n, b.in.Class.Name, names)
	case dropNoPodENI:
		return fmt.Sprintf("%s with no ENI left for pods after reserved and efa-only ENIs (%s)", n, names)
	case dropNetworkData:
		return fmt.Sprintf("%s with incomplete network data in the catalog (%s)", n, names)
	case dropZones:
		return fmt.Sprintf("%s not offered in the pool's zones %s (%s)", n, strings.Join(b.zoneNames(), ", "), names)
	case dropCapacityType:
		return fmt.Sprintf("%s not offered as %s (%s)", n, strings.Join(b.capTypes, " or "), names)
	case dropNoPrice:
		return fmt.Sprintf("%s with no %s price in the pool's zones, which Karpenter treats as unavailable (%s; prices from %s)", n,
			strings.Join(b.capTypes, " or "), names, b.priceSource())
	default:
		return fmt.Sprintf("%s whose pod capacity could not be computed (%s)", n, names)
	}
}

func pluralTypes(n int) string {
	if n == 1 {
		return "1 instance type"
	}
	return fmt.Sprintf("%d instance types", n)
}

func dropReason(err error) int {
	switch {
	case errors.Is(err, capacity.ErrIncompatible):
		return dropInterfaces
	case errors.Is(err, capacity.ErrNoPodENI):
		return dropNoPodENI
	case errors.Is(err, capacity.ErrInvalidNetwork):
		return dropNetworkData
	}
	return dropOther
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

// exampleNames lists up to three names and how many more there are.
func exampleNames(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

func mentions(reqs []requirements.Requirement, key string) bool {
	for _, r := range reqs {
		if r.Key == key {
			return true
		}
	}
	return false
}

func (b *builder) zoneNames() []string {
	out := make([]string, len(b.zones))
	for i, z := range b.zones {
		out[i] = z.Zone
	}
	return out
}

func (b *builder) typePlan(t *eligible, lt string) TypePlan {
	return TypePlan{
		Name:                  t.it.Name,
		VCPUs:                 t.it.VCPUs,
		MemoryMiB:             t.it.MemoryMiB,
		Zones:                 t.zones, // owned by the plan: eligible values are not reused
		CapacityTypes:         t.capacityTypes,
		MaxPods:               t.res.MaxPods,
		ENILimitedPods:        t.res.ENILimitedPods,
		KarpenterAssumedPods:  t.res.KarpenterAssumedPods,
		VPCIPsAtMaxPods:       t.res.VPCIPsAtMaxPods,
		EFAInterfaces:         t.res.EFAInterfaces,
		PodSubnetIPsAtMaxPods: t.res.PodSubnetIPsAtMaxPods,
		LaunchTemplate:        lt,
		Price:                 t.price,
		PriceCapacityType:     t.priceCT,
		PriceZone:             t.priceZone,
		OnDemandPrice:         b.cheapestOf(t, requirements.CapacityTypeOnDemand),
		SpotPrice:             b.cheapestOf(t, requirements.CapacityTypeSpot),
	}
}

// options are the CreateFleet overrides: capacity type (spot first), then price order, then
// zone; offerings without a price are left out, as Karpenter leaves unavailable offerings out.
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

// computeMemo runs capacity.Compute once per distinct network description: the result depends
// on the numbers, not on the type's name (which only appears in error and warning text, and
// only the error's kind is used here), unless a maxPods expression reads the memory or the name. Catalogs repeat the same ENI, IP and vCPU figures across
// families (m5.large, c5.large and r5.large agree), so this saves most of the calls.
type computeMemo struct {
	settings capacity.Settings
	results  map[string]computed
	key      []byte
}

type computed struct {
	res capacity.Result
	err error
}

func (m *computeMemo) compute(it *catalog.InstanceType) (capacity.Result, error) {
	k := m.key[:0]
	for _, v := range [...]int{it.VCPUs, it.MaxENIs, it.DefaultCardIndex, it.IPv4PerENI, it.IPv6PerENI, it.MaxEFAInterfaces} {
		k = strconv.AppendInt(k, int64(v), 10)
		k = append(k, ',')
	}
	for _, c := range it.NetworkCards {
		k = strconv.AppendInt(k, int64(c.Index), 10)
		k = append(k, ':')
		k = strconv.AppendInt(k, int64(c.MaxENIs), 10)
		k = append(k, ',')
	}
	k = strconv.AppendBool(k, it.BareMetal)
	k = strconv.AppendBool(k, it.EFASupported)
	k = append(k, it.Hypervisor...)
	if m.settings.MaxPodsExpression != "" { // the expression may read the memory and the name
		k = strconv.AppendInt(append(k, ','), int64(it.MemoryMiB), 10)
		k = append(append(k, ','), it.Name...)
	}
	m.key = k
	if c, ok := m.results[string(k)]; ok {
		return c.res, c.err
	}
	r, err := capacity.Compute(catalog.ToNetwork(it), m.settings)
	m.results[string(k)] = computed{r, err}
	return r, err
}

// amiFor is the index of the first image (Karpenter's order: newest first) that serves the
// type, as Karpenter's MapToInstanceTypes picks it; -1 when none does.
func amiFor(amis []nodeclass.AMI, it *catalog.InstanceType) int {
	labels := catalog.Labels(it)
	for i, a := range amis {
		if a.Serves(labels) {
			return i
		}
	}
	return -1
}

// imageKind describes a type by what an image must serve for it: its architecture, and its
// accelerator when it has one (the alias variants nvidia and neuron).
func imageKind(it *catalog.InstanceType) string {
	l := catalog.Labels(it)
	k := l[requirements.LabelArch]
	if k == "" {
		k = strings.Join(it.Architectures, "/")
	}
	if _, ok := l[requirements.LabelInstanceGPUCount]; ok {
		return k + " with a GPU"
	}
	if _, ok := l[requirements.LabelInstanceAcceleratorCount]; ok {
		return k + " with an accelerator"
	}
	return k
}

// amiSummary names what the images serve, e.g. "amd64 (ami-1), arm64 nvidia (ami-2)".
func amiSummary(amis []nodeclass.AMI) string {
	parts := make([]string, len(amis))
	for i, a := range amis {
		parts[i] = a.Architecture
		if a.Variant != "" {
			parts[i] += " " + string(a.Variant)
		}
		parts[i] += " (" + a.ID + ")"
	}
	return strings.Join(parts, ", ")
}
