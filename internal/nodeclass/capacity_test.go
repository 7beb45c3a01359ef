package nodeclass

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func reservation(id, zone string, mut ...func(*discovery.CapacityReservation)) discovery.CapacityReservation {
	r := discovery.CapacityReservation{ID: id, InstanceType: "m5.large", Zone: zone, State: "active", OwnerID: "123456789012",
		InstanceMatchCriteria: "targeted", ReservationType: "default", AvailableInstanceCount: 2, TotalInstanceCount: 2}
	for _, m := range mut {
		m(&r)
	}
	return r
}

// fakeCapacityAPI answers id queries from byID and filter queries from byFilter (by the
// filter set's key), and records the calls.
type fakeCapacityAPI struct {
	byID     map[string]discovery.CapacityReservation
	byFilter map[string][]discovery.CapacityReservation
	groups   []discovery.PlacementGroup
	fail     error
	queries  []discovery.CapacityReservationQuery
	pgCalls  []discovery.PlacementGroupSelector
}

func (f *fakeCapacityAPI) FindCapacityReservations(_ context.Context, q discovery.CapacityReservationQuery) ([]discovery.CapacityReservation, error) {
	f.queries = append(f.queries, q)
	if f.fail != nil {
		return nil, f.fail
	}
	if len(q.IDs) > 0 {
		var out []discovery.CapacityReservation
		for _, id := range q.IDs {
			if r, ok := f.byID[id]; ok {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return f.byFilter[q.Filters.Key()], nil
}

func (f *fakeCapacityAPI) FindPlacementGroups(_ context.Context, sel discovery.PlacementGroupSelector) ([]discovery.PlacementGroup, error) {
	f.pgCalls = append(f.pgCalls, sel)
	if f.fail != nil {
		return nil, f.fail
	}
	var out []discovery.PlacementGroup
	for _, g := range f.groups {
		if (sel.ID != "" && g.ID == sel.ID) || (sel.ID == "" && g.Name == sel.Name) {
			out = append(out, g)
		}
	}
	return out, nil
}

func ids(rs []discovery.CapacityReservation) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestResolveCapacityNothingConfiguredMakesNoCall(t *testing.T) {
	api := &fakeCapacityAPI{fail: errors.New("must not be called")}
	c, f, err := ResolveCapacity(context.Background(), api, baseSpec(), []string{"a"}, testNow)
	if err != nil || c.Reservations != nil || c.PlacementGroup != nil || len(f.Errors)+len(f.Warnings) != 0 {
		t.Fatalf("got %+v %+v %v", c, f, err)
	}
	if len(api.queries)+len(api.pgCalls) != 0 {
		t.Errorf("calls made: %v %v", api.queries, api.pgCalls)
	}
}

func TestResolveCapacityReservations(t *testing.T) {
	tagTerm := discovery.CapacityReservationTerm{Tags: map[string]string{"team": "ml"}}
	tagKey := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{tagTerm})[0].Filters.Key()
	api := &fakeCapacityAPI{
		byID: map[string]discovery.CapacityReservation{
			"cr-a":       reservation("cr-a", "zone-a"),
			"cr-expired": reservation("cr-expired", "zone-a", func(r *discovery.CapacityReservation) { r.State = "expired" }),
			"cr-ended": reservation("cr-ended", "zone-a", func(r *discovery.CapacityReservation) {
				r.EndDate = testNow.Add(-time.Minute)
			}),
			"cr-far": reservation("cr-far", "zone-c"),
		},
		byFilter: map[string][]discovery.CapacityReservation{
			tagKey: {reservation("cr-t2", "zone-b", func(r *discovery.CapacityReservation) { r.EndDate = testNow.Add(time.Hour) }),
				reservation("cr-a", "zone-a"), reservation("cr-odd", "zone-a", func(r *discovery.CapacityReservation) { r.InstanceMatchCriteria = "future" })},
		},
	}
	s := baseSpec()
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{
		{ID: "cr-a"},       // 0: found
		{ID: "cr-missing"}, // 1: not found
		{ID: "cr-expired"}, // 2: not active
		{ID: "cr-ended"},   // 3: end date passed
		tagTerm,            // 4: two usable (cr-a again, cr-t2), one unsupported
		{Tags: map[string]string{"team": "none"}, OwnerID: "123456789012", InstanceMatchCriteria: "open"}, // 5: nothing
		{ID: "cr-far"}, // 6: zone without subnet
	}
	c, f, err := ResolveCapacity(context.Background(), api, s, []string{"zone-a", "zone-b"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c.Reservations); !reflect.DeepEqual(got, []string{"cr-a", "cr-far", "cr-t2"}) {
		t.Errorf("selected %v", got)
	}
	if len(f.Errors) != 0 {
		t.Errorf("reservation findings must be warnings: %s", dumpErrs(f.Errors))
	}
	checkErrs(t, f.Warnings, []wantErr{
		{"capacity_reservation_selector_terms[1]", "capacity reservation cr-missing not found"},
		{"capacity_reservation_selector_terms[2]", "cr-expired is expired"},
		{"capacity_reservation_selector_terms[3]", "cr-ended ended at 2026-03-01T11:59:00Z"},
		{"capacity_reservation_selector_terms[5]", "no active or scheduled capacity reservation matched tags {team=none}, instance match criteria open, owner 123456789012"},
		{"capacity_reservation_selector_terms[6]", "cr-far (m5.large) is in zone-c, where the class has no subnet"},
	})
	// One id call for every id term, one call per filter term.
	if len(api.queries) != 3 || !reflect.DeepEqual(api.queries[0].IDs, []string{"cr-a", "cr-ended", "cr-expired", "cr-far", "cr-missing"}) {
		t.Errorf("queries: %+v", api.queries)
	}
}

func TestReservationTermWithOnlyUnusableMatches(t *testing.T) {
	s := baseSpec()
	s.CapacityReservationTerms = []discovery.CapacityReservationTerm{{InstanceMatchCriteria: "open"}}
	q := discovery.CapacityReservationQueries(s.CapacityReservationTerms)[0]
	c, f := CapacityOutcome(s, []ReservationAnswer{{Query: q, Found: []discovery.CapacityReservation{
		reservation("cr-x", "a", func(r *discovery.CapacityReservation) { r.State = "cancelled" })}}}, nil, nil, testNow, reservations.DefaultHorizon)
	if c.Reservations == nil || len(c.Reservations) != 0 {
		t.Errorf("want an empty, non-nil selection with terms: %#v", c.Reservations)
	}
	checkErrs(t, f.Warnings, []wantErr{{"capacity_reservation_selector_terms[0]", "(unusable: cr-x is cancelled)"}})
}

func TestResolvePlacementGroup(t *testing.T) {
	groups := []discovery.PlacementGroup{
		{ID: "pg-1", Name: "hpc", Strategy: "cluster", State: "available"},
		{ID: "pg-2", Name: "parts", Strategy: "partition", State: "available", PartitionCount: 3},
		{ID: "pg-3", Name: "going", Strategy: "spread", State: "deleting"},
	}
	tests := []struct {
		name    string
		sel     discovery.PlacementGroupSelector
		wantID  string
		wantErr string
	}{
		{"by id", discovery.PlacementGroupSelector{ID: "pg-2"}, "pg-2", ""},
		{"by name", discovery.PlacementGroupSelector{Name: "hpc"}, "pg-1", ""},
		{"missing id", discovery.PlacementGroupSelector{ID: "pg-9"}, "", "placement group pg-9 not found"},
		{"missing name", discovery.PlacementGroupSelector{Name: "nope"}, "", `placement group named "nope" not found`},
		{"not available", discovery.PlacementGroupSelector{Name: "going"}, "", "placement group pg-3 (going) is deleting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSpec()
			s.PlacementGroupSelector = &tc.sel
			api := &fakeCapacityAPI{groups: groups}
			c, f, err := ResolveCapacity(context.Background(), api, s, nil, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if c.Reservations != nil || len(api.queries) != 0 {
				t.Errorf("no reservation terms: want no reservation call and a nil list")
			}
			if tc.wantErr != "" {
				checkErrs(t, f.Errors, []wantErr{{"placement_group_selector", tc.wantErr}})
				if c.PlacementGroup != nil {
					t.Errorf("unusable group selected: %+v", c.PlacementGroup)
				}
				return
			}
			if len(f.Errors) != 0 || c.PlacementGroup == nil || c.PlacementGroup.ID != tc.wantID {
				t.Errorf("got %+v, errors %s", c.PlacementGroup, dumpErrs(f.Errors))
			}
		})
	}
}

func TestResolveCapacityAPIError(t *testing.T) {
	s := baseSpec()
	s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: "pg-1"}
	_, _, err := ResolveCapacity(context.Background(), &fakeCapacityAPI{fail: errors.New("UnauthorizedOperation")}, s, nil, testNow)
	if err == nil || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("err = %v", err)
	}
}

func TestCapacitySameSelection(t *testing.T) {
	pg := &discovery.PlacementGroup{ID: "pg-1", Name: "hpc", Strategy: "cluster", State: "available"}
	a := Capacity{Reservations: []discovery.CapacityReservation{reservation("cr-a", "a")}, PlacementGroup: pg}
	moved := Capacity{Reservations: []discovery.CapacityReservation{reservation("cr-a", "a", func(r *discovery.CapacityReservation) {
		r.AvailableInstanceCount, r.Tags = 0, map[string]string{"x": "y"}
	})}, PlacementGroup: pg}
	if !a.SameSelection(moved) {
		t.Error("a change of available count alone must keep the selection")
	}
	for name, o := range map[string]Capacity{
		"other reservation": {Reservations: []discovery.CapacityReservation{reservation("cr-b", "a")}, PlacementGroup: pg},
		"new end date": {Reservations: []discovery.CapacityReservation{reservation("cr-a", "a", func(r *discovery.CapacityReservation) {
			r.EndDate = testNow
		})}, PlacementGroup: pg},
		"no group":        {Reservations: a.Reservations},
		"terms removed":   {PlacementGroup: pg},
		"nothing matched": {Reservations: []discovery.CapacityReservation{}, PlacementGroup: pg},
	} {
		if a.SameSelection(o) {
			t.Errorf("%s: must differ", name)
		}
	}
	if (Capacity{Reservations: []discovery.CapacityReservation{}}).SameSelection(Capacity{}) {
		t.Error("terms that match nothing differ from no terms")
	}
}
