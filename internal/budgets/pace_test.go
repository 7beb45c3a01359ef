package budgets

import (
	"testing"
	"time"
)

func TestPace(t *testing.T) {
	maintenance := []Budget{
		{Nodes: "0", Reasons: []string{ReasonDrifted}, Schedule: "0 6 * * 6", Duration: 164 * time.Hour},
		{Nodes: "3"},
	}
	for _, tc := range []struct {
		name    string
		budgets []Budget
		nodes   int
		from    time.Time
		horizon time.Duration
		now     int
		never   bool
		text    string
	}{
		{
			name:    "a percentage",
			budgets: []Budget{{Nodes: "10%"}}, nodes: 20, from: jan(3, 10, 0), horizon: week,
			now:  2,
			text: "drifted nodes are replaced 2 at a time now (10% of 20)",
		},
		{
			name:    "a percentage rounded up",
			budgets: []Budget{{Nodes: "5%"}}, nodes: 30, from: jan(3, 10, 0), horizon: week,
			now:  2,
			text: "drifted nodes are replaced 2 at a time now (5% of 30, rounded up)",
		},
		{
			name:    "the default budget",
			budgets: nil, nodes: 20, from: jan(3, 10, 0), horizon: week,
			now:  2,
			text: "drifted nodes are replaced 2 at a time now (10% of 20, the default budget)",
		},
		{
			name:    "a count, the lowest of several",
			budgets: []Budget{{Nodes: "50%"}, {Nodes: "4", Reasons: []string{ReasonDrifted}}, {Nodes: "1", Reasons: []string{ReasonEmpty}}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now:  4,
			text: `drifted nodes are replaced 4 at a time now (budgets[1], nodes "4")`,
		},
		{
			name:    "0 now, a maintenance window later",
			budgets: maintenance, nodes: 20, from: jan(3, 10, 0), horizon: week,
			now:  0,
			text: `drifted nodes are not replaced now (budgets[0], nodes "0"); 3 at a time from Sat 02:00 to 06:00 UTC`,
		},
		{
			name: "a smaller count on Saturdays",
			budgets: []Budget{
				{Nodes: "5", Schedule: "0 0 * * 6", Duration: 4 * time.Hour},
				{Nodes: "100%"},
			},
			nodes: 20, from: jan(3, 10, 0), horizon: week,
			now:  20,
			text: "drifted nodes are replaced 20 at a time now (100% of 20); 5 at a time from Sat 00:00 to 04:00 UTC",
		},
		{
			name:    "no active budget now, a block later running past the horizon",
			budgets: []Budget{{Nodes: "0", Schedule: "0 22 * * 5", Duration: 48 * time.Hour}},
			nodes:   20, from: jan(3, 10, 0), horizon: 3 * 24 * time.Hour,
			now:  Unbounded,
			text: "drifted nodes are replaced with no budget limit now (no budget for Drifted disruptions is active); none from Fri 22:00 UTC",
		},
		{
			name:    "a window ending the next day",
			budgets: []Budget{{Nodes: "0", Schedule: "0 22 * * 5", Duration: 4 * time.Hour}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now:  Unbounded,
			text: "drifted nodes are replaced with no budget limit now (no budget for Drifted disruptions is active); none from Fri 22:00 to Sat 02:00 UTC",
		},
		{
			name:    "dates once the horizon is longer than a week",
			budgets: maintenance, nodes: 20, from: jan(3, 10, 0), horizon: 14 * 24 * time.Hour,
			now:  0,
			text: `drifted nodes are not replaced now (budgets[0], nodes "0"); 3 at a time from Sat 6 Jan 02:00 to 06:00 UTC`,
		},
		{
			name:    "blocking only Empty does not stop drift",
			budgets: []Budget{{Nodes: "0", Reasons: []string{ReasonEmpty}}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now:  Unbounded,
			text: "drifted nodes are replaced with no budget limit now (no budget for Drifted disruptions is active)",
		},
		{
			name:    "never: a budget of 0 for Drifted at all times",
			budgets: []Budget{{Nodes: "10%"}, {Nodes: "0", Reasons: []string{ReasonDrifted}}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now: 0, never: true,
			text: `never: a budget allows 0 Drifted disruptions at all times (budgets[1], nodes "0")`,
		},
		{
			name:    "never: 0% for every reason",
			budgets: []Budget{{Nodes: "0%"}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now: 0, never: true,
			text: `never: a budget allows 0 Drifted disruptions at all times (budgets[0], nodes "0%")`,
		},
		{
			name:    "never: scheduled blocks cover the whole horizon",
			budgets: []Budget{{Nodes: "0", Schedule: "0 0 * * *", Duration: 24 * time.Hour}},
			nodes:   20, from: jan(3, 10, 0), horizon: week,
			now: 0, never: true,
			text: "never within the next 7d: the active budgets allow 0 Drifted disruptions throughout",
		},
		{
			// The maintenance window opens on Saturday 13 January 02:00, 6d20h after this start.
			name:    "never: the window opens when the horizon ends",
			budgets: maintenance, nodes: 20, from: jan(6, 6, 0), horizon: 6*24*time.Hour + 20*time.Hour,
			now: 0, never: true,
			text: "never within the next 6d20h: the active budgets allow 0 Drifted disruptions throughout",
		},
		{
			name:    "not never: the window opens in the horizon's last minute",
			budgets: maintenance, nodes: 20, from: jan(6, 6, 0), horizon: 6*24*time.Hour + 20*time.Hour + time.Minute,
			now:  0,
			text: `drifted nodes are not replaced now (budgets[0], nodes "0"); 3 at a time from Sat 02:00 UTC`,
		},
		{
			name:    "an empty pool with the default budget",
			budgets: nil, nodes: 0, from: jan(3, 10, 0), horizon: week,
			now:  0,
			text: "no drifted nodes to replace: the pool has no nodes",
		},
		{
			name:    "an empty pool whose budgets block drift",
			budgets: []Budget{{Nodes: "0", Reasons: []string{ReasonDrifted}}},
			nodes:   0, from: jan(3, 10, 0), horizon: week,
			now: 0, never: true,
			text: `never: a budget allows 0 Drifted disruptions at all times (budgets[0], nodes "0")`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Pace(tc.budgets, tc.nodes, tc.from, tc.horizon)
			if err != nil {
				t.Fatal(err)
			}
			if got.Now != tc.now || got.Never != tc.never || got.Text != tc.text {
				t.Errorf("got Now=%d Never=%v\n  %q\nwant Now=%d Never=%v\n  %q", got.Now, got.Never, got.Text, tc.now, tc.never, tc.text)
			}
			ws, err := Windows(tc.budgets, ReasonDrifted, tc.nodes, tc.from, tc.horizon)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmtWindows(got.Windows), fmtWindows(ws); g != w {
				t.Errorf("windows\n%swant\n%s", g, w)
			}
		})
	}
	t.Run("invalid budgets", func(t *testing.T) {
		if _, err := Pace([]Budget{{Nodes: "ten"}}, 10, jan(3, 10, 0), week); err == nil {
			t.Error("no error")
		}
	})
}

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		week:                            "7d",
		36 * time.Hour:                  "1d12h",
		90 * time.Minute:                "1h30m",
		24*time.Hour + 5*time.Minute:    "1d5m",
		30 * time.Second:                "0m",
		6*24*time.Hour + 20*time.Hour:   "6d20h",
		2*time.Hour + 59*time.Second:    "2h",
		24*time.Hour*10 + time.Minute*3: "10d3m",
	} {
		if got := span(d); got != want {
			t.Errorf("span(%s) = %q, want %q", d, got, want)
		}
	}
}
