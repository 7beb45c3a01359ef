package budgets

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// 1 January 2024 is a Monday; Wednesday 3 January 10:00 UTC starts most horizons below.
func jan(day, hour, minute int) time.Time {
	return time.Date(2024, time.January, day, hour, minute, 0, 0, time.UTC)
}

var week = 7 * 24 * time.Hour

func fmtWindows(ws []Window) string {
	var b strings.Builder
	for _, w := range ws {
		a := fmt.Sprint(w.Allowed)
		if w.Allowed == Unbounded {
			a = "unbounded"
		}
		fmt.Fprintf(&b, "[%s, %s) %s\n", w.Start.Format("Mon Jan 2 15:04:05.999999999"), w.End.Format("Mon Jan 2 15:04:05.999999999"), a)
	}
	return b.String()
}

func TestWindows(t *testing.T) {
	maintenance := []Budget{
		// Drift is blocked from Saturday 06:00 for 6d20h, i.e. until the next Saturday 02:00 ...
		{Nodes: "0", Reasons: []string{ReasonDrifted}, Schedule: "0 6 * * 6", Duration: 164 * time.Hour},
		// ... and otherwise 3 nodes at a time.
		{Nodes: "3"},
	}
	for _, tc := range []struct {
		name    string
		budgets []Budget
		reason  string
		nodes   int
		from    time.Time
		horizon time.Duration
		want    []Window
	}{
		{
			name: "a Saturday budget of 5 under an always-on 100%",
			budgets: []Budget{
				{Nodes: "5", Schedule: "0 0 * * 6", Duration: 4 * time.Hour},
				{Nodes: "100%"},
			},
			reason: ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{
				{jan(3, 10, 0), jan(6, 0, 0), 20},
				{jan(6, 0, 0), jan(6, 4, 0), 5},
				{jan(6, 4, 0), jan(10, 10, 0), 20},
			},
		},
		{
			name:    "a maintenance window: 0 now, 3 at a time on Saturday 02:00 to 06:00",
			budgets: maintenance, reason: ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{
				{jan(3, 10, 0), jan(6, 2, 0), 0},
				{jan(6, 2, 0), jan(6, 6, 0), 3},
				{jan(6, 6, 0), jan(10, 10, 0), 0},
			},
		},
		{
			name:    "the maintenance window's block does not apply to Empty",
			budgets: maintenance, reason: ReasonEmpty, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), 3}},
		},
		{
			name:    "starting inside an active window",
			budgets: []Budget{{Nodes: "5", Schedule: "0 0 * * 6", Duration: 4 * time.Hour}},
			reason:  ReasonDrifted, nodes: 20, from: jan(6, 1, 0), horizon: week,
			want: []Window{
				{jan(6, 1, 0), jan(6, 4, 0), 5},
				{jan(6, 4, 0), jan(13, 0, 0), Unbounded},
				{jan(13, 0, 0), jan(13, 1, 0), 5},
			},
		},
		{
			name:    "starting exactly when a window ends",
			budgets: []Budget{{Nodes: "5", Schedule: "0 0 * * 6", Duration: 4 * time.Hour}},
			reason:  ReasonDrifted, nodes: 20, from: jan(6, 4, 0), horizon: week,
			want: []Window{
				{jan(6, 4, 0), jan(13, 0, 0), Unbounded},
				{jan(13, 0, 0), jan(13, 4, 0), 5},
			},
		},
		{
			name: "overlapping windows of the same count merge",
			budgets: []Budget{
				{Nodes: "2", Schedule: "0 0 * * *", Duration: 4 * time.Hour},
				{Nodes: "2", Schedule: "0 2 * * *", Duration: 4 * time.Hour},
			},
			reason: ReasonDrifted, nodes: 20, from: jan(1, 0, 0), horizon: 24 * time.Hour,
			want: []Window{
				{jan(1, 0, 0), jan(1, 6, 0), 2},
				{jan(1, 6, 0), jan(2, 0, 0), Unbounded},
			},
		},
		{
			name: "overlapping windows take the minimum",
			budgets: []Budget{
				{Nodes: "2", Schedule: "0 0 * * *", Duration: 4 * time.Hour},
				{Nodes: "5%", Schedule: "0 2 * * *", Duration: 4 * time.Hour},
			},
			reason: ReasonDrifted, nodes: 20, from: jan(1, 0, 0), horizon: 24 * time.Hour,
			want: []Window{
				{jan(1, 0, 0), jan(1, 2, 0), 2},
				{jan(1, 2, 0), jan(1, 6, 0), 1},
				{jan(1, 6, 0), jan(2, 0, 0), Unbounded},
			},
		},
		{
			name:    "a duration longer than the recurrence is always active",
			budgets: []Budget{{Nodes: "4", Schedule: "@daily", Duration: 48 * time.Hour}},
			reason:  ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), 4}},
		},
		{
			name:    "back-to-back ticks keep a budget active",
			budgets: []Budget{{Nodes: "1", Schedule: "0 */2 * * *", Duration: 2 * time.Hour}},
			reason:  ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), 1}},
		},
		{
			name:    "a zero duration is never active",
			budgets: []Budget{{Nodes: "0", Schedule: "* * * * *"}},
			reason:  ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), Unbounded}},
		},
		{
			name:    "a schedule without a tick in five years is active (Karpenter's reading of cron's zero time)",
			budgets: []Budget{{Nodes: "1", Schedule: "0 0 30 2 *", Duration: time.Hour}},
			reason:  ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), 1}},
		},
		{
			name:    "no budgets: the default 10% all along",
			budgets: nil, reason: ReasonDrifted, nodes: 20, from: jan(3, 10, 0), horizon: week,
			want: []Window{{jan(3, 10, 0), jan(10, 10, 0), 2}},
		},
		{
			name:    "a window crossing the new year",
			budgets: []Budget{{Nodes: "0", Schedule: "0 22 31 12 *", Duration: 4 * time.Hour}},
			reason:  ReasonDrifted, nodes: 20,
			from: time.Date(2023, time.December, 31, 12, 0, 0, 0, time.UTC), horizon: 24 * time.Hour,
			want: []Window{
				{time.Date(2023, time.December, 31, 12, 0, 0, 0, time.UTC), time.Date(2023, time.December, 31, 22, 0, 0, 0, time.UTC), Unbounded},
				{time.Date(2023, time.December, 31, 22, 0, 0, 0, time.UTC), jan(1, 2, 0), 0},
				{jan(1, 2, 0), jan(1, 12, 0), Unbounded},
			},
		},
		{
			// In 2098 cron's search (through 2103) finds no 29 February, 2100 not being a leap
			// year: the zero time, which Karpenter reads as active. From the new year 2099 it
			// reaches 2104 and the budget is inactive. Cron rounds its start up to the next
			// second, so the change comes a second before 2099-01-01 01:00.
			name:    "a rare schedule coming within cron's five-year reach",
			budgets: []Budget{{Nodes: "0", Schedule: "0 0 29 2 *", Duration: time.Hour}},
			reason:  ReasonDrifted, nodes: 20,
			from: time.Date(2098, time.December, 31, 12, 0, 0, 0, time.UTC), horizon: 24 * time.Hour,
			want: []Window{
				{time.Date(2098, time.December, 31, 12, 0, 0, 0, time.UTC), time.Date(2099, time.January, 1, 0, 59, 59, 0, time.UTC), 0},
				{time.Date(2099, time.January, 1, 0, 59, 59, 0, time.UTC), time.Date(2099, time.January, 1, 12, 0, 0, 0, time.UTC), Unbounded},
			},
		},
		{
			// Cron gives up on 2097 and 2098 (no leap day through 2102 and 2103), so the budget
			// counts as active until the new year 2099 (less the second cron rounds up by); the
			// next leap day is in 2104, more than five years after the start.
			name:    "a leap day over a horizon of years",
			budgets: []Budget{{Nodes: "0", Schedule: "0 0 29 2 *", Duration: time.Hour}},
			reason:  ReasonDrifted, nodes: 20,
			from:    time.Date(2097, time.June, 1, 0, 0, 0, 0, time.UTC),
			horizon: time.Date(2104, time.March, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(2097, time.June, 1, 0, 0, 0, 0, time.UTC)),
			want: []Window{
				{time.Date(2097, time.June, 1, 0, 0, 0, 0, time.UTC), time.Date(2099, time.January, 1, 0, 59, 59, 0, time.UTC), 0},
				{time.Date(2099, time.January, 1, 0, 59, 59, 0, time.UTC), time.Date(2104, time.February, 29, 0, 0, 0, 0, time.UTC), Unbounded},
				{time.Date(2104, time.February, 29, 0, 0, 0, 0, time.UTC), time.Date(2104, time.February, 29, 1, 0, 0, 0, time.UTC), 0},
				{time.Date(2104, time.February, 29, 1, 0, 0, 0, time.UTC), time.Date(2104, time.March, 1, 0, 0, 0, 0, time.UTC), Unbounded},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Windows(tc.budgets, tc.reason, tc.nodes, tc.from, tc.horizon)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmtWindows(got), fmtWindows(tc.want); g != w {
				t.Errorf("got\n%swant\n%s", g, w)
			}
		})
	}
}

// Every instant of every window must carry the count Allowed answers at that instant, and no
// two neighbouring windows may carry the same count.
func TestWindowsAgreeWithAllowed(t *testing.T) {
	sets := map[string][]Budget{
		"upstream budgets": upstreamBudgets(),
		"every 15 minutes for 10": {
			{Nodes: "0", Schedule: "*/15 * * * *", Duration: 10 * time.Minute},
			{Nodes: "25%"},
		},
		"Sunday 06:30 for 6h and weekdays 9 to 5": {
			{Nodes: "0", Schedule: "30 6 * * SUN", Duration: 6 * time.Hour},
			{Nodes: "2", Reasons: []string{ReasonDrifted}, Schedule: "0 9 * * mon-fri", Duration: 8 * time.Hour},
			{Nodes: "1", Reasons: []string{ReasonEmpty}, Schedule: "@hourly", Duration: 90 * time.Minute},
		},
		"every other minute for one": {
			{Nodes: "1", Schedule: "*/2 * * * *", Duration: time.Minute},
		},
		"month and year boundaries": {
			{Nodes: "1", Schedule: "@monthly", Duration: 36 * time.Hour},
			{Nodes: "0", Schedule: "@yearly", Duration: 24 * time.Hour},
			{Nodes: "3", Schedule: "0 12 * * 1", Duration: 0},
		},
	}
	// An off-minute start, in another zone.
	from := time.Date(2023, time.December, 28, 10, 17, 30, 500, time.FixedZone("x", -5*3600))
	horizon := 10 * 24 * time.Hour
	for name, bs := range sets {
		t.Run(name, func(t *testing.T) {
			for _, reason := range allReasons {
				ws, err := Windows(bs, reason, 20, from, horizon)
				if err != nil {
					t.Fatal(err)
				}
				if !ws[0].Start.Equal(from) || !ws[len(ws)-1].End.Equal(from.Add(horizon)) {
					t.Fatalf("%s: windows span [%s, %s), want [%s, %s)", reason, ws[0].Start, ws[len(ws)-1].End, from, from.Add(horizon))
				}
				for i, w := range ws {
					if w.Start.Location() != time.UTC {
						t.Errorf("%s: window %d starts in %s, want UTC", reason, i, w.Start.Location())
					}
					if !w.Start.Before(w.End) {
						t.Errorf("%s: window %d is empty: %s", reason, i, fmtWindows(ws[i:i+1]))
					}
					if i > 0 && (!ws[i-1].End.Equal(w.Start) || ws[i-1].Allowed == w.Allowed) {
						t.Errorf("%s: windows %d and %d do not meet or should merge:\n%s", reason, i-1, i, fmtWindows(ws[i-1:i+1]))
					}
					for _, at := range []time.Time{w.Start, w.End.Add(-time.Nanosecond), w.Start.Add(w.End.Sub(w.Start) / 2)} {
						if got := mustAllowed(t, bs, reason, 20, at); got != w.Allowed {
							t.Errorf("%s: Allowed at %s is %d, window %d says %d", reason, at, got, i, w.Allowed)
						}
					}
				}
				for at := from; at.Before(from.Add(horizon)); at = at.Add(7*time.Minute + 13*time.Second) {
					var in Window
					for _, w := range ws {
						if !at.Before(w.Start) && at.Before(w.End) {
							in = w
						}
					}
					if got := mustAllowed(t, bs, reason, 20, at); got != in.Allowed {
						t.Fatalf("%s: Allowed at %s is %d, its window says %d", reason, at, got, in.Allowed)
					}
				}
			}
		})
	}
}

func TestWindowsErrors(t *testing.T) {
	for name, call := range map[string]func() error{
		"zero horizon": func() error { _, err := Windows(nil, ReasonDrifted, 1, jan(1, 0, 0), 0); return err },
		"unknown reason": func() error {
			_, err := Windows(nil, "Expired", 1, jan(1, 0, 0), week)
			return err
		},
		"negative nodes": func() error { _, err := Windows(nil, ReasonDrifted, -1, jan(1, 0, 0), week); return err },
		"bad cron": func() error {
			_, err := Windows([]Budget{{Nodes: "1", Schedule: "0 0 * * tue-mon", Duration: time.Hour}}, ReasonDrifted, 1, jan(1, 0, 0), week)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(); err == nil {
				t.Error("no error")
			}
		})
	}
}
