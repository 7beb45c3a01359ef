package acctest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// CapacityStub is a loopback EC2 endpoint for tests of capacity reservations and placement
// groups. LocalStack 4.14 (moto-ext 5.1) implements none of CreatePlacementGroup,
// DescribePlacementGroups, CreateCapacityReservation and DescribeCapacityReservations: each
// answers InternalFailure "The ... action has not been implemented". The stub answers the two
// Describe calls from the objects a test gives it with internal/awsfake's EC2 fake (EC2's
// filters, its errors for unknown ids and names), and forwards every other call to LocalStack.
type CapacityStub struct {
	front *fakeFront
}

// StubReservation is one capacity reservation the stub serves.
type StubReservation struct {
	ID, InstanceType, Zone, State, OwnerID, InstanceMatchCriteria, ReservationType string
	Available, Total                                                               int
	EndDate                                                                        time.Time // zero: none
	StartDate                                                                      time.Time // zero: not reported
	Interruptible                                                                  bool
	Tags                                                                           map[string]string
}

// StubPlacementGroup is one placement group the stub serves.
type StubPlacementGroup struct {
	ID, Name, Strategy, State string
	PartitionCount            int
}

// NewCapacityStub starts a stub in front of Endpoint() for the test.
func NewCapacityStub(t testing.TB) *CapacityStub {
	t.Helper()
	return &CapacityStub{front: newFakeFront(t, "capacity stub", "DescribeCapacityReservations", "DescribePlacementGroups")}
}

// URL is the stub's endpoint, for the provider's `endpoints.ec2`.
func (s *CapacityStub) URL() string { return s.front.URL() }

// SetReservations replaces the reservations the stub serves: Linux/UNIX, default tenancy, an
// unlimited end date unless EndDate is set.
func (s *CapacityStub) SetReservations(rs ...StubReservation) {
	out := make([]ec2types.CapacityReservation, len(rs))
	for i, r := range rs {
		out[i] = ec2types.CapacityReservation{CapacityReservationId: aws.String(r.ID), OwnerId: aws.String(r.OwnerID),
			InstanceType: aws.String(r.InstanceType), InstancePlatform: ec2types.CapacityReservationInstancePlatformLinuxUnix,
			AvailabilityZone: aws.String(r.Zone), Tenancy: ec2types.CapacityReservationTenancyDefault,
			TotalInstanceCount: aws.Int32(int32(r.Total)), AvailableInstanceCount: aws.Int32(int32(r.Available)),
			State: ec2types.CapacityReservationState(r.State), EndDateType: ec2types.EndDateTypeUnlimited,
			InstanceMatchCriteria: ec2types.InstanceMatchCriteria(r.InstanceMatchCriteria),
			ReservationType:       ec2types.CapacityReservationType(r.ReservationType), Tags: sdkTags(r.Tags)}
		if !r.StartDate.IsZero() {
			out[i].StartDate = aws.Time(r.StartDate.UTC())
		}
		if r.Interruptible {
			out[i].Interruptible = aws.Bool(true)
		}
		if !r.EndDate.IsZero() {
			out[i].EndDate, out[i].EndDateType = aws.Time(r.EndDate.UTC()), ec2types.EndDateTypeLimited
		}
	}
	s.front.change(func() { s.front.ec2.CapacityReservations = out })
}

// SetPlacementGroups replaces the placement groups the stub serves.
func (s *CapacityStub) SetPlacementGroups(gs ...StubPlacementGroup) {
	out := make([]ec2types.PlacementGroup, len(gs))
	for i, g := range gs {
		out[i] = ec2types.PlacementGroup{GroupId: aws.String(g.ID), GroupName: aws.String(g.Name),
			Strategy: ec2types.PlacementStrategy(g.Strategy), State: ec2types.PlacementGroupState(g.State)}
		if g.PartitionCount > 0 {
			out[i].PartitionCount = aws.Int32(int32(g.PartitionCount))
		}
	}
	s.front.change(func() { s.front.ec2.PlacementGroups = out })
}

// Calls is how many requests of action the stub received.
func (s *CapacityStub) Calls(action string) int { return s.front.Calls(action) }

// String describes the stub for failure messages.
func (s *CapacityStub) String() string {
	return fmt.Sprintf("capacity stub at %s in front of %s", s.URL(), Endpoint())
}

// sdkTags are tags in the SDK's shape, sorted by key.
func sdkTags(tags map[string]string) []ec2types.Tag {
	var out []ec2types.Tag
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}
