package awsclient

import (
	"context"
	"slices"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// ListedReservationStates are the states ListCapacityReservations asks for: the reservations
// that are billed now (active) or will be (scheduled: a Capacity Block or future-dated
// reservation bought ahead of its start).
var ListedReservationStates = []string{string(ec2types.CapacityReservationStateActive), string(ec2types.CapacityReservationStateScheduled)}

// ListCapacityReservations lists the region's active and scheduled capacity reservations and
// Capacity Blocks with DescribeCapacityReservations (one filter query, paginated; needs
// ec2:DescribeCapacityReservations), narrowed on EC2's side to instanceTypes and zones when
// they are set. Reservations shared with the account come back too.
func (d Discovery) ListCapacityReservations(ctx context.Context, instanceTypes, zones []string) ([]discovery.CapacityReservation, error) {
	fs := discovery.FilterSet{{Name: "state", Values: ListedReservationStates}}
	if len(instanceTypes) > 0 {
		fs = append(fs, discovery.Filter{Name: "instance-type", Values: slices.Compact(slices.Sorted(slices.Values(instanceTypes)))})
	}
	if len(zones) > 0 {
		fs = append(fs, discovery.Filter{Name: "availability-zone", Values: slices.Compact(slices.Sorted(slices.Values(zones)))})
	}
	return d.FindCapacityReservations(ctx, discovery.CapacityReservationQuery{Filters: fs})
}
