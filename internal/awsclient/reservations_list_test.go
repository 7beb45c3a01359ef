package awsclient

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

func listedIDs(rs []discovery.CapacityReservation) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestListCapacityReservations(t *testing.T) {
	start := time.Date(2030, 3, 1, 11, 30, 0, 0, time.UTC)
	end := start.Add(48 * time.Hour)
	block := ec2Reservation("cr-block", "scheduled", "targeted", "111111111111", nil)
	block.ReservationType, block.StartDate, block.EndDate = ec2types.CapacityReservationTypeCapacityBlock, &start, &end
	interruptible := ec2Reservation("cr-int", "active", "open", "222222222222", map[string]string{"team": "ml"})
	interruptible.Interruptible, interruptible.InstanceType = aws.Bool(true), aws.String("g6.xlarge")
	zoneB := ec2Reservation("cr-zone-b", "active", "open", "111111111111", nil)
	zoneB.AvailabilityZone = aws.String("ap-southeast-1b")
	f := &awsfake.EC2{PageSize: map[string]int{"DescribeCapacityReservations": 2}, CapacityReservations: []ec2types.CapacityReservation{
		ec2Reservation("cr-active", "active", "targeted", "111111111111", nil),
		ec2Reservation("cr-expired", "expired", "targeted", "111111111111", nil),
		ec2Reservation("cr-cancelled", "cancelled", "open", "111111111111", nil),
		ec2Reservation("cr-pending", "pending", "open", "111111111111", nil),
		block, interruptible, zoneB,
	}}
	d := Discovery{EC2: f}
	ctx := context.Background()

	// Unfiltered: active and scheduled ones, over pages, as EC2 answers them.
	got, err := d.ListCapacityReservations(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := listedIDs(got); !reflect.DeepEqual(ids, []string{"cr-active", "cr-block", "cr-int", "cr-zone-b"}) {
		t.Errorf("listed %v", ids)
	}
	if n := len(reservationInputs(f)); n != 2 {
		t.Errorf("%d calls, want 2 pages of 2", n)
	}
	in := reservationInputs(f)[0]
	wantFilters := []ec2types.Filter{{Name: aws.String("state"), Values: []string{"active", "scheduled"}}}
	if !reflect.DeepEqual(in.Filters, wantFilters) || aws.ToInt32(in.MaxResults) != 1000 || in.CapacityReservationIds != nil {
		t.Errorf("first call: %+v", in)
	}
	wantBlock := discovery.CapacityReservation{ID: "cr-block", InstanceType: "p5.48xlarge", Zone: "ap-southeast-1a", State: "scheduled",
		OwnerID: "111111111111", InstanceMatchCriteria: "targeted", ReservationType: "capacity-block", AvailableInstanceCount: 3,
		TotalInstanceCount: 4, StartDate: start, EndDate: end, Tags: map[string]string{}}
	if !reflect.DeepEqual(got[1], wantBlock) {
		t.Errorf("block:\n got %+v\nwant %+v", got[1], wantBlock)
	}
	if !got[2].Interruptible || got[2].OwnerID != "222222222222" || got[2].Tags["team"] != "ml" {
		t.Errorf("interruptible shared reservation: %+v", got[2])
	}

	// Narrowed on EC2's side: types and zones become filters, sorted and without repeats.
	f.ForgetCalls()
	got, err = d.ListCapacityReservations(ctx, []string{"p5.48xlarge", "m5.large", "p5.48xlarge"}, []string{"ap-southeast-1a"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := listedIDs(got); !reflect.DeepEqual(ids, []string{"cr-active", "cr-block"}) {
		t.Errorf("narrowed: listed %v", ids)
	}
	wantFilters = append(wantFilters,
		ec2types.Filter{Name: aws.String("instance-type"), Values: []string{"m5.large", "p5.48xlarge"}},
		ec2types.Filter{Name: aws.String("availability-zone"), Values: []string{"ap-southeast-1a"}})
	if in := reservationInputs(f)[0]; !reflect.DeepEqual(in.Filters, wantFilters) {
		t.Errorf("narrowed filters: %+v", in.Filters)
	}

	// The per-walk cache asks once per filter set.
	cached := Discovery{EC2: f, Cache: NewDiscoveryCache()}
	f.ForgetCalls()
	for range 2 {
		if _, err := cached.ListCapacityReservations(ctx, nil, []string{"ap-southeast-1b"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(reservationInputs(f)); n != 1 {
		t.Errorf("cached listing made %d calls, want 1", n)
	}

	// A denied call is an error that says what was asked.
	f.Fail = map[string]error{"DescribeCapacityReservations": errors.New("UnauthorizedOperation: not allowed")}
	if _, err := d.ListCapacityReservations(ctx, nil, nil); err == nil || !strings.Contains(err.Error(), "describing capacity reservations") ||
		!strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("err = %v", err)
	}
}
