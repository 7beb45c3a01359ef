package awsclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/memo"
)

var _ discovery.CapacityAPI = Discovery{}

// FindCapacityReservations answers one query with DescribeCapacityReservations. Filter
// queries are paginated. Id queries name their reservations, and EC2 fails the whole call when
// one of them does not exist: the ids are then asked one by one and the missing ones dropped.
func (d Discovery) FindCapacityReservations(ctx context.Context, q discovery.CapacityReservationQuery) ([]discovery.CapacityReservation, error) {
	if d.Cache != nil {
		found, err := memo.Do(ctx, &d.Cache.m, "reservations|"+q.Key(), func() ([]discovery.CapacityReservation, error) {
			return d.findCapacityReservations(ctx, q)
		})
		return append([]discovery.CapacityReservation(nil), found...), err
	}
	return d.findCapacityReservations(ctx, q)
}

func (d Discovery) findCapacityReservations(ctx context.Context, q discovery.CapacityReservationQuery) ([]discovery.CapacityReservation, error) {
	if len(q.IDs) == 0 {
		// MaxResults is only allowed without ids.
		return d.describeReservations(ctx, &ec2.DescribeCapacityReservationsInput{Filters: toEC2Filters(q.Filters), MaxResults: aws.Int32(1000)}, q.Key())
	}
	in := &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: q.IDs, Filters: toEC2Filters(q.Filters)}
	out, err := d.describeReservations(ctx, in, q.Key())
	switch {
	case err == nil:
		return out, nil
	case !IsCode(err, ErrCodeCapacityReservationNotFound):
		return nil, err
	case len(q.IDs) == 1:
		return nil, nil
	}
	out = nil
	for _, id := range q.IDs {
		one, err := d.describeReservations(ctx, &ec2.DescribeCapacityReservationsInput{CapacityReservationIds: []string{id}, Filters: toEC2Filters(q.Filters)}, id)
		if IsCode(err, ErrCodeCapacityReservationNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, one...)
	}
	return out, nil
}

func (d Discovery) describeReservations(ctx context.Context, in *ec2.DescribeCapacityReservationsInput, what string) ([]discovery.CapacityReservation, error) {
	p := ec2.NewDescribeCapacityReservationsPaginator(d.EC2, in)
	var out []discovery.CapacityReservation
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			if IsCode(err, ErrCodeCapacityReservationNotFound) {
				return nil, err // the caller tells missing ids apart
			}
			return nil, fmt.Errorf("describing capacity reservations (%s): %w", what, err)
		}
		for _, r := range page.CapacityReservations {
			out = append(out, capacityReservationFromEC2(r))
		}
	}
	return out, nil
}

func capacityReservationFromEC2(r ec2types.CapacityReservation) discovery.CapacityReservation {
	cr := discovery.CapacityReservation{
		ID:                     aws.ToString(r.CapacityReservationId),
		InstanceType:           aws.ToString(r.InstanceType),
		Zone:                   aws.ToString(r.AvailabilityZone),
		State:                  string(r.State),
		OwnerID:                aws.ToString(r.OwnerId),
		InstanceMatchCriteria:  string(r.InstanceMatchCriteria),
		ReservationType:        string(r.ReservationType),
		AvailableInstanceCount: int(aws.ToInt32(r.AvailableInstanceCount)),
		TotalInstanceCount:     int(aws.ToInt32(r.TotalInstanceCount)),
		Tags:                   tagMap(r.Tags),
	}
	if cr.ReservationType == "" {
		cr.ReservationType = string(ec2types.CapacityReservationTypeDefault)
	}
	if r.EndDate != nil {
		cr.EndDate = r.EndDate.UTC()
	}
	if r.StartDate != nil {
		cr.StartDate = r.StartDate.UTC()
	}
	cr.Interruptible = aws.ToBool(r.Interruptible)
	return cr
}

// FindPlacementGroups looks one placement group up with DescribePlacementGroups (GroupIds or
// GroupNames; the call is not paginated). A group that does not exist is no result, not an
// error. Groups of every state come back: the caller judges the state, so that a deleting
// group reads as such rather than as missing.
func (d Discovery) FindPlacementGroups(ctx context.Context, sel discovery.PlacementGroupSelector) ([]discovery.PlacementGroup, error) {
	if d.Cache != nil {
		found, err := memo.Do(ctx, &d.Cache.m, "placement-groups|"+sel.ID+"|"+sel.Name, func() ([]discovery.PlacementGroup, error) {
			return d.findPlacementGroups(ctx, sel)
		})
		return append([]discovery.PlacementGroup(nil), found...), err
	}
	return d.findPlacementGroups(ctx, sel)
}

func (d Discovery) findPlacementGroups(ctx context.Context, sel discovery.PlacementGroupSelector) ([]discovery.PlacementGroup, error) {
	in := &ec2.DescribePlacementGroupsInput{}
	if sel.ID != "" {
		in.GroupIds = []string{sel.ID}
	} else {
		in.GroupNames = []string{sel.Name}
	}
	out, err := d.EC2.DescribePlacementGroups(ctx, in)
	if err != nil {
		if IsCode(err, ErrCodePlacementGroupUnknown, ErrCodePlacementGroupIDNotFound) ||
			(strings.HasPrefix(ErrCode(err), "InvalidPlacementGroup") && IsNotFound(err)) {
			return nil, nil
		}
		return nil, fmt.Errorf("describing placement group %s: %w", sel, err)
	}
	groups := make([]discovery.PlacementGroup, 0, len(out.PlacementGroups))
	for _, g := range out.PlacementGroups {
		groups = append(groups, discovery.PlacementGroup{
			ID:             aws.ToString(g.GroupId),
			Name:           aws.ToString(g.GroupName),
			Strategy:       string(g.Strategy),
			State:          string(g.State),
			PartitionCount: int(aws.ToInt32(g.PartitionCount)),
			SpreadLevel:    string(g.SpreadLevel),
		})
	}
	return groups, nil
}
