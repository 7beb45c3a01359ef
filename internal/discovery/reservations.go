package discovery

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// Field names of capacity reservation terms in findings' paths.
const (
	FieldOwnerID               = "owner_id"
	FieldInstanceMatchCriteria = "instance_match_criteria"
)

// Values of a capacity reservation's instance match criteria that Karpenter understands.
const (
	InstanceMatchOpen     = "open"
	InstanceMatchTargeted = "targeted"
)

// Capacity reservation states the plan reads: Karpenter launches only into active
// reservations; a reservation bought ahead (a Capacity Block, or a future-dated reservation) is
// scheduled until its start date.
const (
	CapacityReservationStateActive    = "active"
	CapacityReservationStateScheduled = "scheduled"
)

// PlacementGroupStateAvailable is the only placement group state Karpenter launches into.
const PlacementGroupStateAvailable = "available"

// CapacityReservationTerm is one capacity_reservation_selector_terms entry: an id alone, or
// tags and/or an instance match criteria, optionally narrowed to one owner account.
type CapacityReservationTerm struct {
	ID                    string            `tfsdk:"id"`
	OwnerID               string            `tfsdk:"owner_id"`
	Tags                  map[string]string `tfsdk:"tags"`
	InstanceMatchCriteria string            `tfsdk:"instance_match_criteria"`
}

// CapacityReservation is what discovery keeps of an EC2 capacity reservation.
type CapacityReservation struct {
	ID                     string
	InstanceType           string
	Zone                   string
	State                  string
	OwnerID                string
	InstanceMatchCriteria  string
	ReservationType        string // "default" or "capacity-block"
	AvailableInstanceCount int
	TotalInstanceCount     int
	EndDate                time.Time // zero: the reservation has no end date
	StartDate              time.Time // zero: not reported
	Interruptible          bool
	Tags                   map[string]string
}

// PlacementGroupSelector is placement_group_selector: an id or a name (exactly one).
type PlacementGroupSelector struct {
	ID   string `tfsdk:"id"`
	Name string `tfsdk:"name"`
}

// String names the selector for messages: `pg-…` or `named "x"`.
func (s PlacementGroupSelector) String() string {
	if s.ID != "" {
		return s.ID
	}
	return fmt.Sprintf("named %q", s.Name)
}

// PlacementGroup is what discovery keeps of an EC2 placement group.
type PlacementGroup struct {
	ID             string
	Name           string
	Strategy       string // cluster, partition, spread
	State          string // pending, available, deleting, deleted
	PartitionCount int    // partition strategy only
	SpreadLevel    string // spread strategy only
}

// CapacityAPI is the part of EC2 that capacity reservation and placement group selection needs.
type CapacityAPI interface {
	// FindCapacityReservations answers one query; ids that do not exist yield no result.
	FindCapacityReservations(ctx context.Context, q CapacityReservationQuery) ([]CapacityReservation, error)
	// FindPlacementGroups looks one group up by id or by name; a group that does not exist
	// yields no result.
	FindPlacementGroups(ctx context.Context, sel PlacementGroupSelector) ([]PlacementGroup, error)
}

// CapacityReservationQuery is one DescribeCapacityReservations call: by ids, or by filters.
// Terms are the indices of the selector terms the query answers.
type CapacityReservationQuery struct {
	IDs     []string
	Filters FilterSet
	Terms   []int
}

// Key is a stable text form of the query (its terms excluded), for de-duplication and caching.
func (q CapacityReservationQuery) Key() string {
	if len(q.IDs) > 0 {
		quoted := make([]string, len(q.IDs))
		for i, id := range q.IDs {
			quoted[i] = strconv.Quote(id)
		}
		return "ids=" + strings.Join(quoted, ",")
	}
	return q.Filters.Key()
}

// CapacityReservationQueries turns the terms into calls the way Karpenter does: an id term asks
// for that reservation (all id terms share one call here), every other term is one filtered
// call for active and scheduled reservations with its owner, instance match criteria and tags.
// Karpenter asks for active ones only; scheduled ones are asked for too so that the plan can say
// which Capacity Blocks are still to start. The id call carries no state filter so that the
// caller can tell an expired reservation from a missing one; the caller keeps only active and
// scheduled reservations. Terms must be valid.
func CapacityReservationQueries(terms []CapacityReservationTerm) []CapacityReservationQuery {
	var ids []string
	var idTerms []int
	var out []CapacityReservationQuery
	byKey := map[string]int{}
	for i, t := range terms {
		if t.ID != "" {
			ids = append(ids, t.ID)
			idTerms = append(idTerms, i)
			continue
		}
		fs := FilterSet{{Name: "state", Values: []string{CapacityReservationStateActive, CapacityReservationStateScheduled}}}
		if t.OwnerID != "" {
			fs = append(fs, Filter{Name: "owner-id", Values: []string{t.OwnerID}})
		}
		if t.InstanceMatchCriteria != "" {
			fs = append(fs, Filter{Name: "instance-match-criteria", Values: []string{t.InstanceMatchCriteria}})
		}
		fs = append(fs, tagFilters(t.Tags)...)
		q := CapacityReservationQuery{Filters: fs, Terms: []int{i}}
		if j, dup := byKey[q.Key()]; dup {
			out[j].Terms = append(out[j].Terms, i)
			continue
		}
		byKey[q.Key()] = len(out)
		out = append(out, q)
	}
	if len(ids) > 0 {
		out = append([]CapacityReservationQuery{{IDs: uniqueSorted(ids), Terms: idTerms}}, out...)
	}
	return out
}

var (
	capacityReservationIDRE = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	placementGroupIDRE      = regexp.MustCompile(`^pg-[0-9a-z]+$`)
	accountIDRE             = regexp.MustCompile(`^[0-9]{12}$`)
)

// ValidateCapacityReservationTerms applies the CRD's rules per term: one of tags, id and
// instance match criteria; id alone (Karpenter ignores the other fields of an id term); ids
// shaped cr-…, owners as 12-digit account ids, the criteria open or targeted, tags as for
// subnets.
func ValidateCapacityReservationTerms(terms []CapacityReservationTerm) []attrpath.Finding {
	var errs []fieldError
	for i, t := range terms {
		hasTags, hasID, hasIMC := t.Tags != nil, t.ID != "", t.InstanceMatchCriteria != ""
		switch {
		case !hasTags && !hasID && !hasIMC:
			errs = append(errs, fieldError{Index: i, Message: "a capacity reservation selector term needs `tags`, `id` or `instance_match_criteria`"})
		case hasID && (hasTags || hasIMC || t.OwnerID != ""):
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: "`id` cannot be combined with `tags`, `owner_id` or `instance_match_criteria` in one term; use separate terms to OR them"})
		}
		errs = append(errs, validateTags(i, t.Tags)...)
		if hasID && !capacityReservationIDRE.MatchString(t.ID) {
			errs = append(errs, fieldError{Index: i, Field: FieldID, Message: fmt.Sprintf("%q is not a capacity reservation id (expected cr-[0-9a-z]+)", t.ID)})
		}
		if t.OwnerID != "" && !accountIDRE.MatchString(t.OwnerID) {
			errs = append(errs, fieldError{Index: i, Field: FieldOwnerID, Message: fmt.Sprintf("%q is not an AWS account id (12 digits)", t.OwnerID)})
		}
		if hasIMC && t.InstanceMatchCriteria != InstanceMatchOpen && t.InstanceMatchCriteria != InstanceMatchTargeted {
			errs = append(errs, fieldError{Index: i, Field: FieldInstanceMatchCriteria, Message: fmt.Sprintf("must be %q or %q, got %q", InstanceMatchOpen, InstanceMatchTargeted, t.InstanceMatchCriteria)})
		}
	}
	return findings(errs)
}

// ValidPlacementGroupID reports whether id is shaped pg-….
func ValidPlacementGroupID(id string) bool { return placementGroupIDRE.MatchString(id) }
