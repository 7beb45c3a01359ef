package planner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// ReservationsQuery is a karpenter_capacity_reservations configuration: the classes of the
// configuration with the reservation ids each selects, the pools with their verdicts on their
// class's reservations (a node pool's `reservations`), and what narrows the listing.
type ReservationsQuery struct {
	NodeClasses   map[string][]string                         `tfsdk:"node_classes"`
	NodePools     map[string][]launchplan.ReservationUseValue `tfsdk:"node_pools"`
	InstanceTypes []string                                    `tfsdk:"instance_types"`
	Zones         []string                                    `tfsdk:"availability_zones"`
	// The read's answer (ReservationsResult), not part of the query.
	_ struct{} `tfsdk:"reservations"`
	_ struct{} `tfsdk:"unselected_ids"`
	_ struct{} `tfsdk:"idle_ids"`
}

// ReservationsPorts are what the listing asks of AWS.
type ReservationsPorts struct {
	// List lists the region's active and scheduled reservations, narrowed to the types and
	// zones when they are set.
	List func(ctx context.Context, instanceTypes, zones []string) ([]discovery.CapacityReservation, error)
	// Prices are the prices pools plan with (their on-demand side prices an idle reservation).
	Prices func(context.Context) *pricing.Prices
	// NodePools lists the cluster's karpenter.sh/v1 NodePools, JSON decoded
	// (kubeclient.Client.Objects); nil without the provider's kubernetes access.
	NodePools func(context.Context) ([]map[string]any, error)
	// Catalog is the region's instance types, on whose labels the cluster's NodePools are judged.
	Catalog func(context.Context) (*catalog.Catalog, error)
}

// ReservationValue is one entry of the data source's `reservations`.
type ReservationValue struct {
	ID              string            `tfsdk:"id"`
	InstanceType    string            `tfsdk:"instance_type"`
	Zone            string            `tfsdk:"availability_zone"`
	ReservationType string            `tfsdk:"reservation_type"`
	State           string            `tfsdk:"state"`
	MatchCriteria   string            `tfsdk:"instance_match_criteria"`
	OwnerID         string            `tfsdk:"owner_id"`
	Total           int64             `tfsdk:"total_instance_count"`
	Available       int64             `tfsdk:"available_instance_count"`
	StartDate       *string           `tfsdk:"start_date"`
	EndDate         *string           `tfsdk:"end_date"`
	Interruptible   bool              `tfsdk:"interruptible"`
	Tags            map[string]string `tfsdk:"tags"`
	SelectedBy      []string          `tfsdk:"selected_by"`
	UsedBy          []string          `tfsdk:"used_by"`
	Idle            bool              `tfsdk:"idle"`
	IdleReasons     []string          `tfsdk:"idle_reasons"`
	IdleHourlyCost  *float64          `tfsdk:"idle_hourly_cost"`
}

// ReservationsResult is what a karpenter_capacity_reservations read computes, shaped as its
// schema.
type ReservationsResult struct {
	Reservations  []ReservationValue `tfsdk:"reservations"`
	UnselectedIDs []string           `tfsdk:"unselected_ids"`
	IdleIDs       []string           `tfsdk:"idle_ids"`
}

// Summary of the warning on an idle reservation.
const summaryIdleReservation = "Idle capacity reservation"

// CheckReservationsQuery reports what the configuration gets wrong before any call: empty
// names, ids, types and zones.
func CheckReservationsQuery(q ReservationsQuery) []attrpath.Finding {
	var errs []attrpath.Finding
	bad := func(p attrpath.Path, msg string) {
		errs = append(errs, attrpath.Finding{Path: p, Summary: "Invalid capacity reservations query", Message: msg})
	}
	for _, class := range slices.Sorted(maps.Keys(q.NodeClasses)) {
		if strings.TrimSpace(class) == "" {
			bad(attrpath.Of("node_classes").Key(class), "a node class name must not be empty")
		}
		for i, id := range q.NodeClasses[class] {
			if strings.TrimSpace(id) == "" {
				bad(attrpath.Of("node_classes").Key(class).Index(i), "a reservation id must not be empty")
			}
		}
	}
	for _, pool := range slices.Sorted(maps.Keys(q.NodePools)) {
		if strings.TrimSpace(pool) == "" {
			bad(attrpath.Of("node_pools").Key(pool), "a node pool name must not be empty")
		}
		for i, u := range q.NodePools[pool] {
			if strings.TrimSpace(u.ID) == "" {
				bad(attrpath.Of("node_pools").Key(pool).Index(i).Attr("id"), "a reservation id must not be empty")
			}
		}
	}
	for i, t := range q.InstanceTypes {
		if strings.TrimSpace(t) == "" {
			bad(attrpath.Of("instance_types").Index(i), "an instance type must not be empty")
		}
	}
	for i, z := range q.Zones {
		if strings.TrimSpace(z) == "" {
			bad(attrpath.Of("availability_zones").Index(i), "an availability zone must not be empty")
		}
	}
	return errs
}

// Reservations lists the region's reservations with the classes that select them and the pools
// that use them (those of node_pools and, with cluster access, the cluster's other NodePools on
// the classes: ClusterPoolUses), and judges which selected ones sit idle while billed
// (reservations.FindIdle): a warning on the first class that selects each, naming what it costs
// per hour unused.
func Reservations(ctx context.Context, q ReservationsQuery, ports ReservationsPorts, facts ReservationsFacts) (ReservationsResult, []attrpath.Finding,
	[]attrpath.Finding) {
	if errs := CheckReservationsQuery(q); len(errs) > 0 {
		return ReservationsResult{}, errs, nil
	}
	listed, err := ports.List(ctx, q.InstanceTypes, q.Zones)
	if err != nil {
		return ReservationsResult{}, []attrpath.Finding{{Summary: "Cannot list capacity reservations",
			Message: err.Error() + "\n\nThe data source needs ec2:DescribeCapacityReservations."}}, nil
	}
	var prices *pricing.Prices
	pricesRead := false
	price := func(instanceType, zone string) (float64, bool) {
		if !pricesRead {
			prices, pricesRead = ports.Prices(ctx), true
		}
		return prices.Price(instanceType, pricing.OnDemand, zone)
	}
	cluster, clusterRead, warnings := ClusterPoolUses(ctx, q, nodeclass.ReservationsOf(activeOf(listed)), ports, facts)
	out, idle := JudgeReservations(listed, q, cluster, price)
	for _, i := range idle {
		warnings = append(warnings, idleWarning(i, prices, clusterRead))
	}
	return out, nil, warnings
}

// JudgeReservations is the listing's answer for the listed reservations: each with the classes
// that select it, the pools that use it and, when it is active with free instances and no pool
// uses it, what it costs per hour; and the selected ones that sit idle (reservations.FindIdle).
// cluster are the verdicts of the cluster's NodePools outside node_pools (ClusterPoolUses),
// judged after node_pools' and named after them in `used_by`. price gives a type's on-demand
// hourly price in a zone.
func JudgeReservations(listed []discovery.CapacityReservation, q ReservationsQuery, cluster []reservations.PoolUses,
	price func(instanceType, zone string) (float64, bool)) (ReservationsResult, []reservations.Idle) {
	listed = slices.SortedFunc(slices.Values(listed), func(a, b discovery.CapacityReservation) int { return strings.Compare(a.ID, b.ID) })
	listed = slices.CompactFunc(listed, func(a, b discovery.CapacityReservation) bool { return a.ID == b.ID })

	selected := map[string][]string{}
	for _, class := range slices.Sorted(maps.Keys(q.NodeClasses)) {
		for _, id := range q.NodeClasses[class] {
			if !slices.Contains(selected[id], class) {
				selected[id] = append(selected[id], class)
			}
		}
	}
	var pools []reservations.PoolUses
	usedBy := map[string][]string{}
	for _, pool := range slices.Sorted(maps.Keys(q.NodePools)) {
		p := reservations.PoolUses{Pool: pool}
		for _, v := range q.NodePools[pool] {
			u := v.Use()
			p.Uses = append(p.Uses, u)
			if u.Reason == "" && !slices.Contains(usedBy[u.ID], pool) {
				usedBy[u.ID] = append(usedBy[u.ID], pool)
			}
		}
		pools = append(pools, p)
	}
	for _, p := range cluster {
		for _, u := range p.Uses {
			if u.Reason == "" && !slices.Contains(usedBy[u.ID], p.Pool) {
				usedBy[u.ID] = append(usedBy[u.ID], p.Pool)
			}
		}
		pools = append(pools, p)
	}

	idle := reservations.FindIdle(selected, nodeclass.ReservationsOf(activeOf(listed)), pools, price)
	idleByID := map[string]reservations.Idle{}
	for _, i := range idle {
		idleByID[i.ID] = i
	}

	out := ReservationsResult{Reservations: make([]ReservationValue, 0, len(listed)), UnselectedIDs: []string{}, IdleIDs: []string{}}
	for _, r := range listed {
		v := ReservationValue{ID: r.ID, InstanceType: r.InstanceType, Zone: r.Zone, ReservationType: r.ReservationType, State: r.State,
			MatchCriteria: r.InstanceMatchCriteria, OwnerID: r.OwnerID, Total: int64(r.TotalInstanceCount),
			Available: int64(r.AvailableInstanceCount), StartDate: rfc3339(r.StartDate), EndDate: rfc3339(r.EndDate),
			Interruptible: r.Interruptible, Tags: r.Tags, SelectedBy: nonNil(selected[r.ID]), UsedBy: nonNil(usedBy[r.ID]),
			IdleReasons: []string{}}
		if v.Tags == nil {
			v.Tags = map[string]string{}
		}
		free := r.State == discovery.CapacityReservationStateActive && r.AvailableInstanceCount > 0
		if i, ok := idleByID[r.ID]; ok {
			v.Idle, v.IdleReasons = true, nonNil(i.Reasons)
			out.IdleIDs = append(out.IdleIDs, r.ID)
		}
		if free && len(v.SelectedBy) == 0 {
			out.UnselectedIDs = append(out.UnselectedIDs, r.ID)
		}
		if free && len(v.UsedBy) == 0 {
			if p, ok := price(r.InstanceType, r.Zone); ok {
				cost := p * float64(r.AvailableInstanceCount)
				v.IdleHourlyCost = &cost
			}
		}
		out.Reservations = append(out.Reservations, v)
	}
	return out, idle
}

// activeOf are the active reservations of listed.
func activeOf(listed []discovery.CapacityReservation) []discovery.CapacityReservation {
	var active []discovery.CapacityReservation
	for _, r := range listed {
		if r.State == discovery.CapacityReservationStateActive {
			active = append(active, r)
		}
	}
	return active
}

// idleWarning names an idle reservation, what it costs per hour unused and why no pool takes
// it, on the first class that selects it. clusterRead says the cluster's other NodePools were
// judged too.
func idleWarning(i reservations.Idle, prices *pricing.Prices, clusterRead bool) attrpath.Finding {
	pools := "pool in node_pools"
	if clusterRead {
		pools = "pool in node_pools or NodePool of the cluster"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s of %s in %s selected by %s, has %d of %d instances free and no %s launches into it",
		i.ID, withArticle(i.Kind()), i.InstanceType, i.Zone, classesPhrase(i.Classes), i.Available, i.Total, pools)
	if i.Priced {
		fmt.Fprintf(&b, ": %s USD/h unused (%d × %s USD/h, its on-demand price", launchplan.FormatPrice(i.HourlyCost()), i.Available,
			launchplan.FormatPrice(i.HourlyPrice))
		if prices != nil && prices.Fallback != nil {
			b.WriteString(" from " + launchplan.PriceSource(prices))
		}
		b.WriteString(").")
	} else {
		b.WriteString("; its on-demand price is not known, so neither is what it costs unused.")
	}
	if len(i.Reasons) > 0 {
		b.WriteString(" Why no pool takes it:")
		for _, r := range i.Reasons {
			b.WriteString("\n  - " + r)
		}
	} else {
		fmt.Fprintf(&b, " No %s is on %s.", pools, classesPhrase(i.Classes))
	}
	return attrpath.Finding{Path: attrpath.Of("node_classes").Key(i.Classes[0]), Summary: summaryIdleReservation,
		Message: b.String(), Standalone: true}
}

// withArticle is a kind with "a" or "an" in front.
func withArticle(kind string) string {
	if strings.ContainsRune("aeiouAEIOU", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// classesPhrase is "class gpu" or "classes a, b".
func classesPhrase(classes []string) string {
	if len(classes) == 1 {
		return "class " + classes[0]
	}
	return "classes " + strings.Join(classes, ", ")
}

func rfc3339(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}
