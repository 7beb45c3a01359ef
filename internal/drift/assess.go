package drift

import (
	"fmt"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/budgets"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

// PaceHorizon is how far ahead the pace looks for budget windows.
const PaceHorizon = 7 * 24 * time.Hour

// Assessment is what a plan says of a change to a dynamic pool: the drift verdict and how fast
// the pool's disruption budgets let Karpenter replace drifted nodes.
type Assessment struct {
	Verdict Verdict
	// Pace is the budgets' pace for Drifted disruptions at Nodes nodes, from now over PaceHorizon.
	Pace  budgets.Summary
	Nodes int
}

// PaceText is the pace in a line, with the pool size it was counted at.
func (a Assessment) PaceText() string {
	return fmt.Sprintf("%s (counted at %d nodes, the most the pool's subnets and limits allow)", a.Pace.Text, a.Nodes)
}

// Assess compares prior with planned and counts the pace at nodes nodes (a dynamic pool's size
// is the cluster's; the plan counts at the most the pool can hold). A nil prior is a new pool.
func Assess(prior *Side, planned Side, b []budgets.Budget, nodes int, now time.Time) (Assessment, error) {
	a := Assessment{Nodes: nodes}
	if prior != nil {
		a.Verdict = Compare(*prior, planned)
	}
	pace, err := budgets.Pace(b, nodes, now, PaceHorizon)
	if err != nil {
		return a, err
	}
	a.Pace = pace
	return a, nil
}

// Budgets converts a pool's disruption budgets as written (durations such as "8h" or "30m",
// which the pool's validation has checked) into the budgets package's.
func Budgets(in []nodepool.Budget) ([]budgets.Budget, error) {
	out := make([]budgets.Budget, len(in))
	for i, b := range in {
		out[i] = budgets.Budget{Nodes: b.Nodes, Reasons: b.Reasons, Schedule: b.Schedule}
		if b.Duration != "" {
			d, err := time.ParseDuration(b.Duration)
			if err != nil {
				return nil, fmt.Errorf("budgets[%d].duration: %w", i, err)
			}
			out[i].Duration = d
		}
	}
	return out, nil
}
