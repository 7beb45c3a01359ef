package awsclient

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	smithy "github.com/aws/smithy-go"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// LocalStack 4.14 (moto) implements neither DescribeCapacityReservations nor
// DescribePlacementGroups (nor their Create calls): it answers InternalFailure "not been
// implemented". The shared EC2 fake stands in for EC2's documented behaviour instead.

func apiErr(code string) error { return &smithy.GenericAPIError{Code: code, Message: code} }

// reservationInputs and groupInputs are the requests the fake received.
func reservationInputs(f *awsfake.EC2) []ec2.DescribeCapacityReservationsInput {
	return awsfake.Inputs[ec2.DescribeCapacityReservationsInput](f)
}

func groupInputs(f *awsfake.EC2) []ec2.DescribePlacementGroupsInput {
	return awsfake.Inputs[ec2.DescribePlacementGroupsInput](f)
}

func ec2Reservation(id, state, imc, owner string, tags map[string]string) ec2types.CapacityReservation {
	r := ec2types.CapacityReservation{
		CapacityReservationId: aws.String(id), InstanceType: aws.String("p5.48xlarge"), AvailabilityZone: aws.String("ap-southeast-1a"),
		State: ec2types.CapacityReservationState(state), InstanceMatchCriteria: ec2types.InstanceMatchCriteria(imc), OwnerId: aws.String(owner),
		AvailableInstanceCount: aws.Int32(3), TotalInstanceCount: aws.Int32(4),
	}
	for k, v := range tags {
		r.Tags = append(r.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	return r
}

func TestFindCapacityReservationsByFilters(t *testing.T) {
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeCapacityReservations": 1}, CapacityReservations: []ec2types.CapacityReservation{
		ec2Reservation("cr-1", "active", "targeted", "111111111111", map[string]string{"team": "ml", "env": "prod"}),
		ec2Reservation("cr-2", "active", "open", "111111111111", map[string]string{"team": "ml"}),
		ec2Reservation("cr-3", "expired", "targeted", "111111111111", map[string]string{"team": "ml"}),
		ec2Reservation("cr-4", "active", "targeted", "222222222222", map[string]string{"team": "ml"}),
		ec2Reservation("cr-5", "active", "targeted", "111111111111", map[string]string{"team": "web"}),
	}}
	q := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{
		{Tags: map[string]string{"team": "ml"}, OwnerID: "111111111111", InstanceMatchCriteria: "targeted"},
	})[0]
	got, err := Discovery{EC2: f}.FindCapacityReservations(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "cr-1" {
		t.Fatalf("got %+v, want cr-1 only (active, owner, criteria and tag filters)", got)
	}
	want := discovery.CapacityReservation{ID: "cr-1", InstanceType: "p5.48xlarge", Zone: "ap-southeast-1a", State: "active",
		OwnerID: "111111111111", InstanceMatchCriteria: "targeted", ReservationType: "default", AvailableInstanceCount: 3,
		TotalInstanceCount: 4, Tags: map[string]string{"team": "ml", "env": "prod"}}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("got %+v\nwant %+v", got[0], want)
	}
	in := reservationInputs(f)[0]
	if aws.ToInt32(in.MaxResults) != 1000 || len(in.CapacityReservationIds) != 0 {
		t.Errorf("filter call: MaxResults %v ids %v", in.MaxResults, in.CapacityReservationIds)
	}

	// Pagination: the tag-key term matches four reservations, one per page.
	all := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{{Tags: map[string]string{"team": "*"}}})[0]
	f.ForgetCalls()
	got, err = Discovery{EC2: f}.FindCapacityReservations(context.Background(), all)
	if err != nil || len(got) != 4 || len(reservationInputs(f)) != 4 {
		t.Errorf("paged: %d reservations in %d calls (%v), want 4 active in 4 pages", len(got), len(reservationInputs(f)), err)
	}
}

func TestFindCapacityReservationsByIDs(t *testing.T) {
	end := time.Date(2026, 5, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))
	block := ec2Reservation("cr-b", "active", "targeted", "111111111111", nil)
	block.ReservationType, block.EndDate = ec2types.CapacityReservationTypeCapacityBlock, &end
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeCapacityReservations": 10}, CapacityReservations: []ec2types.CapacityReservation{
		ec2Reservation("cr-a", "expired", "open", "111111111111", nil), block,
	}}
	d := Discovery{EC2: f}
	ctx := context.Background()

	// All known: one call, no state filter (an expired reservation comes back for the caller to judge).
	got, err := d.FindCapacityReservations(ctx, discovery.CapacityReservationQuery{IDs: []string{"cr-a", "cr-b"}})
	if err != nil || len(got) != 2 || len(reservationInputs(f)) != 1 {
		t.Fatalf("got %+v in %d calls, %v", got, len(reservationInputs(f)), err)
	}
	if got[0].State != "expired" || got[1].ReservationType != "capacity-block" || !got[1].EndDate.Equal(end) || got[1].EndDate.Location() != time.UTC {
		t.Errorf("got %+v", got)
	}

	// One unknown: EC2 fails the whole call; the ids are asked one by one and the unknown one dropped.
	f.ForgetCalls()
	got, err = d.FindCapacityReservations(ctx, discovery.CapacityReservationQuery{IDs: []string{"cr-a", "cr-gone", "cr-b"}})
	if err != nil || len(got) != 2 || got[0].ID != "cr-a" || got[1].ID != "cr-b" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if len(reservationInputs(f)) != 4 {
		t.Errorf("want 1 + 3 calls, got %d", len(reservationInputs(f)))
	}

	// A single unknown id is no result.
	got, err = d.FindCapacityReservations(ctx, discovery.CapacityReservationQuery{IDs: []string{"cr-gone"}})
	if err != nil || len(got) != 0 {
		t.Errorf("got %+v, %v", got, err)
	}
}

func TestFindCapacityReservationsError(t *testing.T) {
	f := &awsfake.EC2{Fail: map[string]error{"DescribeCapacityReservations": errors.New("UnauthorizedOperation: not allowed")}}
	q := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{{InstanceMatchCriteria: "open"}})[0]
	_, err := Discovery{EC2: f}.FindCapacityReservations(context.Background(), q)
	if err == nil || !strings.Contains(err.Error(), "describing capacity reservations") || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("err = %v", err)
	}
	_, err = Discovery{EC2: f}.FindCapacityReservations(context.Background(), discovery.CapacityReservationQuery{IDs: []string{"cr-a", "cr-b"}})
	if err == nil || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("id query err = %v", err)
	}
}

func TestFindPlacementGroups(t *testing.T) {
	f := &awsfake.EC2{PlacementGroups: []ec2types.PlacementGroup{
		{GroupId: aws.String("pg-1"), GroupName: aws.String("hpc"), Strategy: ec2types.PlacementStrategyCluster, State: ec2types.PlacementGroupStateAvailable},
		{GroupId: aws.String("pg-2"), GroupName: aws.String("parts"), Strategy: ec2types.PlacementStrategyPartition,
			State: ec2types.PlacementGroupStateDeleting, PartitionCount: aws.Int32(7)},
	}}
	d := Discovery{EC2: f, Cache: NewDiscoveryCache()}
	ctx := context.Background()

	got, err := d.FindPlacementGroups(ctx, discovery.PlacementGroupSelector{ID: "pg-2"})
	want := []discovery.PlacementGroup{{ID: "pg-2", Name: "parts", Strategy: "partition", State: "deleting", PartitionCount: 7}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("by id: %+v, %v", got, err)
	}
	if in := groupInputs(f)[0]; !reflect.DeepEqual(in.GroupIds, []string{"pg-2"}) || in.GroupNames != nil || in.Filters != nil {
		t.Errorf("by id input: %+v", in)
	}
	got, err = d.FindPlacementGroups(ctx, discovery.PlacementGroupSelector{Name: "hpc"})
	if err != nil || len(got) != 1 || got[0].ID != "pg-1" || !reflect.DeepEqual(groupInputs(f)[1].GroupNames, []string{"hpc"}) {
		t.Errorf("by name: %+v, %v, %+v", got, err, groupInputs(f)[1])
	}
	// Unknown names and ids are no result, not errors.
	for _, sel := range []discovery.PlacementGroupSelector{{ID: "pg-9"}, {Name: "nope"}} {
		if got, err := d.FindPlacementGroups(ctx, sel); err != nil || len(got) != 0 {
			t.Errorf("%v: %+v, %v", sel, got, err)
		}
	}
	// The per-walk cache asks once per selector.
	calls := len(groupInputs(f))
	if _, err := d.FindPlacementGroups(ctx, discovery.PlacementGroupSelector{ID: "pg-2"}); err != nil || len(groupInputs(f)) != calls {
		t.Errorf("cached lookup made a call (%d -> %d), %v", calls, len(groupInputs(f)), err)
	}

	f.Fail = map[string]error{"DescribePlacementGroups": apiErr("UnauthorizedOperation")}
	_, err = Discovery{EC2: f}.FindPlacementGroups(ctx, discovery.PlacementGroupSelector{Name: "hpc"})
	if err == nil || !strings.Contains(err.Error(), `placement group named "hpc"`) || ErrCode(err) != "UnauthorizedOperation" {
		t.Errorf("err = %v", err)
	}
}

// TestCapacityThroughSDK runs the adapter with the real SDK client (query serialization, XML
// decoding, EC2's error codes) against acctest.CapacityStub, which emulates the two calls
// LocalStack lacks. Only the stub answers: nothing reaches the emulator.
func TestCapacityThroughSDK(t *testing.T) {
	stub := acctest.NewCapacityStub(t)
	end := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	stub.SetReservations(
		acctest.StubReservation{ID: "cr-0a", InstanceType: "p5.48xlarge", Zone: "ap-southeast-1a", State: "active", OwnerID: "111111111111",
			InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", Available: 1, Total: 2, EndDate: end, Tags: map[string]string{"team": "ml"}},
		acctest.StubReservation{ID: "cr-0b", InstanceType: "m5.large", Zone: "ap-southeast-1b", State: "expired", OwnerID: "111111111111",
			InstanceMatchCriteria: "open", ReservationType: "default", Tags: map[string]string{"team": "ml"}},
	)
	stub.SetPlacementGroups(acctest.StubPlacementGroup{ID: "pg-0a", Name: "parts", Strategy: "partition", State: "available", PartitionCount: 5})
	client := ec2.New(ec2.Options{Region: "ap-southeast-1", BaseEndpoint: aws.String(stub.URL()),
		Credentials: aws.AnonymousCredentials{}})
	d := Discovery{EC2: client}
	ctx := context.Background()

	tagged := discovery.CapacityReservationQueries([]discovery.CapacityReservationTerm{{Tags: map[string]string{"team": "*"}}})[0]
	got, err := d.FindCapacityReservations(ctx, tagged)
	want := []discovery.CapacityReservation{{ID: "cr-0a", InstanceType: "p5.48xlarge", Zone: "ap-southeast-1a", State: "active",
		OwnerID: "111111111111", InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", AvailableInstanceCount: 1,
		TotalInstanceCount: 2, EndDate: end, Tags: map[string]string{"team": "ml"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("by tags: %+v, %v", got, err)
	}
	got, err = d.FindCapacityReservations(ctx, discovery.CapacityReservationQuery{IDs: []string{"cr-0a", "cr-0b", "cr-0c"}})
	if err != nil || len(got) != 2 || got[1].State != "expired" {
		t.Fatalf("by ids with one unknown: %+v, %v", got, err)
	}
	groups, err := d.FindPlacementGroups(ctx, discovery.PlacementGroupSelector{Name: "parts"})
	if err != nil || len(groups) != 1 || groups[0] != (discovery.PlacementGroup{ID: "pg-0a", Name: "parts", Strategy: "partition", State: "available", PartitionCount: 5}) {
		t.Fatalf("by name: %+v, %v", groups, err)
	}
	for _, sel := range []discovery.PlacementGroupSelector{{ID: "pg-0z"}, {Name: "none"}} {
		if groups, err := d.FindPlacementGroups(ctx, sel); err != nil || len(groups) != 0 {
			t.Errorf("%v: %+v, %v", sel, groups, err)
		}
	}
	if stub.Calls("DescribeCapacityReservations") != 5 || stub.Calls("DescribePlacementGroups") != 3 {
		t.Errorf("calls: %d reservations, %d groups", stub.Calls("DescribeCapacityReservations"), stub.Calls("DescribePlacementGroups"))
	}
}
