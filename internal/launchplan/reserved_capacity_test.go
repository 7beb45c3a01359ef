package launchplan

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

var planNow = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

func reservation(id, typ, zone string, available int) reservations.Reservation {
	return reservations.Reservation{ID: id, InstanceType: typ, Zone: zone, Type: reservations.TypeDefault, MatchCriteria: "targeted",
		Available: available, Total: available + 1, OwnerID: "111111111111"}
}

// reservedInput is a pool of m5/m4 types in zones A and B that allows reserved and on-demand,
// on a class that selects reservations.
func reservedInput(rs ...reservations.Reservation) Input {
	in := baseInput()
	in.Now = planNow
	in.Class.Reservations = rs
	in.Requirements = []requirements.Requirement{
		onlyTypes("m5.large", "m5.xlarge", "m4.large"),
		req(requirements.LabelZone, requirements.OpIn, zoneA, zoneB),
		req(requirements.LabelCapacityType, requirements.OpIn, "reserved", "on-demand"),
	}
	in.Limits = map[string]string{"nodes": "10"}
	return in
}

func useOf(t *testing.T, p Plan, id string) reservations.Use {
	t.Helper()
	for _, u := range p.Reservations {
		if u.ID == id {
			return u
		}
	}
	t.Fatalf("no verdict on %s in %+v", id, p.Reservations)
	return reservations.Use{}
}

// The case: one reservation the pool uses, one in a zone it does not allow, one of a
// type it is not eligible for.
func TestReservedFirstAndIdleReasons(t *testing.T) {
	in := reservedInput(reservation("cr-used", "m5.large", zoneA, 3), reservation("cr-zone", "m5.large", zoneC, 2),
		reservation("cr-type", "c5n.18xlarge", zoneA, 1))
	p := mustBuild(t, in)

	if u := useOf(t, p, "cr-used"); u.Reason != "" || u.Nodes != 3 {
		t.Errorf("cr-used: %+v, want 3 nodes", u)
	}
	if u := useOf(t, p, "cr-zone"); u.Reason != reservations.ReasonZoneNotAllowed || u.Nodes != 0 {
		t.Errorf("cr-zone: %+v, want the zone reason", u)
	}
	if u := useOf(t, p, "cr-type"); u.Reason != reservations.ReasonTypeIneligible {
		t.Errorf("cr-type: %+v, want the type reason", u)
	}
	// Karpenter's order: reserved offerings by their type's on-demand price (m5.large before c5n).
	if p.Reservations[len(p.Reservations)-1].ID != "cr-type" {
		t.Errorf("order %v: the c5n.18xlarge reservation (dearest on-demand) comes last", p.Reservations)
	}
	// The launch goes into the reservation: reserved is the first (and launched) capacity type.
	if p.LaunchTypes[0] != "m5.large" || len(p.LaunchPlan) == 0 {
		t.Fatalf("launch types %v", p.LaunchTypes)
	}
	for _, o := range p.LaunchPlan {
		if o.CapacityType != "reserved" || o.Zone != zoneA || o.InstanceType != "m5.large" {
			t.Errorf("option %+v: Karpenter launches the reserved offering only", o)
		}
		if want := 0.096 / reservations.PriceDivisor; math.Abs(o.Price-want) > 1e-15 {
			t.Errorf("reserved price %g, want on-demand / 1e7 = %g", o.Price, want)
		}
	}
	// Cost: 3 reserved nodes paid already, the other 7 at the cheapest on-demand offering.
	c := p.Cost
	if c.ReservedNodes != 3 || math.Abs(c.ReservedHourly-3*0.096) > 1e-9 || c.Nodes != 7 || c.CapacityType != "on-demand" || c.InstanceType != "m5.large" {
		t.Errorf("cost %+v", c)
	}
	if s := c.String(); !strings.Contains(s, "3 nodes in capacity reservations, paid for already (0.29 USD/h") || !strings.Contains(s, "at most 7 × m5.large") {
		t.Errorf("cost line %q", s)
	}
	line := p.ReservationsLine
	for _, want := range []string{"reserved first: cr-used m5.large in " + zoneA + " covers 3", "3 nodes before it falls to on-demand",
		"2 more of the class's reservations not used", "opt out of open reservations"} {
		if !strings.Contains(line, want) {
			t.Errorf("summary reservations %q lacks %q", line, want)
		}
	}
}

func TestReservedLimitsMetByEarlierReservations(t *testing.T) {
	in := reservedInput(reservation("cr-large", "m5.large", zoneA, 3), reservation("cr-xlarge", "m5.xlarge", zoneB, 2))
	in.Limits = map[string]string{"cpu": "7"} // three m5.large (6 vCPUs) leave 1: no m5.xlarge fits
	p := mustBuild(t, in)
	if u := useOf(t, p, "cr-large"); u.Nodes != 3 {
		t.Errorf("cr-large %+v", u)
	}
	if u := useOf(t, p, "cr-xlarge"); u.Reason != reservations.ReasonLimitsMet {
		t.Errorf("cr-xlarge %+v, want limits met", u)
	}
	if p.Cost.Nodes != 0 {
		t.Errorf("cost %+v: the limits leave no on-demand node", p.Cost)
	}
}

func TestReservedCapacityGateOff(t *testing.T) {
	open := reservation("cr-open", "m5.large", zoneA, 2)
	open.MatchCriteria = "open"
	in := reservedInput(open, reservation("cr-targeted", "m5.large", zoneB, 2))
	in.ReservedCapacityOff = true
	p := mustBuild(t, in)
	if !hasProblem(p.Warnings, "template.requirements[2].values", `"reserved" is not planned`, reservations.ReasonGateOff) {
		t.Errorf("warnings %v", p.Warnings)
	}
	for _, o := range p.LaunchPlan {
		if o.CapacityType != "on-demand" {
			t.Fatalf("gate off: option %+v, want on-demand only", o)
		}
	}
	if u := useOf(t, p, "cr-open"); u.Reason != "" || u.Nodes != 2 {
		t.Errorf("open reservation %+v: on-demand launches of its type and zone consume it", u)
	}
	if u := useOf(t, p, "cr-targeted"); !strings.HasPrefix(u.Reason, reservations.ReasonGateOff) {
		t.Errorf("targeted reservation %+v", u)
	}
	if line := p.ReservationsLine; !strings.Contains(line, "ReservedCapacity is off") {
		t.Errorf("summary %q", line)
	}

	// Spot first: an open reservation sees no on-demand launch.
	in.Requirements[2] = req(requirements.LabelCapacityType, requirements.OpIn, "spot", "on-demand")
	p = mustBuild(t, in)
	if u := useOf(t, p, "cr-open"); !strings.Contains(u.Reason, "launches spot first") {
		t.Errorf("spot first: %+v", u)
	}
}

func TestReservedOnlyPool(t *testing.T) {
	in := reservedInput(reservation("cr-1", "m5.large", zoneA, 2))
	in.Requirements[2] = req(requirements.LabelCapacityType, requirements.OpIn, "reserved")
	p := mustBuild(t, in)
	if len(p.InstanceTypes) != 1 || p.InstanceTypes[0].Name != "m5.large" {
		t.Errorf("reserved only: types %v, want the reservation's type alone", typeNames(p))
	}
	if !strings.Contains(p.Cost.String(), "the pool launches nothing beyond them") || !strings.Contains(p.ReservationsLine, "2 nodes in all; the pool allows only reserved capacity") {
		t.Errorf("cost %q, summary %q", p.Cost.String(), p.ReservationsLine)
	}
	// Without a usable reservation the pool can launch nothing: an error on the requirement.
	in.Class.Reservations[0].Available = 0
	if _, errs := Build(in); !hasProblem(errs, "template.requirements[2].values", "reserved capacity cannot be planned", "free instance") {
		t.Errorf("errors %v", errs)
	}
}

func TestCapacityBlocksInTime(t *testing.T) {
	block := func(id string, avail int, start, end time.Time) reservations.Reservation {
		r := reservation(id, "m5.large", zoneA, avail)
		r.Type, r.Start, r.End = reservations.TypeCapacityBlock, start, end
		return r
	}
	in := reservedInput(block("cr-ends", 4, planNow.Add(-24*time.Hour), planNow.Add(3*time.Hour)),
		block("cr-soon", 8, planNow.Add(5*time.Hour), planNow.Add(50*time.Hour)))
	in.Requirements[2] = req(requirements.LabelCapacityType, requirements.OpIn, "reserved")
	in.KarpenterReplicas = intPtr(6)
	p := mustBuild(t, in)
	if u := useOf(t, p, "cr-soon"); u.Reason != reservations.ReasonUpcoming {
		t.Errorf("upcoming block %+v", u)
	}
	if u := useOf(t, p, "cr-ends"); u.Nodes != 4 {
		t.Errorf("block %+v", u)
	}
	if !hasProblem(p.Warnings, "replicas", "replicas 6 exceed the 4 instances", "the other 2 stay pending") {
		t.Errorf("warnings %v: replicas beyond the blocks", p.Warnings)
	}
	if !hasProblem(p.Warnings, "", "cr-ends", "ends at 2026-12-06T15:00:00Z", "stops launching into it at 2026-12-06T14:20:00Z") {
		t.Errorf("warnings %v: the block that ends within the horizon", p.Warnings)
	}
	in.CapacityBlockHorizon = time.Hour
	if p = mustBuild(t, in); hasProblem(p.Warnings, "", "cr-ends", "ends at") {
		t.Errorf("a 1h horizon: no ending warning, got %v", p.Warnings)
	}
	// In its last 40 minutes Karpenter calls it expiring and launches nothing there.
	in.Now = planNow.Add(3*time.Hour - 30*time.Minute)
	if _, errs := Build(in); !hasProblem(errs, "template.requirements[2].values", "reserved capacity cannot be planned") {
		t.Errorf("expiring block: errors %v", errs)
	}
}

func TestProviderLauncherReservations(t *testing.T) {
	open := reservation("cr-open", "m5.large", zoneA, 2)
	open.MatchCriteria = "open"
	in := reservedInput(open, reservation("cr-targeted", "m5.large", zoneA, 2))
	in.Limits = nil
	in.Bootstrap, in.Replicas = demoBootstrap, intPtr(3)
	in.Class.AMIs = []nodeclass.AMI{{ID: "ami-x86", Architecture: "amd64"}}
	p := mustBuild(t, in)
	if u := useOf(t, p, "cr-targeted"); !strings.HasPrefix(u.Reason, reservations.ReasonLauncher) {
		t.Errorf("targeted %+v", u)
	}
	if u := useOf(t, p, "cr-open"); u.Nodes != 2 {
		t.Errorf("open %+v: the provider's on-demand launches consume it", u)
	}
	if c := p.Cost; c.ReservedNodes != 2 || c.Nodes != 1 {
		t.Errorf("cost %+v: 2 of 3 replicas in the open reservation", c)
	}
}

// Karpenter launches one kind of reservation at a time, the kind with the cheapest offering,
// and a Capacity Block launch is of one type; the launch carries the reserved types alone.
func TestReservedLaunchOneKind(t *testing.T) {
	blk := reservation("cr-block", "m5.large", zoneA, 2)
	blk.Type = reservations.TypeCapacityBlock
	blk2 := reservation("cr-block2", "m4.large", zoneB, 2)
	blk2.Type = reservations.TypeCapacityBlock
	in := reservedInput(reservation("cr-default", "m5.xlarge", zoneA, 2), blk, blk2)
	p := mustBuild(t, in)
	if strings.Join(p.LaunchTypes, ",") != "m5.large" {
		t.Errorf("launch types %v: the cheapest block's type alone", p.LaunchTypes)
	}
	for _, o := range p.LaunchPlan {
		if o.CapacityType != "reserved" || o.InstanceType != "m5.large" || o.Zone != zoneA {
			t.Errorf("option %+v", o)
		}
	}
	// The rest of the nodes launch on-demand, priced by the cheapest on-demand type.
	if c := p.Cost; c.CapacityType != "on-demand" || c.InstanceType != "m5.large" {
		t.Errorf("cost %+v", c)
	}

	// Default reservations alone: every type with one launches, cheapest first, reserved only.
	in = reservedInput(reservation("cr-x", "m5.xlarge", zoneA, 2), reservation("cr-l", "m5.large", zoneB, 1))
	p = mustBuild(t, in)
	if strings.Join(p.LaunchTypes, ",") != "m5.large,m5.xlarge" {
		t.Errorf("launch types %v: the reserved types only, by on-demand price", p.LaunchTypes)
	}

	// Interruptible reservations are a kind of their own from Karpenter 1.10; 1.9 launches them
	// as default ones.
	intr := reservation("cr-int", "m5.large", zoneA, 2)
	intr.Interruptible = true
	in = reservedInput(reservation("cr-x", "m5.xlarge", zoneA, 2), intr)
	if p = mustBuild(t, in); strings.Join(p.LaunchTypes, ",") != "m5.large" {
		t.Errorf("1.15: launch types %v, want the interruptible kind (cheapest) alone", p.LaunchTypes)
	}
	in.KarpenterVersion = "1.9"
	if p = mustBuild(t, in); strings.Join(p.LaunchTypes, ",") != "m5.large,m5.xlarge" {
		t.Errorf("1.9: launch types %v, want both as default reservations", p.LaunchTypes)
	}
}

// The summary's reservations line is null (not shown in a plan) when the class selects none.
func TestSummaryReservationsNullWithoutReservations(t *testing.T) {
	if got := mustBuild(t, baseInput()).Summary().Reservations; got != nil {
		t.Errorf("summary reservations %q, want null", *got)
	}
	p := mustBuild(t, reservedInput(reservation("cr-1", "m5.large", zoneA, 1)))
	if got := p.Summary().Reservations; got == nil || *got != p.ReservationsLine {
		t.Errorf("summary reservations %v, want the line", got)
	}
}
