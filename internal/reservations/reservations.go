// Package reservations holds Karpenter's rules for capacity reservations and Capacity Blocks:
// which reservations a launch can use and in what order, when a Capacity Block stops taking
// launches, the ReservedCapacity feature gate, and which selected reservations sit idle but
// billed. Pure: no Terraform, no AWS SDK.
package reservations

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Reservation types, as EC2 and Karpenter's karpenter.k8s.aws/capacity-reservation-type name them.
const (
	TypeDefault       = "default"
	TypeCapacityBlock = "capacity-block"
)

// Karpenter's constants (v1.9–v1.15).
const (
	// ExpiringWindow is how long before its end Karpenter marks a Capacity Block `expiring`
	// (CapacityReservationFromEC2) and stops launching into it.
	ExpiringWindow = 40 * time.Minute
	// PriceDivisor: Karpenter prices a reserved offering at its type's on-demand price divided
	// by this, so that it sorts before every on-demand and spot offering while keeping the
	// on-demand order among reservations.
	PriceDivisor = 10_000_000.0
	// PollPeriod is how often Karpenter's node class controller reads the reservations again.
	PollPeriod = time.Minute
	// DefaultHorizon is how far ahead the plan looks for Capacity Blocks that end.
	DefaultHorizon = 24 * time.Hour
)

// Gate is Karpenter's ReservedCapacity feature gate (--feature-gates), on by default in every
// release the provider plans for (beta since v1.6).
const (
	Gate        = "ReservedCapacity"
	GateDefault = true
)

// GateEnabled reads the gate from feature-gate entries as the provider takes them: a bare name
// turns a gate on, `Name=true` or `Name=false` sets it; the last entry that names the gate wins.
func GateEnabled(gates []string) bool {
	on := GateDefault
	for _, g := range gates {
		name, val, hasVal := strings.Cut(strings.TrimSpace(g), "=")
		if strings.TrimSpace(name) != Gate {
			continue
		}
		on = !hasVal || strings.EqualFold(strings.TrimSpace(val), "true")
	}
	return on
}

// Reservation is a capacity reservation or Capacity Block as the plan reads it.
type Reservation struct {
	ID            string
	InstanceType  string
	Zone          string
	OwnerID       string
	MatchCriteria string // open or targeted
	Type          string // TypeDefault or TypeCapacityBlock
	Available     int    // instances free to launch into
	Total         int
	Start         time.Time // zero: not known (a reservation that has started)
	End           time.Time // zero: no end date
	Interruptible bool
}

// IsBlock reports whether r is a Capacity Block.
func (r Reservation) IsBlock() bool { return r.Type == TypeCapacityBlock }

// Upcoming reports whether r has not started at now (a Capacity Block bought ahead: EC2 calls it
// `scheduled`, and Karpenter does not see it until it is active).
func (r Reservation) Upcoming(now time.Time) bool { return !r.Start.IsZero() && now.Before(r.Start) }

// Expiring reports whether Karpenter holds r `expiring` at now: a Capacity Block in its last
// ExpiringWindow, which Karpenter no longer launches into.
func (r Reservation) Expiring(now time.Time) bool {
	return r.IsBlock() && !r.End.IsZero() && !now.Before(r.End.Add(-ExpiringWindow))
}

// Ended reports whether r has ended at now.
func (r Reservation) Ended(now time.Time) bool { return !r.End.IsZero() && !now.Before(r.End) }

// EndsWithin reports whether r ends after now but no later than now+horizon.
func (r Reservation) EndsWithin(now time.Time, horizon time.Duration) bool {
	return !r.End.IsZero() && now.Before(r.End) && !r.End.After(now.Add(horizon))
}

// OfferingPrice is the price Karpenter gives a reserved offering of a type whose on-demand price
// is onDemand.
func OfferingPrice(onDemand float64) float64 { return onDemand / PriceDivisor }

// Kind names r for people: "capacity reservation", "interruptible capacity reservation" or
// "Capacity Block".
func (r Reservation) Kind() string {
	switch {
	case r.IsBlock():
		return "Capacity Block"
	case r.Interruptible:
		return "interruptible capacity reservation"
	}
	return "capacity reservation"
}

// String names r in a line: "cr-0abc (p5.48xlarge in us-east-1a, 2 of 4 free)".
func (r Reservation) String() string {
	return fmt.Sprintf("%s (%s %s in %s, %d of %d free)", r.ID, r.Kind(), r.InstanceType, r.Zone, r.Available, r.Total)
}

// Reasons a pool cannot launch into a reservation, worded to follow "cannot use it: ".
const (
	ReasonGateOff         = "Karpenter's ReservedCapacity feature gate is off"
	ReasonReservedAllowed = "its karpenter.sh/capacity-type requirement does not allow `reserved`"
	ReasonTypeIneligible  = "the instance type is not eligible for the pool"
	ReasonZoneNotAllowed  = "the zone is not one the pool may launch into"
	ReasonUpcoming        = "the Capacity Block has not started"
	ReasonExpiring        = "the Capacity Block is in its last 40 minutes, which Karpenter calls expiring"
	ReasonFull            = "no instance of it is free"
	ReasonEnded           = "it has ended (Karpenter drops a reservation past its end date)"
	ReasonLimitsMet       = "the pool's limits are met by reservations Karpenter launches into first"
	ReasonLauncher        = "the provider's own launcher (launcher = \"provider\") launches on-demand and spot only"
)

// Use is what one pool makes of one reservation of its class.
type Use struct {
	Reservation
	// Nodes are the nodes of the pool the reservation covers (0 when the pool cannot use it).
	Nodes int
	// Reason says why the pool cannot use it ("" when it can, even for 0 nodes left by limits).
	Reason string
}

// PoolUses are one pool's verdicts on its class's reservations.
type PoolUses struct {
	Pool string
	Uses []Use
}

// Idle is a reservation a class selects that no pool launches into, while it is paid for.
type Idle struct {
	Reservation
	// Classes are the classes that select it, sorted.
	Classes []string
	// Reasons are why each pool that could have taken it does not, "pool: reason", sorted; empty
	// when no pool is on its classes.
	Reasons []string
	// HourlyPrice is its type's on-demand price; Priced false when it is not known.
	HourlyPrice float64
	Priced      bool
}

// HourlyCost is what the free instances cost per hour while nothing runs on them.
func (i Idle) HourlyCost() float64 { return i.HourlyPrice * float64(i.Available) }

// FindIdle judges the reservations the classes select (selected: reservation id → classes)
// against the pools' verdicts: a reservation with free instances that no pool uses is idle.
// price gives a type's on-demand hourly price. The result is sorted by hourly cost, dearest
// first, then id.
func FindIdle(selected map[string][]string, reservations []Reservation, pools []PoolUses, price func(instanceType, zone string) (float64, bool)) []Idle {
	used := map[string]bool{}
	reasons := map[string][]string{}
	for _, p := range pools {
		for _, u := range p.Uses {
			if u.Reason == "" {
				used[u.ID] = true
				continue
			}
			reasons[u.ID] = append(reasons[u.ID], p.Pool+": "+u.Reason)
		}
	}
	var out []Idle
	for _, r := range reservations {
		classes := selected[r.ID]
		if len(classes) == 0 || used[r.ID] || r.Available == 0 {
			continue
		}
		i := Idle{Reservation: r, Classes: slices.Sorted(slices.Values(classes)), Reasons: slices.Sorted(slices.Values(reasons[r.ID]))}
		i.Classes = slices.Compact(i.Classes)
		i.HourlyPrice, i.Priced = price(r.InstanceType, r.Zone)
		out = append(out, i)
	}
	sort.SliceStable(out, func(a, b int) bool {
		if ca, cb := out[a].HourlyCost(), out[b].HourlyCost(); ca != cb {
			return ca > cb
		}
		return out[a].ID < out[b].ID
	})
	return out
}
