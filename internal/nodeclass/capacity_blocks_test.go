package nodeclass

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

func block(id, zone string, mut ...func(*discovery.CapacityReservation)) discovery.CapacityReservation {
	return reservation(id, zone, append([]func(*discovery.CapacityReservation){func(r *discovery.CapacityReservation) {
		r.InstanceType, r.ReservationType, r.TotalInstanceCount, r.AvailableInstanceCount = "p5.48xlarge", reservations.TypeCapacityBlock, 4, 3
		r.StartDate = testNow.Add(-48 * time.Hour)
	}}, mut...)...)
}

// Capacity Blocks at a fixed now: one bought ahead is kept with its state and named; one that
// ends within the horizon, and one in its last 40 minutes, are named with their dates and counts.
func TestCapacityBlocksInTime(t *testing.T) {
	tagTerm := discovery.CapacityReservationTerm{Tags: map[string]string{"team": "ml"}}
	tagKey := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{tagTerm})[0].Filters.Key()
	start := testNow.Add(30 * time.Hour)
	api := &fakeCapacityAPI{
		byID: map[string]discovery.CapacityReservation{
			"cr-ahead": block("cr-ahead", "zone-a", func(r *discovery.CapacityReservation) {
				r.State, r.StartDate, r.EndDate, r.AvailableInstanceCount = "scheduled", start, start.Add(24*time.Hour), 4
			}),
		},
		byFilter: map[string][]discovery.CapacityReservation{tagKey: {
			block("cr-ending", "zone-a", func(r *discovery.CapacityReservation) { r.EndDate = testNow.Add(5 * time.Hour) }),
			block("cr-expiring", "zone-b", func(r *discovery.CapacityReservation) { r.EndDate = testNow.Add(30 * time.Minute) }),
			block("cr-later", "zone-a", func(r *discovery.CapacityReservation) { r.EndDate = testNow.Add(25 * time.Hour) }),
			reservation("cr-odcr", "zone-a", func(r *discovery.CapacityReservation) { r.EndDate = testNow.Add(time.Hour) }),
		}},
	}
	s := baseSpec()
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{ID: "cr-ahead"}, tagTerm}
	c, f, err := ResolveCapacityWithin(context.Background(), api, s, []string{"zone-a", "zone-b"}, testNow, reservations.DefaultHorizon)
	if err != nil || len(f.Errors) != 0 {
		t.Fatalf("err %v, errors %s", err, dumpErrs(f.Errors))
	}
	if got := ids(c.Reservations); !reflect.DeepEqual(got, []string{"cr-ahead", "cr-ending", "cr-expiring", "cr-later", "cr-odcr"}) {
		t.Errorf("selected %v", got)
	}
	if c.Reservations[0].State != discovery.CapacityReservationStateScheduled {
		t.Errorf("the block bought ahead keeps its state: %+v", c.Reservations[0])
	}
	if got := ids(c.Active()); !reflect.DeepEqual(got, []string{"cr-ending", "cr-expiring", "cr-later", "cr-odcr"}) {
		t.Errorf("active %v", got)
	}
	checkErrs(t, f.Warnings, []wantErr{
		{"capacity_reservation_selector_terms[0]", "Capacity Block cr-ahead (p5.48xlarge in zone-a, 4 instances) is scheduled: it starts " +
			"at 2026-03-02T18:00:00Z. Karpenter does not see it until it starts, and no pool can launch into it before then"},
		{"capacity_reservation_selector_terms[1]", "Capacity Block cr-ending (p5.48xlarge in zone-a, 3 of 4 instances free) ends at " +
			"2026-03-01T17:00:00Z, within the 24h capacity_block_horizon: Karpenter stops launching into it 40m before " +
			"(at 2026-03-01T16:20:00Z), and its nodes are reclaimed at the end"},
		{"capacity_reservation_selector_terms[1]", "Capacity Block cr-expiring (p5.48xlarge in zone-b, 3 of 4 instances free) is " +
			"expiring: it ends at 2026-03-01T12:30:00Z, and in its last 40m Karpenter launches nothing there"},
	})
	wantSummaries := []string{SummaryBlockNotStarted, SummaryBlockEnding, SummaryBlockExpiring}
	for i, w := range f.Warnings {
		if w.Summary != wantSummaries[i] {
			t.Errorf("warning %d summary %q, want %q", i, w.Summary, wantSummaries[i])
		}
	}

	// A longer horizon reaches the later block; a shorter one leaves the ending block out too.
	_, f, _ = ResolveCapacityWithin(context.Background(), api, s, nil, testNow, 48*time.Hour)
	if len(f.Warnings) != 4 || f.Warnings[3].Summary != SummaryBlockEnding || !strings.Contains(f.Warnings[3].Message, "cr-later") ||
		!strings.Contains(f.Warnings[3].Message, "within the 48h capacity_block_horizon") {
		t.Errorf("48h horizon: %s", dumpErrs(f.Warnings))
	}
	_, f, _ = ResolveCapacityWithin(context.Background(), api, s, nil, testNow, 90*time.Minute)
	if len(f.Warnings) != 2 || f.Warnings[1].Summary != SummaryBlockExpiring {
		t.Errorf("90m horizon: %s", dumpErrs(f.Warnings))
	}

	// ResolveCapacity keeps only what Karpenter launches into now, and still names the block.
	c, f, _ = ResolveCapacity(context.Background(), api, s, nil, testNow)
	if got := ids(c.Reservations); !reflect.DeepEqual(got, []string{"cr-ending", "cr-expiring", "cr-later", "cr-odcr"}) ||
		f.Warnings[0].Summary != SummaryBlockNotStarted {
		t.Errorf("ResolveCapacity: %v, %s", got, dumpErrs(f.Warnings))
	}
}

// A term whose only match is still to start selects it: no "selects nothing" warning, and a
// future-dated reservation that is no Capacity Block is named as a capacity reservation.
func TestScheduledOnlyTerm(t *testing.T) {
	s := baseSpec()
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{InstanceMatchCriteria: "targeted"}}
	q := discovery.CapacityReservationQueries(s.CapacityReservationTerms)[0]
	c, f := CapacityOutcome(s, []ReservationAnswer{{Query: q, Found: []discovery.CapacityReservation{
		reservation("cr-future", "a", func(r *discovery.CapacityReservation) { r.State, r.StartDate = "scheduled", time.Time{} })}}},
		nil, nil, testNow, reservations.DefaultHorizon)
	if got := ids(c.Reservations); !reflect.DeepEqual(got, []string{"cr-future"}) || c.Active() != nil {
		t.Errorf("selected %v, active %v", got, c.Active())
	}
	checkErrs(t, f.Warnings, []wantErr{{"capacity_reservation_selector_terms[0]", "capacity reservation cr-future (m5.large in a, 2 " +
		"instances) is scheduled: it starts at a start date EC2 does not report"}})
	if f.Warnings[0].Summary != SummaryReservationNotStarted {
		t.Errorf("summary %q", f.Warnings[0].Summary)
	}
}

// Start date, interruptible and state are part of the selection; counts are not.
func TestSameSelectionReservationFacts(t *testing.T) {
	base := Capacity{Reservations: []discovery.CapacityReservation{block("cr-1", "a", func(r *discovery.CapacityReservation) {
		r.EndDate = testNow.Add(time.Hour)
	})}}
	with := func(mut func(*discovery.CapacityReservation)) Capacity {
		r := base.Reservations[0]
		mut(&r)
		return Capacity{Reservations: []discovery.CapacityReservation{r}}
	}
	for name, tc := range map[string]struct {
		mut  func(*discovery.CapacityReservation)
		same bool
	}{
		"available":     {func(r *discovery.CapacityReservation) { r.AvailableInstanceCount = 0 }, true},
		"total":         {func(r *discovery.CapacityReservation) { r.TotalInstanceCount = 8 }, true},
		"no state":      {func(r *discovery.CapacityReservation) { r.State = "" }, true},
		"start":         {func(r *discovery.CapacityReservation) { r.StartDate = r.StartDate.Add(time.Hour) }, false},
		"interruptible": {func(r *discovery.CapacityReservation) { r.Interruptible = true }, false},
		"scheduled":     {func(r *discovery.CapacityReservation) { r.State = "scheduled" }, false},
	} {
		if got := base.SameSelection(with(tc.mut)); got != tc.same {
			t.Errorf("%s: SameSelection = %v, want %v", name, got, tc.same)
		}
	}
}

// The recorded reservations keep the new facts, and the ids Karpenter uses are the active ones.
func TestRecordReservationFacts(t *testing.T) {
	start, end := testNow.Add(time.Hour), testNow.Add(25*time.Hour)
	c := &Capacity{Reservations: []discovery.CapacityReservation{
		block("cr-1", "a", func(r *discovery.CapacityReservation) {
			r.State, r.StartDate, r.EndDate, r.Interruptible = "scheduled", start, end, true
		}),
		reservation("cr-2", "a", func(r *discovery.CapacityReservation) { r.StartDate = testNow.Add(-time.Hour) }),
	}}
	rec := Record(Resolved{}, c)
	o := rec.CapacityReservations[0]
	if o.TotalInstanceCount != 4 || o.StartDate == nil || *o.StartDate != "2026-03-01T13:00:00Z" || !o.Interruptible || o.State != "scheduled" {
		t.Errorf("recorded %+v", o)
	}
	back, ok := rec.Capacity()
	if !ok || !reflect.DeepEqual(back, *c) {
		t.Errorf("capacity:\n got %+v\nwant %+v", back, *c)
	}
	if got := rec.ReservationIDs(); !reflect.DeepEqual(got, []string{"cr-2"}) {
		t.Errorf("ids %v: a scheduled reservation is not one Karpenter uses", got)
	}
	// A state recorded before states and start dates were reads back as active.
	old := Recorded{CapacityReservations: []CapacityReservationOutput{{ID: "cr-3"}}}
	if back, ok := old.Capacity(); !ok || back.Reservations[0].State != discovery.CapacityReservationStateActive ||
		!reflect.DeepEqual(old.ReservationIDs(), []string{"cr-3"}) {
		t.Errorf("old state: %+v %v", back, old.ReservationIDs())
	}
	bad := Recorded{CapacityReservations: []CapacityReservationOutput{{ID: "cr-1", StartDate: new(string)}}}
	if _, ok := bad.Capacity(); ok {
		t.Error("an unreadable start date was accepted")
	}
}

func TestPlanPassesTheHorizon(t *testing.T) {
	s, api := planFixture()
	s.PlacementGroupSelector = nil
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{ID: "cr-a"}}
	api.byID = map[string]discovery.CapacityReservation{"cr-a": block("cr-a", "us-west-2a", func(r *discovery.CapacityReservation) {
		r.EndDate = testNow.Add(30 * time.Hour)
	})}
	for _, tc := range []struct {
		horizon time.Duration
		warned  bool
	}{{0, false}, {48 * time.Hour, true}} {
		got := Plan(t.Context(), api, PlanInput{Spec: s, Now: testNow, Horizon: tc.horizon})
		warned := false
		for _, w := range got.Warnings {
			warned = warned || w.Summary == SummaryBlockEnding
		}
		if len(got.Errors) != 0 || warned != tc.warned {
			t.Errorf("horizon %s: warned %v, want %v (%v)", tc.horizon, warned, tc.warned, got.Warnings)
		}
	}
}
