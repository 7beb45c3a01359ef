package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// capacityReservationOut is one `capacity_reservations` entry.
type capacityReservationOut struct {
	ID                     string  `tfsdk:"id"`
	InstanceType           string  `tfsdk:"instance_type"`
	AvailabilityZone       string  `tfsdk:"availability_zone"`
	InstanceMatchCriteria  string  `tfsdk:"instance_match_criteria"`
	OwnerID                string  `tfsdk:"owner_id"`
	ReservationType        string  `tfsdk:"reservation_type"`
	EndDate                *string `tfsdk:"end_date"`
	AvailableInstanceCount int64   `tfsdk:"available_instance_count"`
}

// placementGroupOut is the `placement_group` object.
type placementGroupOut struct {
	ID             string `tfsdk:"id"`
	Name           string `tfsdk:"name"`
	Strategy       string `tfsdk:"strategy"`
	PartitionCount *int64 `tfsdk:"partition_count"`
}

var (
	capacityReservationType = types.ObjectType{AttrTypes: attrTypesOf(capacityReservationOut{})}
	placementGroupAttrTypes = attrTypesOf(placementGroupOut{})
)

// capacityValues converts the outcome into the two attribute values (null when not configured).
func capacityValues(ctx context.Context, cp *nodeclass.Capacity, diags *diag.Diagnostics) (types.List, types.Object) {
	list, obj := types.ListNull(capacityReservationType), types.ObjectNull(placementGroupAttrTypes)
	if cp == nil {
		return list, obj
	}
	c := *cp
	if c.Reservations != nil {
		out := make([]capacityReservationOut, len(c.Reservations))
		for i, cr := range c.Reservations {
			out[i] = capacityReservationOut{ID: cr.ID, InstanceType: cr.InstanceType, AvailabilityZone: cr.Zone,
				InstanceMatchCriteria: cr.InstanceMatchCriteria, OwnerID: cr.OwnerID, ReservationType: cr.ReservationType,
				AvailableInstanceCount: int64(cr.AvailableInstanceCount)}
			if !cr.EndDate.IsZero() {
				end := cr.EndDate.UTC().Format(time.RFC3339)
				out[i].EndDate = &end
			}
		}
		var d diag.Diagnostics
		list, d = types.ListValueFrom(ctx, capacityReservationType, out)
		diags.Append(d...)
	}
	if g := c.PlacementGroup; g != nil {
		out := placementGroupOut{ID: g.ID, Name: g.Name, Strategy: g.Strategy}
		if g.Strategy == "partition" {
			n := int64(g.PartitionCount)
			out.PartitionCount = &n
		}
		var d diag.Diagnostics
		obj, d = types.ObjectValueFrom(ctx, placementGroupAttrTypes, out)
		diags.Append(d...)
	}
	return list, obj
}

// capacityFromState reads the recorded outcome back; ok is false when there is none to keep.
func capacityFromState(ctx context.Context, state tfsdk.State) (nodeclass.Capacity, bool) {
	var list types.List
	var obj types.Object
	var diags diag.Diagnostics
	diags.Append(state.GetAttribute(ctx, path.Root("capacity_reservations"), &list)...)
	diags.Append(state.GetAttribute(ctx, path.Root("placement_group"), &obj)...)
	if diags.HasError() || list.IsUnknown() || obj.IsUnknown() {
		return nodeclass.Capacity{}, false
	}
	var c nodeclass.Capacity
	if !list.IsNull() {
		var rs []capacityReservationOut
		if diags.Append(list.ElementsAs(ctx, &rs, false)...); diags.HasError() {
			return nodeclass.Capacity{}, false
		}
		c.Reservations = []discovery.CapacityReservation{}
		for _, r := range rs {
			cr := discovery.CapacityReservation{ID: r.ID, InstanceType: r.InstanceType, Zone: r.AvailabilityZone,
				InstanceMatchCriteria: r.InstanceMatchCriteria, OwnerID: r.OwnerID, ReservationType: r.ReservationType,
				AvailableInstanceCount: int(r.AvailableInstanceCount), State: discovery.CapacityReservationStateActive}
			if r.EndDate != nil {
				end, err := time.Parse(time.RFC3339, *r.EndDate)
				if err != nil {
					return nodeclass.Capacity{}, false
				}
				cr.EndDate = end
			}
			c.Reservations = append(c.Reservations, cr)
		}
	}
	if !obj.IsNull() {
		var g placementGroupOut
		if diags.Append(obj.As(ctx, &g, basetypes.ObjectAsOptions{})...); diags.HasError() {
			return nodeclass.Capacity{}, false
		}
		pg := discovery.PlacementGroup{ID: g.ID, Name: g.Name, Strategy: g.Strategy, State: discovery.PlacementGroupStateAvailable}
		if g.PartitionCount != nil {
			pg.PartitionCount = int(*g.PartitionCount)
		}
		c.PlacementGroup = &pg
	}
	return c, true
}
