package budgets

import (
	"fmt"
	"strings"
	"time"
)

// Summary is how fast Karpenter may replace a pool's drifted nodes.
type Summary struct {
	// Now is the number of Drifted disruptions allowed at the start (Unbounded when no budget
	// limits drift).
	Now int
	// Never is set when, over the whole horizon, the budgets allow no Drifted disruption. It
	// does not depend on the pool's size, except for an empty pool, where every percentage
	// rounds down to 0: Never is then answered as for a pool of one node, so that it reports
	// budgets that block drift, not the empty pool.
	Never bool
	// Windows are the periods of constant allowed Drifted disruptions over the horizon.
	Windows []Window
	// Text is a one-line summary for a plan, e.g. "drifted nodes are replaced 2 at a time now
	// (10% of 20)".
	Text string
}

// Pace summarizes the Drifted disruptions the budgets allow a pool of nodes nodes over
// [now, now+horizon).
func Pace(budgets []Budget, nodes int, now time.Time, horizon time.Duration) (Summary, error) {
	ws, err := Windows(budgets, ReasonDrifted, nodes, now, horizon)
	if err != nil {
		return Summary{}, err
	}
	cs, err := compileAll(budgets)
	if err != nil {
		return Summary{}, err // unreachable: Windows validated them
	}
	now = now.UTC()
	s := Summary{Now: ws[0].Allowed, Windows: ws}

	never := ws
	if nodes == 0 {
		never = windows(cs, ReasonDrifted, 1, now, horizon)
	}
	s.Never = true
	for _, w := range never {
		if w.Allowed != 0 {
			s.Never = false
		}
	}

	switch {
	case s.Never:
		s.Text = neverText(budgets, cs, horizon)
	case nodes == 0:
		s.Text = "no drifted nodes to replace: the pool has no nodes"
	default:
		_, binding := evaluate(cs, ReasonDrifted, nodes, now)
		s.Text = nowText(budgets, cs, binding, nodes, s.Now)
		if len(ws) > 1 {
			s.Text += "; " + windowText(ws[1], now.Add(horizon), horizon)
		}
	}
	return s, nil
}

func neverText(budgets []Budget, cs []compiled, horizon time.Duration) string {
	for i, c := range cs {
		if c.schedule == nil && c.applies(ReasonDrifted) && c.value == 0 {
			return fmt.Sprintf("never: a budget allows 0 Drifted disruptions at all times (%s)", which(budgets, i))
		}
	}
	return fmt.Sprintf("never within the next %s: the active budgets allow 0 Drifted disruptions throughout", span(horizon))
}

func nowText(budgets []Budget, cs []compiled, binding, nodes, allowed int) string {
	switch allowed {
	case Unbounded:
		return "drifted nodes are replaced with no budget limit now (no budget for Drifted disruptions is active)"
	case 0:
		return fmt.Sprintf("drifted nodes are not replaced now (%s)", why(budgets, cs, binding, nodes))
	default:
		return fmt.Sprintf("drifted nodes are replaced %d at a time now (%s)", allowed, why(budgets, cs, binding, nodes))
	}
}

// which names budget i for a reader of the configuration.
func which(budgets []Budget, i int) string {
	if len(budgets) == 0 {
		return "the default budget, nodes \"10%\""
	}
	return fmt.Sprintf("budgets[%d], nodes %q", i, budgets[i].Nodes)
}

// why explains the count the binding budget gives.
func why(budgets []Budget, cs []compiled, binding, nodes int) string {
	c := cs[binding]
	if !c.percent {
		return which(budgets, binding)
	}
	out := fmt.Sprintf("%d%% of %d", c.value, nodes)
	if c.value*nodes%100 != 0 {
		out += ", rounded up"
	}
	if len(budgets) == 0 {
		out += ", the default budget"
	}
	return out
}

// windowText reads a later window, e.g. "3 at a time from Sat 02:00 to 06:00 UTC".
func windowText(w Window, end time.Time, horizon time.Duration) string {
	var b strings.Builder
	switch w.Allowed {
	case Unbounded:
		b.WriteString("no limit")
	case 0:
		b.WriteString("none")
	default:
		fmt.Fprintf(&b, "%d at a time", w.Allowed)
	}
	withDate := horizon > 7*24*time.Hour
	b.WriteString(" from " + stamp(w.Start, withDate))
	if w.End.Before(end) {
		sameDay := w.End.Sub(w.Start) < 24*time.Hour && w.End.Day() == w.Start.Day()
		if sameDay {
			b.WriteString(" to " + w.End.Format("15:04"))
		} else {
			b.WriteString(" to " + stamp(w.End, withDate))
		}
	}
	b.WriteString(" UTC")
	return b.String()
}

func stamp(t time.Time, withDate bool) string {
	if withDate {
		return t.Format("Mon 2 Jan 15:04")
	}
	return t.Format("Mon 15:04")
}

// span writes a horizon in days, hours and minutes, e.g. "7d" or "1d12h".
func span(d time.Duration) string {
	const day = 24 * time.Hour
	days, hours, minutes := int(d/day), int(d%day/time.Hour), int(d%time.Hour/time.Minute)
	var b strings.Builder
	if days > 0 {
		fmt.Fprintf(&b, "%dd", days)
	}
	if hours > 0 {
		fmt.Fprintf(&b, "%dh", hours)
	}
	if minutes > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%dm", minutes)
	}
	return b.String()
}
