package nodeclass

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// Capacity is what the capacity reservation and placement group selectors hit.
type Capacity struct {
	// Reservations are the reservations Karpenter would use (active, not ended, open or targeted)
	// and, beside them, those still to start (state scheduled: Capacity Blocks bought ahead), which
	// Karpenter sees once they are active; sorted by id; nil when the class has no capacity
	// reservation terms. Active has the ones Karpenter uses now.
	Reservations []discovery.CapacityReservation
	// PlacementGroup is the selected group; nil when the class has no selector or it matched nothing.
	PlacementGroup *discovery.PlacementGroup
}

// Active are the selected reservations Karpenter launches into now (nil when none is active):
// those still to start are left out. A reservation without a state (recorded before states
// were) counts as active.
func (c Capacity) Active() []discovery.CapacityReservation {
	var out []discovery.CapacityReservation
	for _, r := range c.Reservations {
		if isActive(r.State) {
			out = append(out, r)
		}
	}
	return out
}

func isActive(state string) bool {
	return state == "" || state == discovery.CapacityReservationStateActive
}

// SameSelection reports whether two outcomes selected the same reservations and group,
// ignoring the reservations' instance counts, which move with every launch (available) or with
// a change of the reservation that selects nothing else (total). A reservation that starts,
// moves its start or becomes interruptible is a change of selection.
func (c Capacity) SameSelection(o Capacity) bool {
	key := func(x Capacity) string {
		var b strings.Builder
		if x.Reservations == nil {
			b.WriteString("no-terms")
		}
		for _, r := range x.Reservations {
			state := r.State
			if isActive(state) {
				state = discovery.CapacityReservationStateActive
			}
			fmt.Fprintf(&b, "|r:%s/%s@%s/%s/%s/%s/%s/%d/%d/%t", r.ID, r.InstanceType, r.Zone, r.OwnerID, r.InstanceMatchCriteria,
				r.ReservationType, state, unixOrZero(r.StartDate), unixOrZero(r.EndDate), r.Interruptible)
		}
		if g := x.PlacementGroup; g != nil {
			fmt.Fprintf(&b, "|g:%s=%s/%s", g.ID, g.Name, g.Strategy)
			if g.Strategy == "partition" {
				fmt.Fprintf(&b, "/%d", g.PartitionCount)
			}
		}
		return b.String()
	}
	return key(c) == key(o)
}

// Findings are what a resolution reports: errors fail the plan, warnings do not.
type Findings struct {
	Errors   []FieldError
	Warnings []FieldError
}

// ReservationAnswer is EC2's answer to one capacity reservation query.
type ReservationAnswer struct {
	Query discovery.CapacityReservationQuery
	Found []discovery.CapacityReservation
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// ResolveCapacity is ResolveCapacityWithin at reservations.DefaultHorizon, for callers that use
// only the reservations Karpenter launches into now: the selection keeps the active ones
// (Capacity.Active; an empty, non-nil list when terms select none), while the findings still
// name those still to start.
func ResolveCapacity(ctx context.Context, api discovery.CapacityAPI, s Spec, zones []string, now time.Time) (Capacity, Findings, error) {
	c, f, err := ResolveCapacityWithin(ctx, api, s, zones, now, reservations.DefaultHorizon)
	if c.Reservations != nil {
		c.Reservations = append([]discovery.CapacityReservation{}, c.Active()...)
	}
	return c, f, err
}

// ResolveCapacityWithin looks the class's capacity reservations and placement group up in EC2
// (no call when neither selector is set) and judges the answers (see CapacityOutcome). zones
// are the zones of the class's subnets; now decides which reservations have ended, started or
// are expiring, and horizon how far ahead a Capacity Block's end is a warning. err is an API
// failure.
func ResolveCapacityWithin(ctx context.Context, api discovery.CapacityAPI, s Spec, zones []string, now time.Time,
	horizon time.Duration) (Capacity, Findings, error) {
	var answers []ReservationAnswer
	for _, q := range discovery.CapacityReservationQueries(s.CapacityReservationTerms) {
		found, err := api.FindCapacityReservations(ctx, q)
		if err != nil {
			return Capacity{}, Findings{}, err
		}
		answers = append(answers, ReservationAnswer{Query: q, Found: found})
	}
	var groups []discovery.PlacementGroup
	if s.PlacementGroupSelector != nil {
		var err error
		if groups, err = api.FindPlacementGroups(ctx, *s.PlacementGroupSelector); err != nil {
			return Capacity{}, Findings{}, err
		}
	}
	c, f := CapacityOutcome(s, answers, groups, zones, now, horizon)
	return c, f, nil
}

// CapacityOutcome turns EC2's answers into the selection and its findings, as Karpenter's
// node class status would see them:
//   - a placement group selector that finds no group, or a group that is not available, is an
//     error: Karpenter keeps the class not ready and launches nothing from it;
//   - capacity reservations are opportunistic (the class stays ready without any), so a term
//     that selects no usable reservation is a warning, as is a reservation in a zone where the
//     class has no subnet. Karpenter uses only active reservations that have not ended and whose
//     instance match criteria is open or targeted;
//   - a reservation still to start (scheduled) is kept in the selection, with a warning: Karpenter
//     does not see it, and no pool launches into it, before its start;
//   - an active Capacity Block that ends within horizon of now is a warning: Karpenter stops
//     launching into it reservations.ExpiringWindow before its end, and its nodes are reclaimed
//     at the end.
func CapacityOutcome(s Spec, answers []ReservationAnswer, groups []discovery.PlacementGroup, zones []string, now time.Time,
	horizon time.Duration) (Capacity, Findings) {
	var c Capacity
	var f Findings
	if sel := s.PlacementGroupSelector; sel != nil {
		c.PlacementGroup, f.Errors = placementGroupOutcome(*sel, groups)
	}
	if len(s.CapacityReservationTerms) > 0 {
		c.Reservations, f.Warnings = reservationsOutcome(s.CapacityReservationTerms, answers, zones, now, horizon)
	}
	return c, f
}

func placementGroupOutcome(sel discovery.PlacementGroupSelector, groups []discovery.PlacementGroup) (*discovery.PlacementGroup, []FieldError) {
	var match *discovery.PlacementGroup
	for i := range groups {
		g := groups[i]
		if (sel.ID != "" && g.ID == sel.ID) || (sel.ID == "" && g.Name == sel.Name) {
			match = &g
			break
		}
	}
	if match == nil {
		return nil, []FieldError{{Path: attrpath.Of("placement_group_selector"), Message: fmt.Sprintf(
			"placement group %s not found (in this account and region); Karpenter would keep the class not ready and launch no node from it", sel)}}
	}
	if match.State != discovery.PlacementGroupStateAvailable {
		return nil, []FieldError{{Path: attrpath.Of("placement_group_selector"), Message: fmt.Sprintf(
			"placement group %s (%s) is %s; Karpenter launches only into available groups", match.ID, match.Name, match.State)}}
	}
	return match, nil
}

// Summaries of the warnings on a reservation's dates.
const (
	SummaryBlockNotStarted       = "Capacity Block not started"
	SummaryReservationNotStarted = "Capacity reservation not started"
	SummaryBlockEnding           = "Capacity Block ends soon"
	SummaryBlockExpiring         = "Capacity Block expiring"
)

// reservationsOutcome keeps the usable reservations and those still to start (deduplicated, by
// id) and warns per term that selects none of them, per reservation outside the class's zones,
// per reservation still to start and per Capacity Block that ends within horizon.
func reservationsOutcome(terms []discovery.CapacityReservationTerm, answers []ReservationAnswer, zones []string, now time.Time,
	horizon time.Duration) ([]discovery.CapacityReservation, []FieldError) {
	var warns []FieldError
	at := func(i int) attrpath.Path { return attrpath.Of("capacity_reservation_selector_terms").Index(i) }
	warn := func(i int, format string, args ...any) {
		warns = append(warns, FieldError{Path: at(i), Message: fmt.Sprintf(format, args...)})
	}
	// why tells what makes a reservation unusable, "" when Karpenter would use it now or once it
	// starts.
	why := func(r discovery.CapacityReservation) string {
		switch {
		case r.State != discovery.CapacityReservationStateActive && r.State != discovery.CapacityReservationStateScheduled:
			return "is " + r.State
		case !r.EndDate.IsZero() && !r.EndDate.After(now):
			return "ended at " + r.EndDate.UTC().Format(time.RFC3339)
		case r.InstanceMatchCriteria != discovery.InstanceMatchOpen && r.InstanceMatchCriteria != discovery.InstanceMatchTargeted:
			return fmt.Sprintf("has instance match criteria %q, which Karpenter does not support", r.InstanceMatchCriteria)
		}
		return ""
	}

	byTerm := answersByTerm(terms, answers)
	selected := []discovery.CapacityReservation{}
	firstTerm := map[string]int{}
	for i, t := range terms {
		usable := 0
		var reasons []string
		for _, r := range byTerm[i] {
			if reason := why(r); reason != "" {
				reasons = append(reasons, fmt.Sprintf("%s %s", r.ID, reason))
				continue
			}
			usable++
			if _, seen := firstTerm[r.ID]; !seen {
				firstTerm[r.ID] = i
				selected = append(selected, r)
			}
		}
		switch {
		case usable > 0:
		case t.ID != "" && len(reasons) > 0:
			warn(i, "capacity reservation %s; Karpenter uses only active reservations that have not ended (and scheduled ones once they "+
				"start), so this term selects nothing",
				strings.Join(reasons, ", "))
		case t.ID != "":
			warn(i, "capacity reservation %s not found (in this account and region), so this term selects nothing", t.ID)
		default:
			msg := fmt.Sprintf("no active or scheduled capacity reservation matched %s", describeReservationTerm(t))
			if len(reasons) > 0 {
				msg += fmt.Sprintf(" (unusable: %s)", strings.Join(reasons, ", "))
			}
			warn(i, "%s; nodes of this class launch as on-demand or spot only", msg)
		}
	}
	sort.Slice(selected, func(a, b int) bool { return selected[a].ID < selected[b].ID })

	if len(zones) > 0 {
		for _, r := range selected {
			if !slices.Contains(zones, r.Zone) {
				warn(firstTerm[r.ID], "capacity reservation %s (%s) is in %s, where the class has no subnet (zones %s): Karpenter cannot launch into it",
					r.ID, r.InstanceType, r.Zone, strings.Join(zones, ", "))
			}
		}
	}
	for _, r := range selected {
		if f, ok := blockTiming(r, now, horizon); ok {
			f.Path = at(firstTerm[r.ID])
			warns = append(warns, f)
		}
	}
	return selected, warns
}

// answersByTerm are the reservations EC2 found for each term.
func answersByTerm(terms []discovery.CapacityReservationTerm, answers []ReservationAnswer) [][]discovery.CapacityReservation {
	byTerm := make([][]discovery.CapacityReservation, len(terms))
	for _, a := range answers {
		for _, i := range a.Query.Terms {
			if i < 0 || i >= len(terms) {
				continue
			}
			for _, r := range a.Found {
				if len(a.Query.IDs) > 0 && r.ID != terms[i].ID {
					continue // the shared id call answers every id term: keep this term's own
				}
				byTerm[i] = append(byTerm[i], r)
			}
		}
	}
	return byTerm
}

// blockTiming is the warning on a selected reservation's dates, if any: one still to start, or
// an active Capacity Block that ends within horizon of now (expiring in its last 40 minutes).
func blockTiming(cr discovery.CapacityReservation, now time.Time, horizon time.Duration) (FieldError, bool) {
	r := ReservationsOf([]discovery.CapacityReservation{cr})[0]
	what := fmt.Sprintf("%s %s (%s in %s", r.Kind(), r.ID, r.InstanceType, r.Zone)
	utc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch {
	case cr.State == discovery.CapacityReservationStateScheduled:
		start := "at a start date EC2 does not report"
		if !r.Start.IsZero() {
			start = "at " + utc(r.Start)
		}
		summary := SummaryReservationNotStarted
		if r.IsBlock() {
			summary = SummaryBlockNotStarted
		}
		return FieldError{Summary: summary, Message: fmt.Sprintf("%s, %d instances) is scheduled: it starts %s. Karpenter "+
			"does not see it until it starts, and no pool can launch into it before then", what, r.Total, start)}, true
	case !r.IsBlock() || !isActive(cr.State) || !r.EndsWithin(now, horizon):
		return FieldError{}, false
	case r.Expiring(now):
		return FieldError{Summary: SummaryBlockExpiring, Message: fmt.Sprintf("%s, %d of %d instances free) is expiring: it ends at %s, "+
			"and in its last %s Karpenter launches nothing there; its nodes are reclaimed at the end", what, r.Available, r.Total,
			utc(r.End), shortDuration(reservations.ExpiringWindow))}, true
	}
	return FieldError{Summary: SummaryBlockEnding, Message: fmt.Sprintf("%s, %d of %d instances free) ends at %s, within the %s "+
		"capacity_block_horizon: Karpenter stops launching into it %s before (at %s), and its nodes are reclaimed at the end",
		what, r.Available, r.Total, utc(r.End), shortDuration(horizon), shortDuration(reservations.ExpiringWindow),
		utc(r.End.Add(-reservations.ExpiringWindow)))}, true
}

// shortDuration writes d without zero units: 24h, 40m, 1h30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// describeReservationTerm renders a non-id term for messages: {k=v, …} owner … criteria ….
func describeReservationTerm(t discovery.CapacityReservationTerm) string {
	var parts []string
	if len(t.Tags) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
			kv = append(kv, k+"="+t.Tags[k])
		}
		parts = append(parts, "tags {"+strings.Join(kv, ", ")+"}")
	}
	if t.InstanceMatchCriteria != "" {
		parts = append(parts, "instance match criteria "+t.InstanceMatchCriteria)
	}
	if t.OwnerID != "" {
		parts = append(parts, "owner "+t.OwnerID)
	}
	return strings.Join(parts, ", ")
}

// ReservationsOf is the planner's view of discovered reservations, in the same order.
func ReservationsOf(cs []discovery.CapacityReservation) []reservations.Reservation {
	var out []reservations.Reservation
	for _, c := range cs {
		out = append(out, reservations.Reservation{ID: c.ID, InstanceType: c.InstanceType, Zone: c.Zone, OwnerID: c.OwnerID,
			MatchCriteria: c.InstanceMatchCriteria, Type: c.ReservationType, Available: c.AvailableInstanceCount,
			Total: c.TotalInstanceCount, Start: c.StartDate, End: c.EndDate, Interruptible: c.Interruptible})
	}
	return out
}
