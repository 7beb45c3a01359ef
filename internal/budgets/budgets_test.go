package budgets

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Karpenter's budget tests (pkg/apis/v1/nodepool_budgets_test.go) use this clock and these six
// budgets: four always active ("* * * * *" for 1h), two of them restricted to reasons, and a
// weekly blocking budget that is inactive on this Thursday afternoon.
var upstreamNow = time.Date(2000, time.June, 15, 12, 30, 30, 0, time.UTC)

func upstreamBudgets() []Budget {
	return []Budget{
		{Nodes: "10", Schedule: "* * * * *", Duration: time.Hour},
		{Nodes: "100", Schedule: "* * * * *", Duration: time.Hour},
		{Nodes: "100%", Schedule: "* * * * *", Duration: time.Hour},
		{Reasons: []string{ReasonDrifted, ReasonUnderutilized}, Nodes: "15", Schedule: "* * * * *", Duration: time.Hour},
		{Reasons: []string{ReasonDrifted}, Nodes: "5", Schedule: "* * * * *", Duration: time.Hour},
		{Reasons: []string{ReasonUnderutilized, ReasonDrifted, ReasonEmpty}, Nodes: "0", Schedule: "@weekly", Duration: time.Hour},
	}
}

var allReasons = []string{ReasonEmpty, ReasonUnderutilized, ReasonDrifted}

func mustAllowed(t *testing.T, bs []Budget, reason string, nodes int, now time.Time) int {
	t.Helper()
	got, err := Allowed(bs, reason, nodes, now)
	if err != nil {
		t.Fatalf("Allowed(%s, %d nodes): %v", reason, nodes, err)
	}
	return got
}

func TestGetAllowedDisruptionsByReason(t *testing.T) {
	t.Run("should return 0 for all reasons if a budget is active for all reasons", func(t *testing.T) {
		bs := upstreamBudgets()
		bs[5].Schedule = "* * * * *"
		for _, r := range allReasons {
			if got := mustAllowed(t, bs, r, 100, upstreamNow); got != 0 {
				t.Errorf("%s: got %d, want 0", r, got)
			}
		}
	})
	t.Run("should return MaxInt32 for all reasons when there are no active budgets", func(t *testing.T) {
		bs := upstreamBudgets()
		for i := range bs {
			bs[i].Schedule, bs[i].Duration = "@yearly", time.Hour
		}
		for _, r := range allReasons {
			if got := mustAllowed(t, bs, r, 100, upstreamNow); got != math.MaxInt32 {
				t.Errorf("%s: got %d, want MaxInt32", r, got)
			}
		}
	})
	t.Run("should ignore reason-defined budgets when inactive", func(t *testing.T) {
		bs := upstreamBudgets()
		bs[3].Schedule = "@yearly"
		bs[4].Schedule = "@yearly"
		for _, r := range allReasons {
			if got := mustAllowed(t, bs, r, 100, upstreamNow); got != 10 {
				t.Errorf("%s: got %d, want 10", r, got)
			}
		}
	})
	t.Run("should return the budget for all disruption reasons when undefined", func(t *testing.T) {
		bs := upstreamBudgets()[:1]
		if len(bs[0].Reasons) != 0 {
			t.Fatal("fixture: budget 0 has reasons")
		}
		for _, r := range allReasons {
			if got := mustAllowed(t, bs, r, 100, upstreamNow); got != 10 {
				t.Errorf("%s: got %d, want 10", r, got)
			}
		}
	})
	t.Run("should get the minimum budget for each reason", func(t *testing.T) {
		bs := append(upstreamBudgets(), Budget{Schedule: "* * * * *", Nodes: "4", Duration: time.Hour, Reasons: []string{ReasonEmpty}})
		want := map[string]int{
			ReasonEmpty:   4,
			ReasonDrifted: 5,
			// The budget without reasons (10) is lower than the Underutilized one (15).
			ReasonUnderutilized: 10,
		}
		for r, w := range want {
			if got := mustAllowed(t, bs, r, 100, upstreamNow); got != w {
				t.Errorf("%s: got %d, want %d", r, got, w)
			}
		}
	})
}

func TestAllowedDisruptions(t *testing.T) {
	t.Run("should return zero values if a schedule is invalid", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule = "@wrongly"
		val, err := b.AllowedDisruptions(100, upstreamNow)
		if err == nil || val != 0 {
			t.Errorf("got %d, %v; want 0 and an error", val, err)
		}
	})
	t.Run("should return zero values if a nodes value is invalid", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Nodes = "1000a%"
		val, err := b.AllowedDisruptions(100, upstreamNow)
		if err == nil || val != 0 {
			t.Errorf("got %d, %v; want 0 and an error", val, err)
		}
	})
	t.Run("should return MaxInt32 when a budget is inactive", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "@yearly", time.Hour
		val, err := b.AllowedDisruptions(100, upstreamNow)
		if err != nil || val != math.MaxInt32 {
			t.Errorf("got %d, %v; want MaxInt32", val, err)
		}
	})
	t.Run("should return the int value when a budget is active", func(t *testing.T) {
		val, err := upstreamBudgets()[0].AllowedDisruptions(100, upstreamNow)
		if err != nil || val != 10 {
			t.Errorf("got %d, %v; want 10", val, err)
		}
	})
	t.Run("should return the string value when a budget is active", func(t *testing.T) {
		val, err := upstreamBudgets()[2].AllowedDisruptions(100, upstreamNow)
		if err != nil || val != 100 {
			t.Errorf("got %d, %v; want 100", val, err)
		}
	})
}

func mustActive(t *testing.T, b Budget, now time.Time) bool {
	t.Helper()
	active, err := b.IsActive(now)
	if err != nil {
		t.Fatalf("IsActive: %v", err)
	}
	return active
}

func TestIsActive(t *testing.T) {
	t.Run("should always consider a schedule and time in UTC", func(t *testing.T) {
		// Midnight of 31 May 2000 one hour ahead of UTC: 23:00 UTC the day before, 23h after
		// the last @daily tick in UTC, though only just after midnight locally.
		now := time.Date(2000, time.June, 0, 0, 0, 0, 0, time.FixedZone("fake-zone", 3600))
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "@daily", 30*time.Minute
		if mustActive(t, b, now) {
			t.Error("active; want inactive")
		}
	})
	t.Run("should return that a schedule is active when schedule and duration are nil", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "", 0
		if !mustActive(t, b, upstreamNow) {
			t.Error("inactive; want active")
		}
	})
	t.Run("should return that a schedule is active", func(t *testing.T) {
		if !mustActive(t, upstreamBudgets()[0], upstreamNow) {
			t.Error("inactive; want active")
		}
	})
	t.Run("should return that a schedule is inactive", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule = "@yearly"
		if mustActive(t, b, upstreamNow) {
			t.Error("active; want inactive")
		}
	})
	t.Run("should return that a schedule is active when the schedule hit is in the middle of the duration", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "@yearly", 24*time.Hour
		if !mustActive(t, b, time.Date(1000, time.January, 1, 12, 0, 0, 0, time.UTC)) {
			t.Error("inactive; want active")
		}
	})
	t.Run("should return that a schedule is active when the duration is longer than the recurrence", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "@daily", 48*time.Hour
		if !mustActive(t, b, time.Date(2024, time.January, 7, 0, 0, 0, 0, time.UTC)) {
			t.Error("inactive; want active")
		}
	})
	t.Run("should return that a schedule is inactive when the schedule hit is after the duration", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "30 6 * * SUN", 6*time.Hour
		if mustActive(t, b, time.Date(2024, time.January, 7, 0, 0, 0, 0, time.UTC)) {
			t.Error("active; want inactive")
		}
	})
	t.Run("should return an error indicating why the cron fails to parse", func(t *testing.T) {
		b := upstreamBudgets()[0]
		b.Schedule, b.Duration = "0 0 * * tue-mon", 6*time.Hour
		_, err := b.IsActive(time.Date(2024, time.January, 7, 0, 0, 0, 0, time.UTC))
		if err == nil || !strings.Contains(err.Error(), "beginning of range (2) beyond end of range (1)") {
			t.Errorf("got %v; want the cron parser's range error", err)
		}
	})

	// The window is [tick, tick+duration): Saturday 00:00 to 04:00 UTC.
	sat := Budget{Nodes: "5", Schedule: "0 0 * * 6", Duration: 4 * time.Hour}
	for _, tc := range []struct {
		name string
		now  time.Time
		want bool
	}{
		{"just before the tick", time.Date(2024, time.January, 5, 23, 59, 59, 999999999, time.UTC), false},
		{"at the tick", time.Date(2024, time.January, 6, 0, 0, 0, 0, time.UTC), true},
		{"just before the end", time.Date(2024, time.January, 6, 3, 59, 59, 999999999, time.UTC), true},
		{"at the end", time.Date(2024, time.January, 6, 4, 0, 0, 0, time.UTC), false},
		{"a week later", time.Date(2024, time.January, 13, 2, 0, 0, 0, time.UTC), true},
	} {
		t.Run("window edges: "+tc.name, func(t *testing.T) {
			if got := mustActive(t, sat, tc.now); got != tc.want {
				t.Errorf("active = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("a schedule with a zero duration is never active", func(t *testing.T) {
		b := Budget{Nodes: "0", Schedule: "* * * * *"}
		for _, now := range []time.Time{upstreamNow, upstreamNow.Truncate(time.Minute)} {
			if mustActive(t, b, now) {
				t.Errorf("active at %s; want inactive", now)
			}
		}
	})
	t.Run("a schedule cron cannot find a tick for within five years counts as active", func(t *testing.T) {
		// robfig/cron answers the zero time, which is not after now.
		b := Budget{Nodes: "0", Schedule: "0 0 30 2 *", Duration: time.Hour}
		if !mustActive(t, b, upstreamNow) {
			t.Error("inactive; want active, as in Karpenter")
		}
	})
}

// The pure part of the disruption controller's BuildDisruptionBudgetMapping
// (pkg/controllers/disruption/suite_test.go and drift_test.go), with the counts the cluster
// state gives in those tests: 10 nodes in the pool.
func TestBuildDisruptionBudgetMapping(t *testing.T) {
	for _, tc := range []struct {
		name       string
		nodes      string
		disrupting int
		want       int
	}{
		{"should not return a negative disruption value", "10%", 10, 0},
		{"should consider nodes with a deletion timestamp set and MarkedForDeletion to the disruption count", "100%", 2, 8},
		{"should consider not ready nodes to the disruption count", "100%", 2, 8},
		{"should only consider 3 nodes allowed to be disrupted because of budgets", "30%", 0, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range allReasons {
				got, err := Remaining([]Budget{{Nodes: tc.nodes}}, r, 10, tc.disrupting, upstreamNow)
				if err != nil || got != tc.want {
					t.Errorf("%s: got %d, %v; want %d", r, got, err, tc.want)
				}
			}
		})
	}
	t.Run("an invalid budget allows nothing", func(t *testing.T) {
		got, err := Remaining([]Budget{{Nodes: "100%"}, {Nodes: "x"}}, ReasonDrifted, 10, 0, upstreamNow)
		if err == nil || got != 0 {
			t.Errorf("got %d, %v; want 0 and an error", got, err)
		}
	})
	t.Run("unbounded stays unbounded less the disrupting nodes", func(t *testing.T) {
		got, err := Remaining([]Budget{{Nodes: "0", Schedule: "@yearly", Duration: time.Hour}}, ReasonDrifted, 10, 3, upstreamNow)
		if err != nil || got != Unbounded-3 {
			t.Errorf("got %d, %v; want %d", got, err, Unbounded-3)
		}
	})
}

func TestPercentRounding(t *testing.T) {
	for _, tc := range []struct {
		nodes string
		pool  int
		want  int
	}{
		{"5%", 10, 1}, // rounds up, as a PodDisruptionBudget's maxUnavailable does
		{"10%", 15, 2},
		{"10%", 20, 2},
		{"10%", 21, 3},
		{"33%", 3, 1},
		{"34%", 3, 2},
		{"1%", 1, 1},
		{"100%", 7, 7},
		{"0%", 100, 0},
		{"10%", 0, 0},
		{"05%", 40, 2},
		{"7", 3, 7}, // counts are not capped at the pool size
	} {
		t.Run(tc.nodes+" of "+strconv.Itoa(tc.pool), func(t *testing.T) {
			if got := mustAllowed(t, []Budget{{Nodes: tc.nodes}}, ReasonDrifted, tc.pool, upstreamNow); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestDefaultBudget(t *testing.T) {
	t.Run("no budgets is one budget of 10%", func(t *testing.T) {
		for _, bs := range [][]Budget{nil, {}} {
			for _, r := range allReasons {
				if got := mustAllowed(t, bs, r, 25, upstreamNow); got != 3 {
					t.Errorf("%s: got %d, want 3", r, got)
				}
			}
		}
	})
	t.Run("a budget without nodes is 10%", func(t *testing.T) {
		if got := mustAllowed(t, []Budget{{Reasons: []string{ReasonDrifted}}}, ReasonDrifted, 40, upstreamNow); got != 4 {
			t.Errorf("got %d, want 4", got)
		}
	})
	t.Run("budgets that do not apply to the reason leave it unbounded", func(t *testing.T) {
		if got := mustAllowed(t, []Budget{{Nodes: "1", Reasons: []string{ReasonEmpty}}}, ReasonDrifted, 40, upstreamNow); got != Unbounded {
			t.Errorf("got %d, want Unbounded", got)
		}
	})
}

func TestNodesZero(t *testing.T) {
	for _, nodes := range []string{"0", "0%", "00"} {
		t.Run(nodes, func(t *testing.T) {
			bs := []Budget{{Nodes: "100%"}, {Nodes: nodes}}
			for _, r := range allReasons {
				if got := mustAllowed(t, bs, r, 50, upstreamNow); got != 0 {
					t.Errorf("%s: got %d, want 0", r, got)
				}
			}
		})
	}
}

func TestReasonsFilter(t *testing.T) {
	bs := []Budget{
		{Nodes: "0", Reasons: []string{ReasonDrifted}},
		{Nodes: "2", Reasons: []string{ReasonEmpty, ReasonDrifted}},
		{Nodes: "50%"},
	}
	for r, want := range map[string]int{ReasonDrifted: 0, ReasonEmpty: 2, ReasonUnderutilized: 5} {
		if got := mustAllowed(t, bs, r, 10, upstreamNow); got != want {
			t.Errorf("%s: got %d, want %d", r, got, want)
		}
	}
}

func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget Budget
		field  string
		msg    string
	}{
		{"nodes not a number", Budget{Nodes: "abc"}, "nodes", `"abc" is not a node count`},
		{"nodes over 100%", Budget{Nodes: "101%"}, "nodes", `"101%"`},
		{"nodes negative", Budget{Nodes: "-1"}, "nodes", `"-1"`},
		{"nodes fractional", Budget{Nodes: "1.5"}, "nodes", `"1.5"`},
		{"nodes with junk", Budget{Nodes: "1000a%"}, "nodes", `"1000a%"`},
		{"nodes too large", Budget{Nodes: "99999999999999999999"}, "nodes", "too large"},
		{"unknown reason", Budget{Nodes: "1", Reasons: []string{"Expired"}}, "reasons", `"Expired"`},
		{"unknown descriptor", Budget{Nodes: "1", Schedule: "@wrongly", Duration: time.Hour}, "schedule", "unrecognized descriptor"},
		{"backwards range", Budget{Nodes: "1", Schedule: "0 0 * * tue-mon", Duration: time.Hour}, "schedule", "beginning of range (2) beyond end of range (1)"},
		{"six fields", Budget{Nodes: "1", Schedule: "0 0 0 * * *", Duration: time.Hour}, "schedule", "expected exactly 5 fields"},
		{"@every is not allowed by the CRD", Budget{Nodes: "1", Schedule: "@every 1h", Duration: time.Hour}, "schedule", "not a 5-field cron expression"},
		{"minute out of range", Budget{Nodes: "1", Schedule: "60 * * * *", Duration: time.Hour}, "schedule", "above maximum"},
		{"duration without schedule", Budget{Nodes: "1", Duration: time.Hour}, "duration", "without a schedule"},
		{"negative duration", Budget{Nodes: "1", Schedule: "@daily", Duration: -time.Hour}, "duration", "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs := []Budget{{Nodes: "10%"}, tc.budget}
			err := Validate(bs)
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("got %v; want an *Error", err)
			}
			if be.Index != 1 || be.Field != tc.field {
				t.Errorf("got budgets[%d].%s; want budgets[1].%s", be.Index, be.Field, tc.field)
			}
			if !strings.HasPrefix(err.Error(), "budgets[1]."+tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q; want budgets[1].%s: ...%s...", err, tc.field, tc.msg)
			}
			// Karpenter fails closed on a broken budget, whatever reasons it names.
			got, aerr := Allowed(bs, ReasonEmpty, 10, upstreamNow)
			if aerr == nil || got != 0 {
				t.Errorf("Allowed: got %d, %v; want 0 and an error", got, aerr)
			}
		})
	}
	t.Run("every broken budget is named", func(t *testing.T) {
		err := Validate([]Budget{{Nodes: "x"}, {Nodes: "1"}, {Nodes: "1", Schedule: "nope"}})
		if err == nil {
			t.Fatal("no error")
		}
		for _, want := range []string{"budgets[0].nodes", "budgets[2].schedule"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not name %s", err, want)
			}
		}
		if strings.Contains(err.Error(), "budgets[1]") {
			t.Errorf("%q names the valid budget", err)
		}
	})
	t.Run("valid budgets", func(t *testing.T) {
		for _, b := range []Budget{
			{},
			{Nodes: "0"},
			{Nodes: "100%", Reasons: []string{ReasonUnderutilized, ReasonEmpty, ReasonDrifted}},
			{Nodes: "3", Schedule: "0 9 * * mon-fri", Duration: 8 * time.Hour},
			{Nodes: "3", Schedule: "@annually", Duration: 90 * time.Minute},
			{Nodes: "3", Schedule: "*/15 * * * *"},
		} {
			if err := Validate([]Budget{b}); err != nil {
				t.Errorf("%+v: %v", b, err)
			}
		}
	})
	t.Run("at most 50 budgets", func(t *testing.T) {
		bs := make([]Budget, MaxBudgets+1)
		if err := Validate(bs); err == nil || !strings.Contains(err.Error(), "at most 50") {
			t.Errorf("got %v; want the maxItems error", err)
		}
		if err := Validate(bs[:MaxBudgets]); err != nil {
			t.Errorf("50 budgets: %v", err)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		if _, err := Allowed(nil, "Expired", 1, upstreamNow); err == nil {
			t.Error("unknown reason accepted")
		}
		if _, err := Allowed(nil, ReasonDrifted, -1, upstreamNow); err == nil {
			t.Error("negative node count accepted")
		}
		if _, err := Remaining(nil, ReasonDrifted, 1, -1, upstreamNow); err == nil {
			t.Error("negative disrupting count accepted")
		}
	})
}
