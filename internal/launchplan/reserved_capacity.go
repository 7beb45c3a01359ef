package launchplan

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// Summaries of the reserved-capacity findings.
const (
	SummaryReplicasBeyondBlocks = "Replicas beyond the pool's Capacity Blocks"
	SummaryBlockEnds            = "Capacity Block ends soon"
)

// reserved is the builder's reserved-capacity state (resolveReservations).
type reserved struct {
	// allowed: the capacity-type requirements allow `reserved` (or there are none).
	allowed bool
	// on: reserved offerings are planned (allowed, Karpenter launches, its gate is on and some
	// reservation takes a launch now).
	on bool
	// whyNot says why reserved offerings are not planned ("" when on).
	whyNot string
	// offers are the usable reservations per type and zone: Karpenter's reserved offerings.
	offers map[string]map[string][]reservations.Reservation
	// kind is the kind of reservation the launch goes into (launchKind; "" before it is chosen,
	// or when no eligible type has a reserved offering): Karpenter launches one kind at a time.
	kind string
}

// Kinds of reservation Karpenter launches one at a time (its CapacityReservationTypeFilter and
// CapacityBlockFilter), in the order it breaks a tie of prices.
const (
	kindDefault       = reservations.TypeDefault
	kindBlock         = reservations.TypeCapacityBlock
	kindInterruptible = "interruptible"
)

var kindOrder = []string{kindDefault, kindBlock, kindInterruptible}

// interruptibleSince is the first Karpenter minor that tells interruptible reservations apart;
// before it they launch as default ones.
const interruptibleSince = "1.10"

// kindOf is the kind Karpenter launches r as.
func (b *builder) kindOf(r reservations.Reservation) string {
	switch {
	case r.IsBlock():
		return kindBlock
	case r.Interruptible && manifest.AtLeast(cmp.Or(b.in.KarpenterVersion, manifest.DefaultVersion), interruptibleSince):
		return kindInterruptible
	}
	return kindDefault
}

// now is the plan's clock; zero when the caller gave none (time findings are then skipped).
func (b *builder) now() time.Time { return b.in.Now }

// usableNow reports whether Karpenter can launch into r at the plan's time: it has started, is
// not expiring and has a free instance.
func (b *builder) usableNow(r reservations.Reservation) bool {
	now := b.now()
	if !now.IsZero() && (r.Upcoming(now) || r.Expiring(now) || r.Ended(now)) {
		return false
	}
	return r.Available > 0
}

// resolveReservations decides whether the pool plans reserved offerings. first is the index of
// the first capacity-type requirement (-1: none).
func (b *builder) resolveReservations(first int) {
	rs := &b.res
	rs.allowed = first < 0 || slices.Contains(requirements.AllowedValues(b.in.Requirements, requirements.LabelCapacityType,
		[]string{requirements.CapacityTypeReserved}), requirements.CapacityTypeReserved)
	switch {
	case b.in.Replicas != nil:
		rs.whyNot = reservations.ReasonLauncher
	case b.in.ReservedCapacityOff:
		rs.whyNot = reservations.ReasonGateOff
	case len(b.in.Class.Reservations) == 0:
		rs.whyNot = fmt.Sprintf("node class %q selects no capacity reservation", b.in.Class.Name)
	}
	if rs.whyNot == "" {
		for _, r := range b.in.Class.Reservations {
			if !b.usableNow(r) {
				continue
			}
			if rs.offers == nil {
				rs.offers = map[string]map[string][]reservations.Reservation{}
			}
			byZone := rs.offers[r.InstanceType]
			if byZone == nil {
				byZone = map[string][]reservations.Reservation{}
				rs.offers[r.InstanceType] = byZone
			}
			byZone[r.Zone] = append(byZone[r.Zone], r)
		}
		if rs.offers == nil {
			rs.whyNot = fmt.Sprintf("none of node class %q's reservations has a free instance Karpenter can launch into now", b.in.Class.Name)
		}
	}
	rs.on = rs.allowed && rs.whyNot == ""
	if first < 0 || rs.on || !rs.allowed {
		return
	}
	for i, r := range b.in.Requirements {
		if r.Key == requirements.LabelCapacityType && r.Operator == requirements.OpIn && slices.Contains(r.Values, requirements.CapacityTypeReserved) {
			b.warn(SummaryReservedIgnored, pathRequirements.Index(i).Attr("values"),
				"capacity type %q is not planned: %s, so nodes launch as on-demand or spot only", requirements.CapacityTypeReserved, rs.whyNot)
		}
	}
}

// hasReservedOffer reports whether a launch of name in zone can go into a reservation: one of
// the launch's kind once it is chosen (Karpenter's ReservedOfferingFilter then takes, per zone,
// the one with the most free instances).
func (b *builder) hasReservedOffer(name, zone string) bool {
	return slices.ContainsFunc(b.res.offers[name][zone], func(r reservations.Reservation) bool {
		return b.res.kind == "" || b.kindOf(r) == b.res.kind
	})
}

// reservedLaunch is the launch Karpenter makes while reserved capacity takes it: the types with
// an offering of the cheapest kind of reservation (ties: default, Capacity Block,
// interruptible), reserved only, before the exotic filter (its spot filter has no spot left to
// judge); a Capacity Block launch is of its cheapest type alone. false when no eligible type has
// a reserved offering in its zones (the launch is then on-demand or spot).
func (b *builder) reservedLaunch(types []*eligible) ([]*eligible, bool) {
	if !b.res.on {
		return nil, false
	}
	best := map[string]float64{}
	for _, t := range types {
		for _, z := range t.zones {
			for _, r := range b.res.offers[t.it.Name][z] {
				k, v := b.kindOf(r), b.reservedPrice(t.it.Name, z)
				if cur, ok := best[k]; !ok || v < cur {
					best[k] = v
				}
			}
		}
	}
	if len(best) == 0 {
		return nil, false
	}
	chosen := ""
	for _, k := range kindOrder {
		if v, ok := best[k]; ok && (chosen == "" || v < best[chosen]) {
			chosen = k
		}
	}
	b.res.kind = chosen
	var set []*eligible
	for _, t := range types {
		c := *t
		c.capacityTypes = []string{requirements.CapacityTypeReserved}
		if !b.price(&c) {
			continue // no offering of the chosen kind in its zones
		}
		set = append(set, &c)
	}
	sortByPrice(set)
	if chosen == kindBlock {
		set = set[:1] // Karpenter's CapacityBlockFilter launches one type into one block
	}
	if !hasMinValues(b.in.Requirements) {
		var generic []*eligible
		for _, t := range set {
			if !isExotic(t) {
				generic = append(generic, t)
			}
		}
		if len(generic) > 0 {
			set = generic
		}
	}
	return set, true
}

// reservedPrice is Karpenter's price of a reserved offering: its type's on-demand price in the
// zone divided by reservations.PriceDivisor, 0 when on-demand is not priced (Karpenter still
// offers it).
func (b *builder) reservedPrice(name, zone string) float64 {
	if v, ok := b.in.Prices.Price(name, pricing.OnDemand, zone); ok {
		return reservations.OfferingPrice(v)
	}
	return 0
}

// onDemandPrice is name's on-demand price in zone, or in any zone of the region's table.
func (b *builder) onDemandPrice(name, zone string) (float64, bool) {
	if v, ok := b.in.Prices.Price(name, pricing.OnDemand, zone); ok {
		return v, true
	}
	return b.in.Prices.Price(name, pricing.OnDemand, "")
}

// karpenterOrder sorts reservations as Karpenter tries their offerings: by reserved price (the
// on-demand price order), then id.
func (b *builder) karpenterOrder(rs []reservations.Reservation) []reservations.Reservation {
	out := slices.Clone(rs)
	price := func(r reservations.Reservation) float64 {
		v, _ := b.onDemandPrice(r.InstanceType, r.Zone)
		return v
	}
	sort.SliceStable(out, func(i, j int) bool {
		if pi, pj := price(out[i]), price(out[j]); pi != pj {
			return pi < pj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// nodeBudget is what the pool may still launch while reservations are counted in order: the
// replicas of a static pool, or what its limits leave.
type nodeBudget struct {
	replicas *int
	limits   map[string]*big.Rat
}

func (b *builder) newBudget() nodeBudget {
	nb := nodeBudget{limits: map[string]*big.Rat{}}
	if r := b.replicas(); r != nil {
		n := *r
		nb.replicas = &n
		return nb
	}
	for k, q := range b.limits {
		nb.limits[k] = new(big.Rat).Set(q)
	}
	return nb
}

// take launches up to want nodes of a type with cpus and mib, and returns how many fit.
func (nb *nodeBudget) take(want, cpus, mib int) int {
	n := want
	if nb.replicas != nil {
		n = min(n, *nb.replicas)
		*nb.replicas -= n
		return n
	}
	per := map[string]int64{limitNodes: 1, limitCPU: int64(cpus), limitMemory: int64(mib) * bytesPerMiB}
	for k, q := range nb.limits {
		if per[k] > 0 {
			n = min(n, max(0, floorDiv(q, per[k])))
		}
	}
	for k, q := range nb.limits {
		q.Sub(q, new(big.Rat).SetInt64(per[k]*int64(n)))
	}
	return n
}

// reservationUses judges each of the class's reservations for the pool, in Karpenter's order,
// and counts the nodes each covers before the pool falls to on-demand or spot. types are the
// pool's eligible types; launch the types of its launch.
func (b *builder) reservationUses(types []*eligible) []reservations.Use {
	if len(b.in.Class.Reservations) == 0 {
		return nil
	}
	byName := make(map[string]*eligible, len(types))
	for _, t := range types {
		byName[t.it.Name] = t
	}
	budget := b.newBudget()
	var out []reservations.Use
	for _, r := range b.karpenterOrder(b.in.Class.Reservations) {
		u := reservations.Use{Reservation: r}
		t := byName[r.InstanceType]
		if u.Reason = b.reservationReason(r, t); u.Reason == "" {
			if u.Nodes = budget.take(r.Available, t.it.VCPUs, t.it.MemoryMiB); u.Nodes == 0 {
				u.Reason = reservations.ReasonLimitsMet
			}
		}
		out = append(out, u)
	}
	return out
}

// reservationReason says why the pool cannot launch into r ("" when it can). t is r's type
// among the eligible ones (nil when it is not eligible).
func (b *builder) reservationReason(r reservations.Reservation, t *eligible) string {
	now := b.now()
	if b.in.Replicas != nil || b.in.ReservedCapacityOff {
		return b.openReservationReason(r, t)
	}
	switch {
	case !b.res.allowed:
		return reservations.ReasonReservedAllowed
	case !now.IsZero() && r.Expiring(now):
		return reservations.ReasonExpiring
	case !now.IsZero() && r.Ended(now) && !r.Upcoming(now):
		return reservations.ReasonEnded
	}
	return b.placeReason(r, t)
}

// openReservationReason judges r for launches that are not reserved ones (the provider's own
// launcher, or Karpenter with its ReservedCapacity gate off): EC2 applies an open reservation to
// a matching on-demand launch, and nothing else reaches a reservation.
func (b *builder) openReservationReason(r reservations.Reservation, t *eligible) string {
	why := reservations.ReasonGateOff
	if b.in.Replicas != nil {
		why = reservations.ReasonLauncher
	}
	switch {
	case r.MatchCriteria != "open":
		return why + ", and only launches that target it reach a targeted reservation"
	case !slices.Contains(b.capTypes, requirements.CapacityTypeOnDemand):
		return why + ", and the pool launches no on-demand node that EC2 could match to this open reservation"
	case b.capTypes[0] != requirements.CapacityTypeOnDemand:
		return why + ", and the pool launches " + b.capTypes[0] + " first; only on-demand launches use an open reservation"
	}
	return b.placeReason(r, t)
}

// placeReason is what rules r out for any launch into it: not started, its type not eligible,
// its zone not the pool's, no free instance ("" when none does).
func (b *builder) placeReason(r reservations.Reservation, t *eligible) string {
	now := b.now()
	switch {
	case !now.IsZero() && r.Upcoming(now):
		return reservations.ReasonUpcoming
	case t == nil:
		return reservations.ReasonTypeIneligible
	case !slices.Contains(t.zones, r.Zone):
		return reservations.ReasonZoneNotAllowed
	case r.Available == 0:
		return reservations.ReasonFull
	}
	return ""
}

// ReservedNodes are the nodes the reservations cover.
func ReservedNodes(uses []reservations.Use) int {
	n := 0
	for _, u := range uses {
		n += u.Nodes
	}
	return n
}

// reservationsLine is the summary's `reservations`: the reservations the pool launches into, in
// Karpenter's order, with the nodes each covers, and how the pool's other launches treat them.
func (b *builder) reservationsLine(uses []reservations.Use) string {
	if len(uses) == 0 {
		return ""
	}
	var used []string
	for _, u := range uses {
		if u.Reason != "" {
			continue
		}
		s := fmt.Sprintf("%s %s in %s covers %d", u.ID, u.InstanceType, u.Zone, u.Nodes)
		if u.Interruptible {
			s += " (interruptible: EC2 may reclaim it)"
		}
		if u.IsBlock() && !u.End.IsZero() {
			s += " until " + u.End.UTC().Format(time.RFC3339)
		}
		used = append(used, s)
	}
	idle := len(uses) - len(used)
	var sb strings.Builder
	switch {
	case len(used) == 0:
		sb.WriteString("none of the class's " + plural(len(uses), "reservation") + " takes this pool's nodes")
	case b.res.on && b.onlyReserved():
		fmt.Fprintf(&sb, "reserved only: %s; %d nodes in all; the pool allows only reserved capacity and launches nothing beyond them",
			strings.Join(used, ", "), ReservedNodes(uses))
	case b.res.on:
		fmt.Fprintf(&sb, "reserved first: %s; %d nodes before %s", strings.Join(used, ", "), ReservedNodes(uses), b.fallbackTypes())
	default:
		fmt.Fprintf(&sb, "on-demand launches of the type and zone use open %s: %s", plural(len(used), "reservation"), strings.Join(used, ", "))
	}
	if idle > 0 && len(used) > 0 {
		fmt.Fprintf(&sb, "; %d more of the class's reservations not used (see reservations)", idle)
	}
	switch {
	case b.in.Replicas != nil:
	case b.in.ReservedCapacityOff:
		sb.WriteString(". ReservedCapacity is off: Karpenter plans no reserved offering, and only on-demand launches consume open reservations")
	case b.res.on:
		sb.WriteString(". With ReservedCapacity on, Karpenter's on-demand and spot launches opt out of open reservations")
	}
	return sb.String()
}

// onlyReserved reports whether the pool allows no capacity type but reserved.
func (b *builder) onlyReserved() bool {
	return !slices.ContainsFunc(b.capTypes, func(ct string) bool { return ct != requirements.CapacityTypeReserved })
}

// fallbackTypes names what the pool launches once its reservations are full.
func (b *builder) fallbackTypes() string {
	var rest []string
	for _, ct := range b.capTypes {
		if ct != requirements.CapacityTypeReserved {
			rest = append(rest, ct)
		}
	}
	if len(rest) == 0 {
		return "the pool launches nothing more (it allows only reserved capacity)"
	}
	return "it falls to " + strings.Join(rest, ", then ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// reservationFindings are the static pool's and the time findings: replicas beyond what the pool's
// Capacity Blocks hold, and blocks the pool launches into that end within the horizon.
func (b *builder) reservationFindings(uses []reservations.Use) {
	now, horizon := b.now(), b.in.CapacityBlockHorizon
	if horizon <= 0 {
		horizon = reservations.DefaultHorizon
	}
	var blocks []string
	held := 0
	for _, u := range uses {
		if !u.IsBlock() {
			continue
		}
		if u.Reason == "" || u.Reason == reservations.ReasonUpcoming {
			blocks = append(blocks, u.String())
			if u.Reason == "" {
				held += u.Available
			}
		}
		if u.Reason == "" && !now.IsZero() && u.EndsWithin(now, horizon) {
			b.warn(SummaryBlockEnds, pathPool, "Capacity Block %s ends at %s (within %s): Karpenter stops launching into it at %s, "+
				"when it calls it expiring, and EC2 reclaims its %d instances at the end; %s",
				u, u.End.UTC().Format(time.RFC3339), horizon, u.End.Add(-reservations.ExpiringWindow).UTC().Format(time.RFC3339),
				u.Nodes, b.afterBlock())
		}
	}
	if r := b.replicas(); r != nil && len(blocks) > 0 && *r > held {
		b.warn(SummaryReplicasBeyondBlocks, pathReplicas, "replicas %d exceed the %d instances the pool's Capacity Blocks hold now (%s): "+
			"the other %d %s", *r, held, strings.Join(blocks, ", "), *r-held, b.afterBlock())
	}
}

// afterBlock says what happens to nodes the pool's Capacity Blocks cannot hold.
func (b *builder) afterBlock() string {
	if b.onlyReserved() {
		return "stay pending: the pool allows only reserved capacity"
	}
	return "launch as " + strings.TrimPrefix(b.fallbackTypes(), "it falls to ")
}

// restLaunch is the launch once the pool's reservations are full, or while reserved capacity is
// not planned: the eligible types without their reserved offerings, through the launch filters
// and the cut.
func (b *builder) restLaunch(types []*eligible) []*eligible {
	rest := make([]*eligible, 0, len(types))
	for _, t := range types {
		c := *t
		c.capacityTypes = slices.DeleteFunc(slices.Clone(t.capacityTypes), func(ct string) bool { return ct == requirements.CapacityTypeReserved })
		if len(c.capacityTypes) == 0 || !b.price(&c) {
			continue
		}
		rest = append(rest, &c)
	}
	sortByPrice(rest)
	set := b.openLaunchSet(rest)
	return set[:min(len(set), MaxInstanceTypes)]
}
