package launchplan

import "github.com/nodeplane/terraform-provider-karpenter/internal/reservations"

// ReservationUseValue is one entry of a node pool's `reservations`: a reservation its class
// selects, the nodes of the pool it covers, and why the pool cannot launch into it. Its Go shape
// defines the Terraform type (native field types only), which the capacity reservations data
// source takes back in its `node_pools`.
type ReservationUseValue struct {
	ID              string  `tfsdk:"id"`
	InstanceType    string  `tfsdk:"instance_type"`
	Zone            string  `tfsdk:"availability_zone"`
	ReservationType string  `tfsdk:"reservation_type"`
	Available       int64   `tfsdk:"available_instance_count"`
	Nodes           int64   `tfsdk:"nodes"`
	Reason          *string `tfsdk:"reason"`
}

// ReservationUseValues is the plan's reservation verdicts as `reservations` (nil without any).
func ReservationUseValues(uses []reservations.Use) []ReservationUseValue {
	var out []ReservationUseValue
	for _, u := range uses {
		v := ReservationUseValue{ID: u.ID, InstanceType: u.InstanceType, Zone: u.Zone, ReservationType: u.Type,
			Available: int64(u.Available), Nodes: int64(u.Nodes)}
		if u.Reason != "" {
			reason := u.Reason
			v.Reason = &reason
		}
		out = append(out, v)
	}
	return out
}

// Use reads one `reservations` entry back as verdicts (the data source's side).
func (v ReservationUseValue) Use() reservations.Use {
	u := reservations.Use{Reservation: reservations.Reservation{ID: v.ID, InstanceType: v.InstanceType, Zone: v.Zone,
		Type: v.ReservationType, Available: int(v.Available)}, Nodes: int(v.Nodes)}
	if v.Reason != nil {
		u.Reason = *v.Reason
	}
	return u
}
