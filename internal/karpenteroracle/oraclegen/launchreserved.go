package oraclegen

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// launchEpoch is the earliest clock of a launch case; each case's Now is up to 90 days later.
var launchEpoch = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// outsideZone is a zone of the region with no subnet of the class: a reservation there cannot be
// launched into.
const outsideZone = "us-west-2d"

// absentTypes are types the region's catalog of a case never holds: reservations of them match
// no instance type Karpenter lists.
var absentTypes = []string{"p5.48xlarge", "trn1.32xlarge", "m5.24xlarge"}

// blockEnds are how long before a Capacity Block's end a case's clock stands: inside Karpenter's
// 40-minute expiring window (at its edge too), just outside it, and well before.
var blockEnds = []time.Duration{time.Minute, 10 * time.Minute, 39 * time.Minute, 40 * time.Minute, 40*time.Minute + time.Second,
	41 * time.Minute, 2 * time.Hour, 30 * time.Hour, 14 * 24 * time.Hour}

// randomReservations draws one to seven capacity reservations of a class as EC2 describes them at
// now (active ones, and scheduled ones that start later): of the catalog's types (mostly types
// the pool's requirements reqs allow, some they leave out) and of types it lacks, in the class's zones and outside
// them, default ones (some interruptible, some with an end date) and Capacity Blocks (some in or
// at the edge of their last 40 minutes), some with no free instance, open or targeted.
func randomReservations(rng *rand.Rand, cat *catalog.Catalog, reqs []requirements.Requirement, now time.Time) []reservations.Reservation {
	types := cat.Types()
	allowed := allowedTypes(types, reqs)
	var out []reservations.Reservation
	ids := map[string]bool{}
	for range 1 + rng.Intn(7) {
		r := reservations.Reservation{OwnerID: "123456789012", MatchCriteria: "open", Type: reservations.TypeDefault}
		for r.ID == "" || ids[r.ID] {
			r.ID = fmt.Sprintf("cr-%017x", rng.Int63())
		}
		ids[r.ID] = true
		drawPlace(rng, &r, types, allowed, out)
		drawCounts(rng, &r)
		drawTimes(rng, &r, now)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b reservations.Reservation) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// allowedTypes are the types the requirements allow, zone and capacity type aside.
func allowedTypes(types []*catalog.InstanceType, reqs []requirements.Requirement) []*catalog.InstanceType {
	onLabels := slices.DeleteFunc(slices.Clone(reqs), func(r requirements.Requirement) bool {
		return r.Key == requirements.LabelCapacityType || r.Key == requirements.LabelZone
	})
	var allowed []*catalog.InstanceType
	for _, it := range types {
		if requirements.LabelsCompatible(catalog.Labels(it), onLabels) {
			allowed = append(allowed, it)
		}
	}
	return allowed
}

// drawPlace draws r's type (mostly one the pool allows, sometimes one absent from the region)
// and zone (sometimes outside the class's), often repeating an earlier reservation's.
func drawPlace(rng *rand.Rand, r *reservations.Reservation, types, allowed []*catalog.InstanceType, earlier []reservations.Reservation) {
	switch n := rng.Intn(10); {
	case n == 0 || len(types) == 0:
		r.InstanceType = absentTypes[rng.Intn(len(absentTypes))]
	case n < 7 && len(allowed) > 0:
		r.InstanceType = allowed[rng.Intn(len(allowed))].Name
	default:
		r.InstanceType = types[rng.Intn(len(types))].Name
	}
	if len(earlier) > 0 && rng.Intn(4) == 0 {
		// Another reservation of a type already drawn, often in the same zone: Karpenter keeps
		// the one with the most free instances per zone.
		prev := earlier[rng.Intn(len(earlier))]
		r.InstanceType = prev.InstanceType
		if rng.Intn(2) == 0 {
			r.Zone = prev.Zone
		}
	}
	if r.Zone == "" {
		if rng.Intn(8) == 0 {
			r.Zone = outsideZone
		} else {
			r.Zone = launchZones[rng.Intn(len(launchZones))]
		}
	}
}

// drawCounts draws r's match criteria and its free and total instances.
func drawCounts(rng *rand.Rand, r *reservations.Reservation) {
	if rng.Intn(4) == 0 {
		r.MatchCriteria = "targeted"
	}
	if rng.Intn(5) == 0 {
		r.Available = 0
	} else {
		r.Available = 1 + rng.Intn(4)
	}
	r.Total = max(1, r.Available+rng.Intn(4))
}

// drawTimes makes r a Capacity Block (started or bought ahead, ending at one of blockEnds) or a
// default reservation (maybe interruptible, maybe future-dated, maybe with an end date).
func drawTimes(rng *rand.Rand, r *reservations.Reservation, now time.Time) {
	if rng.Intn(5) < 2 {
		r.Type = reservations.TypeCapacityBlock
		r.Start = now.Add(-time.Duration(1+rng.Intn(72)) * time.Hour)
		r.End = now.Add(blockEnds[rng.Intn(len(blockEnds))])
		if rng.Intn(6) == 0 {
			// Bought ahead: EC2 calls it scheduled until it starts.
			r.Start = now.Add(time.Duration(1+rng.Intn(48)) * time.Hour)
			r.End = r.Start.Add(24 * time.Hour)
		}
		return
	}
	r.Interruptible = rng.Intn(4) == 0
	switch rng.Intn(4) {
	case 0: // start not reported
	case 1:
		r.Start = now.Add(time.Duration(1+rng.Intn(48)) * time.Hour) // a future-dated reservation, scheduled
	default:
		r.Start = now.Add(-time.Duration(1+rng.Intn(1000)) * time.Hour)
	}
	if rng.Intn(3) == 0 {
		// A default reservation with an end date: it stays active to its end (Karpenter's
		// expiring window is the Capacity Blocks' only).
		r.End = now.Add(blockEnds[rng.Intn(len(blockEnds))])
		if !r.Start.IsZero() && !r.End.After(r.Start) {
			r.End = r.Start.Add(time.Hour)
		}
	}
}

// reservedCapacityTypes are the capacity-type requirements a case with reservations draws.
var reservedCapacityTypes = []struct {
	op     requirements.Operator
	values []string
}{
	{requirements.OpIn, []string{"reserved"}},
	{requirements.OpIn, []string{"reserved", "on-demand"}},
	{requirements.OpIn, []string{"reserved", "on-demand"}},
	{requirements.OpIn, []string{"reserved", "spot"}},
	{requirements.OpIn, []string{"reserved", "spot", "on-demand"}},
	{requirements.OpIn, []string{"reserved", "spot", "on-demand"}},
	{requirements.OpIn, []string{"spot", "on-demand"}},
	{requirements.OpIn, []string{"on-demand"}},
	{requirements.OpNotIn, []string{"spot"}},
	{requirements.OpNotIn, []string{"reserved"}},
}

// withReservedRequirement replaces the pool's capacity-type requirements, most of the time, by
// one drawn from reservedCapacityTypes (most allow `reserved`, some do not); otherwise the pool
// keeps what it drew (none at all allows every capacity type, `reserved` among them).
func withReservedRequirement(rng *rand.Rand, reqs []requirements.Requirement) []requirements.Requirement {
	if rng.Intn(6) == 0 {
		return reqs
	}
	out := slices.DeleteFunc(slices.Clone(reqs), func(r requirements.Requirement) bool { return r.Key == requirements.LabelCapacityType })
	ct := reservedCapacityTypes[rng.Intn(len(reservedCapacityTypes))]
	return append(out, requirements.Requirement{Key: requirements.LabelCapacityType, Operator: ct.op, Values: ct.values})
}
