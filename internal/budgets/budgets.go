// Package budgets answers, from a NodePool's disruption budgets, how many nodes Karpenter may
// disrupt for a reason at a given time and when that number changes, computed the way Karpenter
// computes it (sigs.k8s.io/karpenter pkg/apis/v1 NodePool.GetAllowedDisruptionsByReason and the
// disruption controller's BuildDisruptionBudgetMapping). Pure: no Terraform, no AWS SDK.
package budgets

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Disruption reasons a budget can be restricted to.
const (
	ReasonUnderutilized = "Underutilized"
	ReasonEmpty         = "Empty"
	ReasonDrifted       = "Drifted"
)

// Unbounded is what Karpenter answers when no active budget limits a reason: math.MaxInt32.
const Unbounded = math.MaxInt32

// DefaultNodes is the CRD default of a budget's nodes, and of the one budget a NodePool gets
// when it sets none.
const DefaultNodes = "10%"

// MaxBudgets is the CRD's maxItems for spec.disruption.budgets.
const MaxBudgets = 50

// Budget is one spec.disruption.budgets entry.
type Budget struct {
	// Nodes is a count ("3") or a percentage of the pool's nodes ("10%", rounded up); "" is
	// the CRD default, "10%".
	Nodes string
	// Reasons restricts the budget to these disruption reasons; empty means every reason.
	Reasons []string
	// Schedule is a cron expression (5 fields or a descriptor such as @daily), read in UTC;
	// "" means the budget is always active.
	Schedule string
	// Duration is how long the budget stays active after each schedule tick; 0 without a
	// schedule. With a schedule, 0 means the budget is never active (as Karpenter has it).
	Duration time.Duration
}

// Error is a budget that Karpenter would refuse (or fail closed on).
type Error struct {
	Index int    // position in the budgets list
	Field string // nodes, reasons, schedule or duration
	Err   error
}

func (e *Error) Error() string {
	return fmt.Sprintf("budgets[%d].%s: %v", e.Index, e.Field, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

var (
	// The CRD's patterns for nodes and schedule.
	nodesRE    = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	scheduleRE = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`)
)

func knownReason(r string) bool {
	return r == ReasonUnderutilized || r == ReasonEmpty || r == ReasonDrifted
}

// compiled is a validated budget.
type compiled struct {
	percent  bool
	value    int
	reasons  []string      // empty: every reason
	schedule cron.Schedule // nil: always active
	duration time.Duration
}

// compile validates one budget; on failure it names the offending field.
func compile(b Budget) (compiled, string, error) {
	c := compiled{reasons: b.Reasons, duration: b.Duration}

	nodes := b.Nodes
	if nodes == "" {
		nodes = DefaultNodes
	}
	if !nodesRE.MatchString(nodes) {
		return c, "nodes", fmt.Errorf("%q is not a node count like \"3\" or a percentage from 0%% to 100%% like \"10%%\"", b.Nodes)
	}
	digits, percent := strings.CutSuffix(nodes, "%")
	v, err := strconv.Atoi(digits)
	if err != nil {
		return c, "nodes", fmt.Errorf("%q is too large a node count", b.Nodes)
	}
	c.percent, c.value = percent, v

	for _, r := range b.Reasons {
		if !knownReason(r) {
			return c, "reasons", fmt.Errorf("%q is not a disruption reason (%s, %s or %s)", r, ReasonUnderutilized, ReasonEmpty, ReasonDrifted)
		}
	}

	if b.Duration < 0 {
		return c, "duration", fmt.Errorf("%s is negative", b.Duration)
	}
	if b.Schedule == "" {
		if b.Duration != 0 {
			return c, "duration", errors.New("is set without a schedule; 'schedule' must be set with 'duration'")
		}
		return c, "", nil
	}
	// Karpenter pins the schedule to UTC the same way.
	sched, err := cron.ParseStandard("TZ=UTC " + b.Schedule)
	if err != nil {
		return c, "schedule", fmt.Errorf("%q is not a valid cron schedule: %w", b.Schedule, err)
	}
	if !scheduleRE.MatchString(b.Schedule) {
		return c, "schedule", fmt.Errorf("%q is not a 5-field cron expression or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly", b.Schedule)
	}
	c.schedule = sched
	return c, "", nil
}

// compileAll validates every budget (the CRD default when there are none) and joins the
// errors, each naming its budget's index.
func compileAll(budgets []Budget) ([]compiled, error) {
	if len(budgets) == 0 {
		// The provider writes budgets with omitempty, so an empty list is an omitted one and
		// the API server defaults it to one budget of 10%.
		return []compiled{{percent: true, value: 10}}, nil
	}
	var errs []error
	if len(budgets) > MaxBudgets {
		errs = append(errs, fmt.Errorf("budgets: %d budgets, at most %d are allowed", len(budgets), MaxBudgets))
	}
	cs := make([]compiled, 0, len(budgets))
	for i, b := range budgets {
		c, field, err := compile(b)
		if err != nil {
			errs = append(errs, &Error{Index: i, Field: field, Err: err})
		}
		cs = append(cs, c)
	}
	return cs, errors.Join(errs...)
}

func checkReason(reason string) error {
	if !knownReason(reason) {
		return fmt.Errorf("%q is not a disruption reason (%s, %s or %s)", reason, ReasonUnderutilized, ReasonEmpty, ReasonDrifted)
	}
	return nil
}

func checkNodes(nodes int) error {
	if nodes < 0 {
		return fmt.Errorf("node count %d is negative", nodes)
	}
	return nil
}

// Validate reports the budgets Karpenter would refuse, each error an *Error naming the
// budget's index (joined with errors.Join when there are several).
func Validate(budgets []Budget) error {
	_, err := compileAll(budgets)
	return err
}

// active is Karpenter's Budget.IsActive: walk back the duration from now and ask cron for the
// next tick after that point; the budget is active if that tick is not after now. A tick at
// exactly now-duration has ended, one at now has begun. When cron finds no tick within five
// years it answers the zero time, which is not after now: such a budget counts as active.
func (c compiled) active(now time.Time) bool {
	if c.schedule == nil {
		return true
	}
	now = now.UTC()
	next := c.schedule.Next(now.Add(-c.duration))
	return !next.After(now)
}

func (c compiled) applies(reason string) bool {
	if len(c.reasons) == 0 {
		return true
	}
	for _, r := range c.reasons {
		if r == reason {
			return true
		}
	}
	return false
}

// allowed is the budget's value for a pool of nodes nodes, percentages rounded up like a
// PodDisruptionBudget's maxUnavailable (5% of 10 nodes allows 1).
func (c compiled) allowed(nodes int) int {
	if !c.percent {
		return c.value
	}
	return (c.value*nodes + 99) / 100
}

// evaluate is GetAllowedDisruptionsByReason on validated budgets: the minimum over the active
// budgets that apply to reason, Unbounded when there is none. binding is the index of the
// first budget giving that minimum, -1 when Unbounded.
func evaluate(cs []compiled, reason string, nodes int, now time.Time) (allowed, binding int) {
	allowed, binding = Unbounded, -1
	for i, c := range cs {
		if !c.applies(reason) || !c.active(now) {
			continue
		}
		if v := c.allowed(nodes); v < allowed {
			allowed, binding = v, i
		}
	}
	return allowed, binding
}

// Allowed is how many of a pool's nodes Karpenter may disrupt for reason at now: the minimum
// over the budgets that are active and apply to reason, or Unbounded when none is. nodes is the
// pool's node count as Karpenter counts it (managed, initialized, not already terminating in
// the cloud provider), before subtracting the nodes already disrupting (see Remaining). No
// budgets means the CRD default, one budget of 10%. An invalid budget, whatever its reasons,
// fails closed: 0 and the error.
func Allowed(budgets []Budget, reason string, nodes int, now time.Time) (int, error) {
	if err := checkReason(reason); err != nil {
		return 0, err
	}
	if err := checkNodes(nodes); err != nil {
		return 0, err
	}
	cs, err := compileAll(budgets)
	if err != nil {
		return 0, err
	}
	allowed, _ := evaluate(cs, reason, nodes, now)
	return allowed, nil
}

// Remaining is what Karpenter's disruption controller may still start for reason at now: the
// allowed disruptions minus the pool's nodes that already count against the budget (not Ready,
// or marked for deletion / being deleted), never below 0. Invalid budgets give 0 and the error,
// as the controller treats them as allowing nothing.
func Remaining(budgets []Budget, reason string, nodes, disrupting int, now time.Time) (int, error) {
	if disrupting < 0 {
		return 0, fmt.Errorf("disrupting node count %d is negative", disrupting)
	}
	allowed, err := Allowed(budgets, reason, nodes, now)
	if err != nil {
		return 0, err
	}
	return max(allowed-disrupting, 0), nil
}

// IsActive reports whether the budget applies at now (Karpenter's Budget.IsActive).
func (b Budget) IsActive(now time.Time) (bool, error) {
	c, field, err := compile(b)
	if err != nil {
		return false, fmt.Errorf("%s: %w", field, err)
	}
	return c.active(now), nil
}

// AllowedDisruptions is the budget's own allowance at now for a pool of nodes nodes, whatever
// its reasons (Karpenter's Budget.GetAllowedDisruptions): Unbounded when inactive, 0 and the
// error when invalid.
func (b Budget) AllowedDisruptions(nodes int, now time.Time) (int, error) {
	if err := checkNodes(nodes); err != nil {
		return 0, err
	}
	c, field, err := compile(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", field, err)
	}
	if !c.active(now) {
		return Unbounded, nil
	}
	return c.allowed(nodes), nil
}
