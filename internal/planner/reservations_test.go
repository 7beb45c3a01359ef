package planner

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

func listedReservation(id, typ, zone, state string, available int) discovery.CapacityReservation {
	return discovery.CapacityReservation{ID: id, InstanceType: typ, Zone: zone, State: state, OwnerID: "111111111111",
		InstanceMatchCriteria: "targeted", ReservationType: reservations.TypeDefault, AvailableInstanceCount: available, TotalInstanceCount: 4}
}

func useValue(id, typ, zone string, available, nodes int64, reason string) launchplan.ReservationUseValue {
	v := launchplan.ReservationUseValue{ID: id, InstanceType: typ, Zone: zone, ReservationType: reservations.TypeDefault,
		Available: available, Nodes: nodes}
	if reason != "" {
		v.Reason = &reason
	}
	return v
}

// reservationPorts serve the listing and prices, counting the price loads.
func reservationPorts(listed []discovery.CapacityReservation, prices *pricing.Prices, loads *int) ReservationsPorts {
	return ReservationsPorts{
		List: func(context.Context, []string, []string) ([]discovery.CapacityReservation, error) { return listed, nil },
		Prices: func(context.Context) *pricing.Prices {
			*loads++
			return prices
		},
	}
}

func byID(t *testing.T, out ReservationsResult, id string) ReservationValue {
	t.Helper()
	for _, r := range out.Reservations {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s not listed in %+v", id, out.Reservations)
	return ReservationValue{}
}

// The case: a class selects three reservations; one a pool uses, one in a zone no pool
// allows, one of a type no pool is eligible for. The two idle ones are warnings with their
// hourly cost and reasons; an active one no class selects is unselected.
func TestReservationsIdleWithReasons(t *testing.T) {
	end := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	block := listedReservation("cr-c-block", "p5.48xlarge", "us-east-1c", "active", 2)
	block.ReservationType, block.EndDate, block.TotalInstanceCount = reservations.TypeCapacityBlock, end, 2
	listed := []discovery.CapacityReservation{
		listedReservation("cr-b-zone", "m5.large", "us-east-1b", "active", 3),
		listedReservation("cr-a-used", "m5.large", "us-east-1a", "active", 4),
		block,
		listedReservation("cr-d-other", "c5.large", "us-east-1a", "active", 1),
		listedReservation("cr-e-full", "c5.large", "us-east-1a", "active", 0),
		listedReservation("cr-f-scheduled", "c5.large", "us-east-1a", "scheduled", 4),
	}
	listed[3].Tags = map[string]string{"team": "web"}
	q := ReservationsQuery{
		NodeClasses: map[string][]string{"gpu": {"cr-a-used", "cr-b-zone", "cr-c-block", "cr-e-full"}, "spare": {"cr-b-zone"}},
		NodePools: map[string][]launchplan.ReservationUseValue{
			"general": {
				useValue("cr-a-used", "m5.large", "us-east-1a", 4, 4, ""),
				useValue("cr-b-zone", "m5.large", "us-east-1b", 3, 0, reservations.ReasonZoneNotAllowed),
				useValue("cr-c-block", "p5.48xlarge", "us-east-1c", 2, 0, reservations.ReasonTypeIneligible),
			},
			"batch": {
				useValue("cr-a-used", "m5.large", "us-east-1a", 4, 0, reservations.ReasonReservedAllowed),
				useValue("cr-c-block", "p5.48xlarge", "us-east-1c", 2, 0, reservations.ReasonTypeIneligible),
			},
		},
	}
	prices := &pricing.Prices{Region: "us-east-1", OnDemand: map[string]float64{"m5.large": 0.096, "p5.48xlarge": 98.32, "c5.large": 0.085},
		OnDemandSource: pricing.SourcePricingAPI}
	loads := 0
	out, errs, warnings := Reservations(context.Background(), q, reservationPorts(listed, prices, &loads), ReservationsFacts{})
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if loads != 1 {
		t.Errorf("prices loaded %d times, want once", loads)
	}

	var ids []string
	for _, r := range out.Reservations {
		ids = append(ids, r.ID)
	}
	if want := []string{"cr-a-used", "cr-b-zone", "cr-c-block", "cr-d-other", "cr-e-full", "cr-f-scheduled"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("listed %v, want %v (sorted by id)", ids, want)
	}
	if want := []string{"cr-b-zone", "cr-c-block"}; !reflect.DeepEqual(out.IdleIDs, want) {
		t.Errorf("idle_ids %v, want %v", out.IdleIDs, want)
	}
	if want := []string{"cr-d-other"}; !reflect.DeepEqual(out.UnselectedIDs, want) {
		t.Errorf("unselected_ids %v, want %v (active, free, no class; not the full or scheduled one)", out.UnselectedIDs, want)
	}

	used := byID(t, out, "cr-a-used")
	if used.Idle || !reflect.DeepEqual(used.UsedBy, []string{"general"}) || !reflect.DeepEqual(used.SelectedBy, []string{"gpu"}) ||
		used.IdleHourlyCost != nil || len(used.IdleReasons) != 0 {
		t.Errorf("used: %+v", used)
	}
	zone := byID(t, out, "cr-b-zone")
	if !zone.Idle || !reflect.DeepEqual(zone.SelectedBy, []string{"gpu", "spare"}) || len(zone.UsedBy) != 0 ||
		!reflect.DeepEqual(zone.IdleReasons, []string{"general: " + reservations.ReasonZoneNotAllowed}) {
		t.Errorf("zone: %+v", zone)
	}
	if zone.IdleHourlyCost == nil || math.Abs(*zone.IdleHourlyCost-0.288) > 1e-9 {
		t.Errorf("zone cost: %v", zone.IdleHourlyCost)
	}
	blk := byID(t, out, "cr-c-block")
	if !blk.Idle || blk.ReservationType != "capacity-block" || blk.EndDate == nil || *blk.EndDate != "2030-01-02T03:04:05Z" || blk.StartDate != nil ||
		!reflect.DeepEqual(blk.IdleReasons, []string{"batch: " + reservations.ReasonTypeIneligible, "general: " + reservations.ReasonTypeIneligible}) {
		t.Errorf("block: %+v", blk)
	}
	other := byID(t, out, "cr-d-other")
	if other.Idle || len(other.SelectedBy) != 0 || other.IdleHourlyCost == nil || *other.IdleHourlyCost != 0.085 || other.Tags["team"] != "web" {
		t.Errorf("unselected: %+v (priced while no pool uses it, not idle: no class selects it)", other)
	}
	if full := byID(t, out, "cr-e-full"); full.Idle || full.IdleHourlyCost != nil || full.Tags == nil {
		t.Errorf("full: %+v", full)
	}
	if sched := byID(t, out, "cr-f-scheduled"); sched.Idle || sched.IdleHourlyCost != nil || sched.State != "scheduled" {
		t.Errorf("scheduled: %+v", sched)
	}

	// One warning per idle reservation, dearest first, on the first class that selects it.
	if len(warnings) != 2 {
		t.Fatalf("warnings: %v", warnings)
	}
	w := warnings[0]
	if w.Path.String() != `node_classes["gpu"]` || w.Summary != "Idle capacity reservation" {
		t.Errorf("block warning at %s (%s)", w.Path, w.Summary)
	}
	for _, part := range []string{"cr-c-block, a Capacity Block of p5.48xlarge in us-east-1c selected by class gpu", "2 of 2 instances free",
		"196.64 USD/h unused (2 × 98.32 USD/h", "batch: " + reservations.ReasonTypeIneligible, "general: " + reservations.ReasonTypeIneligible} {
		if !strings.Contains(w.Error(), part) {
			t.Errorf("block warning lacks %q:\n%s", part, w.Error())
		}
	}
	w = warnings[1]
	for _, part := range []string{"cr-b-zone, a capacity reservation of m5.large in us-east-1b selected by classes gpu, spare", "3 of 4 instances free",
		"0.288 USD/h unused (3 × 0.096 USD/h", "general: " + reservations.ReasonZoneNotAllowed} {
		if !strings.Contains(w.Error(), part) {
			t.Errorf("zone warning lacks %q:\n%s", part, w.Error())
		}
	}
	if w.Path.String() != `node_classes["gpu"]` {
		t.Errorf("zone warning at %s", w.Path)
	}
}

// A selected reservation no pool judged: idle, and the warning says no pool is on the class;
// without a price its cost is null and the warning says so; the embedded table is named.
func TestReservationsUnpricedAndUnjudged(t *testing.T) {
	interruptible := listedReservation("cr-int", "g6.xlarge", "us-east-1a", "active", 2)
	interruptible.Interruptible = true
	listed := []discovery.CapacityReservation{interruptible, listedReservation("cr-new", "x9.huge", "us-east-1a", "active", 1)}
	q := ReservationsQuery{NodeClasses: map[string][]string{"ml": {"cr-int", "cr-new"}}}

	loads := 0
	fallback := pricing.Fallback("us-east-1", "the Pricing API was denied")
	out, errs, warnings := Reservations(context.Background(), q, reservationPorts(listed, fallback, &loads), ReservationsFacts{})
	if len(errs) != 0 || len(warnings) != 2 {
		t.Fatalf("errors %v, warnings %v", errs, warnings)
	}
	if !reflect.DeepEqual(out.IdleIDs, []string{"cr-int", "cr-new"}) || len(out.UnselectedIDs) != 0 {
		t.Errorf("idle %v unselected %v", out.IdleIDs, out.UnselectedIDs)
	}
	priced, unpriced := byID(t, out, "cr-int"), byID(t, out, "cr-new")
	if priced.IdleHourlyCost == nil || *priced.IdleHourlyCost <= 0 || !priced.Interruptible || len(priced.IdleReasons) != 0 {
		t.Errorf("priced: %+v", priced)
	}
	if !unpriced.Idle || unpriced.IdleHourlyCost != nil {
		t.Errorf("unpriced: %+v", unpriced)
	}
	// The priced one is dearer and comes first.
	if w := warnings[0].Error(); !strings.Contains(w, "cr-int, an interruptible capacity reservation of g6.xlarge") ||
		!strings.Contains(w, "Karpenter's embedded") && !strings.Contains(w, "on-demand table") ||
		!strings.Contains(w, "No pool in node_pools is on class ml.") {
		t.Errorf("priced warning:\n%s", w)
	}
	if w := warnings[1].Error(); !strings.Contains(w, "cr-new") || !strings.Contains(w, "its on-demand price is not known") {
		t.Errorf("unpriced warning:\n%s", w)
	}

	// Nothing selected, nothing free to price: no price load at all.
	loads = 0
	full := listedReservation("cr-full", "m5.large", "us-east-1a", "active", 0)
	out, _, warnings = Reservations(context.Background(), ReservationsQuery{}, reservationPorts([]discovery.CapacityReservation{full}, fallback, &loads), ReservationsFacts{})
	if loads != 0 || len(warnings) != 0 || len(out.IdleIDs) != 0 || len(out.UnselectedIDs) != 0 || out.Reservations[0].SelectedBy == nil {
		t.Errorf("loads %d, warnings %v, out %+v", loads, warnings, out)
	}

	// A nil Prices (no price source at all) prices nothing.
	out, _, warnings = Reservations(context.Background(), q, reservationPorts(listed, nil, &loads), ReservationsFacts{})
	if len(warnings) != 2 || byID(t, out, "cr-int").IdleHourlyCost != nil {
		t.Errorf("nil prices: %+v, %v", out, warnings)
	}
}

func TestReservationsErrors(t *testing.T) {
	ports := ReservationsPorts{
		List: func(context.Context, []string, []string) ([]discovery.CapacityReservation, error) {
			return nil, errors.New("UnauthorizedOperation: not allowed")
		},
		Prices: func(context.Context) *pricing.Prices { return nil },
	}
	_, errs, _ := Reservations(context.Background(), ReservationsQuery{}, ports, ReservationsFacts{})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "UnauthorizedOperation") || !strings.Contains(errs[0].Error(), "ec2:DescribeCapacityReservations") {
		t.Errorf("list error: %v", errs)
	}

	q := ReservationsQuery{NodeClasses: map[string][]string{"a": {"cr-1", " "}},
		NodePools: map[string][]launchplan.ReservationUseValue{"p": {{ID: ""}}}, InstanceTypes: []string{""}, Zones: []string{"us-east-1a", ""}}
	_, errs, _ = Reservations(context.Background(), q, ports, ReservationsFacts{})
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path.String())
	}
	if want := []string{`node_classes["a"][1]`, `node_pools["p"][0].id`, "instance_types[0]", "availability_zones[1]"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
}
