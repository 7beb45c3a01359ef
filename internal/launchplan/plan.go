package launchplan

import (
	"fmt"
	"math/big"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
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
	b := &builder{in: in, seen: map[string]bool{},
		reservedExprs: hasExpression(in.Class.Kubelet.KubeReserved) || hasExpression(in.Class.Kubelet.SystemReserved)}
	return b.build()
}

type builder struct {
	// reservedFailed are the types each reserved-resource expression failed on (reserved.go).
	reservedFailed map[string][]string
	// reservedExprs is whether the class's kube or system reserved resources hold an expression
	// (reserved.go): a property of the class, decided once per build.
	reservedExprs bool
	in            Input
	family        string // resolved AMI family
	settings      capacity.Settings
	ifaces        []capacity.Interface // configured network interfaces; nil when not configured

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

	// overlays are the NodeOverlays' changes to the pool's types (applyOverlays); overlaid is
	// false without overlays.
	overlays nodeoverlay.Applied
	overlaid bool

	// res is the reserved capacity the pool plans (reserved_capacity.go).
	res reserved
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
	b.applyOverlays()

	types := b.eligibleTypes()
	if len(b.errs) > 0 {
		return b.failed()
	}
	launch := b.truncate(b.launchSet(types))
	if len(b.errs) > 0 {
		return b.failed()
	}

	plan := Plan{Zones: b.zones, PriceSource: b.priceSource(), Overlays: b.overlayUses(types)}
	plan.LaunchTemplates = b.launchTemplates(types)
	plan.InstanceTypes = make([]TypePlan, 0, len(types))
	for _, t := range types {
		plan.InstanceTypes = append(plan.InstanceTypes, b.typePlan(t, templateName(plan.LaunchTemplates, t)))
	}
	plan.LaunchPlan = b.options(launch, plan.LaunchTemplates)
	plan.LaunchTypes = make([]string, len(launch))
	for i, t := range launch {
		plan.LaunchTypes[i] = t.it.Name
	}
	plan.Capacity, plan.NodesByIPs, plan.NodesByLimits = b.capacity(launch)
	plan.Reservations = b.reservationUses(types)
	rest := launch
	if b.res.kind != "" {
		rest = b.restLaunch(types)
	}
	plan.Cost = b.cost(rest, plan.Reservations)
	plan.ReservationsLine = b.reservationsLine(plan.Reservations)
	b.reservationFindings(plan.Reservations)
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

// templateName is the name of t's launch template; "" when the class has none (EKS Auto Mode).
func templateName(lts []LaunchTemplate, t *eligible) string {
	if t.group >= len(lts) {
		return ""
	}
	return lts[t.group].Name
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
		Extended:              b.extended(t),
	}
}

// extended are the extended resources overlays add to t (nil: none).
func (b *builder) extended(t *eligible) map[string]string {
	if !b.overlaid {
		return nil
	}
	q, _ := b.overlays.Capacity(t.it.Name)
	return q
}
