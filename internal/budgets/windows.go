package budgets

import (
	"fmt"
	"slices"
	"time"
)

// Window is a period in which the allowed disruptions for a reason stay the same.
type Window struct {
	Start, End time.Time // [Start, End), in UTC
	Allowed    int       // as Allowed answers it; Unbounded when no budget limits the reason
}

// Windows splits [from, from+horizon) into the periods of constant allowed disruptions for
// reason in a pool of nodes nodes, in order, neighbours with the same count merged. The first
// window starts at from and the last ends at from+horizon.
func Windows(budgets []Budget, reason string, nodes int, from time.Time, horizon time.Duration) ([]Window, error) {
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	if err := checkNodes(nodes); err != nil {
		return nil, err
	}
	if horizon <= 0 {
		return nil, fmt.Errorf("horizon %s is not positive", horizon)
	}
	cs, err := compileAll(budgets)
	if err != nil {
		return nil, err
	}
	return windows(cs, reason, nodes, from.UTC(), horizon), nil
}

func windows(cs []compiled, reason string, nodes int, from time.Time, horizon time.Duration) []Window {
	end := from.Add(horizon)
	points := []time.Time{from}
	for _, c := range cs {
		if c.applies(reason) {
			points = append(points, c.changes(from, end)...)
		}
	}
	slices.SortFunc(points, func(a, b time.Time) int { return a.Compare(b) })
	points = slices.CompactFunc(points, func(a, b time.Time) bool { return a.Equal(b) })

	// Nothing changes between two neighbouring points, so the count at a point holds until the
	// next one.
	var out []Window
	for i, p := range points {
		next := end
		if i+1 < len(points) {
			next = points[i+1]
		}
		allowed, _ := evaluate(cs, reason, nodes, p)
		if n := len(out); n > 0 && out[n-1].Allowed == allowed {
			out[n-1].End = next
			continue
		}
		out = append(out, Window{Start: p, End: next, Allowed: allowed})
	}
	return out
}

// changes returns the instants in (from, end) at which the budget may switch between active and
// inactive. It is active at t when a tick s has s <= t < s+duration, so the candidates are the
// edges of the merged intervals [s, s+duration). Cron gives up (answers the zero time, which
// Karpenter reads as active) when no tick comes within five calendar years of the point it
// searches from, so the first instants of each year, shifted by the duration, are candidates too.
func (c compiled) changes(from, end time.Time) []time.Time {
	if c.schedule == nil {
		return nil
	}
	var out []time.Time
	add := func(t time.Time) {
		if t.After(from) && t.Before(end) {
			out = append(out, t)
		}
	}
	for y := from.Add(-c.duration).Year(); y <= end.Add(-c.duration).Year()+1; y++ {
		newYear := time.Date(y, time.January, 1, 0, 0, 0, 0, time.UTC)
		// cron rounds its starting point up to the next whole second first.
		add(newYear.Add(c.duration - time.Second))
		add(newYear.Add(c.duration))
	}
	if c.duration == 0 {
		return out // each interval [s, s) is empty
	}

	// Ticks after from-duration: earlier ones ended by from.
	x := from.Add(-c.duration)
	var open bool
	var start, stop time.Time // the merged interval being built
	for x.Before(end) {
		s := c.schedule.Next(x)
		if s.IsZero() {
			// No tick from x through the fifth year after the one cron started in (x rounded
			// up to the next second): look again from the year after that.
			x = time.Date(x.Add(time.Second).Year()+6, time.January, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond)
			continue
		}
		if !s.Before(end) {
			break
		}
		switch {
		case !open:
			open, start, stop = true, s, s.Add(c.duration)
		case s.After(stop):
			add(start)
			add(stop)
			start, stop = s, s.Add(c.duration)
		default:
			stop = s.Add(c.duration)
		}
		x = s
	}
	if open {
		add(start)
		add(stop)
	}
	return out
}
