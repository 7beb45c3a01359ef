package nodeclass

import (
	"fmt"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/connectivity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

// Recorded is what a class's plan records of its resolution, shaped as the resource's computed
// attributes (tfsdk tags); read back from state it gives the prior answers (Resolution, Capacity).
type Recorded struct {
	VPCID                string                      `tfsdk:"vpc_id"`
	Subnets              []SubnetOutput              `tfsdk:"subnets"`
	SecurityGroups       []SecurityGroupOutput       `tfsdk:"security_groups"`
	Zones                []string                    `tfsdk:"zones"`
	PodSubnets           []PodSubnetOutput           `tfsdk:"pod_subnets"`
	AMIs                 []AMIOutput                 `tfsdk:"amis"`
	CapacityReservations []CapacityReservationOutput `tfsdk:"capacity_reservations"`
	PlacementGroup       *PlacementGroupOutput       `tfsdk:"placement_group"`
}

// SubnetOutput is one entry of `subnets`.
type SubnetOutput struct {
	ID                      string  `tfsdk:"id"`
	Name                    *string `tfsdk:"name"`
	Zone                    string  `tfsdk:"zone"`
	ZoneID                  string  `tfsdk:"zone_id"`
	CIDRBlock               string  `tfsdk:"cidr_block"`
	AvailableIPAddressCount int64   `tfsdk:"available_ip_address_count"`
	MapPublicIPOnLaunch     bool    `tfsdk:"map_public_ip_on_launch"`
	DefaultForAZ            bool    `tfsdk:"default_for_az"`
}

// SecurityGroupOutput is one entry of `security_groups`.
type SecurityGroupOutput struct {
	ID   string `tfsdk:"id"`
	Name string `tfsdk:"name"`
}

// PodSubnetOutput is one zone's pod subnet of `pod_subnets`.
type PodSubnetOutput struct {
	Zone                    string `tfsdk:"zone"`
	ID                      string `tfsdk:"id"`
	CIDRBlock               string `tfsdk:"cidr_block"`
	AvailableIPAddressCount int64  `tfsdk:"available_ip_address_count"`
}

// AMIOutput is one image of `amis` (EC2NodeClass status.amis).
type AMIOutput struct {
	ID           string   `tfsdk:"id"`
	Name         string   `tfsdk:"name"`
	Architecture string   `tfsdk:"architecture"`
	Variant      *string  `tfsdk:"variant"`
	CreationDate string   `tfsdk:"creation_date"`
	Deprecated   bool     `tfsdk:"deprecated"`
	Requirements []string `tfsdk:"requirements"`
}

// CapacityReservationOutput is one entry of `capacity_reservations`.
type CapacityReservationOutput struct {
	ID                     string  `tfsdk:"id"`
	InstanceType           string  `tfsdk:"instance_type"`
	AvailabilityZone       string  `tfsdk:"availability_zone"`
	InstanceMatchCriteria  string  `tfsdk:"instance_match_criteria"`
	OwnerID                string  `tfsdk:"owner_id"`
	ReservationType        string  `tfsdk:"reservation_type"`
	EndDate                *string `tfsdk:"end_date"`
	AvailableInstanceCount int64   `tfsdk:"available_instance_count"`
	TotalInstanceCount     int64   `tfsdk:"total_instance_count"`
	StartDate              *string `tfsdk:"start_date"`
	Interruptible          bool    `tfsdk:"interruptible"`
	// State is `active`, or `scheduled` for a reservation still to start ("" when recorded
	// before states were: active).
	State string `tfsdk:"state"`
}

// PlacementGroupOutput is the `placement_group` object.
type PlacementGroupOutput struct {
	ID             string `tfsdk:"id"`
	Name           string `tfsdk:"name"`
	Strategy       string `tfsdk:"strategy"`
	PartitionCount *int64 `tfsdk:"partition_count"`
}

// ConnectivityCheckOutput is one entry of `connectivity_report`.
type ConnectivityCheckOutput struct {
	Check    string `tfsdk:"check"`
	GroupID  string `tfsdk:"group_id"`
	Passed   bool   `tfsdk:"passed"`
	Required string `tfsdk:"required"`
	Detail   string `tfsdk:"detail"`
}

// NodeRoleNeedOutput is one entry of `node_role_report`.
type NodeRoleNeedOutput struct {
	Need    string   `tfsdk:"need"`
	Status  string   `tfsdk:"status"`
	Missing []string `tfsdk:"missing"`
	Detail  string   `tfsdk:"detail"`
}

// Record is the recorded form of a resolution and its capacity outcome (nil: not configured).
// Lists are empty, not null, when nothing matched; the capacity attributes are null when the
// class does not select them.
func Record(r Resolved, c *Capacity) Recorded {
	out := Recorded{VPCID: r.VPCID, Zones: nonNil(r.Zones), Subnets: make([]SubnetOutput, len(r.Subnets)),
		SecurityGroups: make([]SecurityGroupOutput, len(r.SecurityGroups)), PodSubnets: make([]PodSubnetOutput, len(r.PodSubnets)),
		AMIs: make([]AMIOutput, len(r.AMIs.AMIs))}
	for i, s := range r.Subnets {
		out.Subnets[i] = SubnetOutput{ID: s.ID, Name: emptyNil(s.Name()), Zone: s.Zone, ZoneID: s.ZoneID, CIDRBlock: s.CIDRBlock,
			AvailableIPAddressCount: int64(s.AvailableIPAddressCount), MapPublicIPOnLaunch: s.MapPublicIPOnLaunch, DefaultForAZ: s.DefaultForAZ}
	}
	for i, g := range r.SecurityGroups {
		out.SecurityGroups[i] = SecurityGroupOutput{ID: g.ID, Name: g.Name}
	}
	for i, p := range r.PodSubnets {
		out.PodSubnets[i] = PodSubnetOutput{Zone: p.Zone, ID: p.Subnet.ID, CIDRBlock: p.Subnet.CIDRBlock,
			AvailableIPAddressCount: int64(p.Subnet.AvailableIPAddressCount)}
	}
	for i, a := range r.AMIs.AMIs {
		out.AMIs[i] = AMIOutput{ID: a.ID, Name: a.Name, Architecture: a.Architecture, Variant: emptyNil(string(a.Variant)),
			CreationDate: a.CreationDate, Deprecated: a.Deprecated, Requirements: a.Requirements()}
	}
	if c == nil {
		return out
	}
	if c.Reservations != nil {
		out.CapacityReservations = make([]CapacityReservationOutput, len(c.Reservations))
		for i, cr := range c.Reservations {
			o := CapacityReservationOutput{ID: cr.ID, InstanceType: cr.InstanceType, AvailabilityZone: cr.Zone,
				InstanceMatchCriteria: cr.InstanceMatchCriteria, OwnerID: cr.OwnerID, ReservationType: cr.ReservationType,
				AvailableInstanceCount: int64(cr.AvailableInstanceCount), TotalInstanceCount: int64(cr.TotalInstanceCount),
				Interruptible: cr.Interruptible, State: cr.State}
			if isActive(o.State) {
				o.State = discovery.CapacityReservationStateActive
			}
			o.EndDate, o.StartDate = rfc3339(cr.EndDate), rfc3339(cr.StartDate)
			out.CapacityReservations[i] = o
		}
	}
	if g := c.PlacementGroup; g != nil {
		out.PlacementGroup = &PlacementGroupOutput{ID: g.ID, Name: g.Name, Strategy: g.Strategy}
		if g.Strategy == "partition" {
			n := int64(g.PartitionCount)
			out.PlacementGroup.PartitionCount = &n
		}
	}
	return out
}

// Resolution is the recorded resolution, to keep while the selection holds; false when none
// was recorded.
func (r Recorded) Resolution() (Resolved, bool) {
	if r.Subnets == nil {
		return Resolved{}, false
	}
	out := Resolved{VPCID: r.VPCID, Zones: r.Zones}
	for _, s := range r.Subnets {
		sn := discovery.Subnet{ID: s.ID, VPCID: r.VPCID, Zone: s.Zone, ZoneID: s.ZoneID, CIDRBlock: s.CIDRBlock,
			AvailableIPAddressCount: int(s.AvailableIPAddressCount), MapPublicIPOnLaunch: s.MapPublicIPOnLaunch, DefaultForAZ: s.DefaultForAZ}
		if s.Name != nil {
			sn.Tags = map[string]string{"Name": *s.Name}
		}
		out.Subnets = append(out.Subnets, sn)
	}
	for _, g := range r.SecurityGroups {
		out.SecurityGroups = append(out.SecurityGroups, discovery.SecurityGroup{ID: g.ID, Name: g.Name, VPCID: r.VPCID})
	}
	for _, p := range r.PodSubnets {
		out.PodSubnets = append(out.PodSubnets, PodSubnet{Zone: p.Zone, Subnet: discovery.Subnet{ID: p.ID, VPCID: r.VPCID,
			Zone: p.Zone, CIDRBlock: p.CIDRBlock, AvailableIPAddressCount: int(p.AvailableIPAddressCount)}})
	}
	return out, true
}

// Capacity is the recorded capacity outcome; false when it cannot be read back.
func (r Recorded) Capacity() (Capacity, bool) {
	var c Capacity
	if r.CapacityReservations != nil {
		c.Reservations = []discovery.CapacityReservation{}
		for _, o := range r.CapacityReservations {
			cr := discovery.CapacityReservation{ID: o.ID, InstanceType: o.InstanceType, Zone: o.AvailabilityZone,
				InstanceMatchCriteria: o.InstanceMatchCriteria, OwnerID: o.OwnerID, ReservationType: o.ReservationType,
				AvailableInstanceCount: int(o.AvailableInstanceCount), TotalInstanceCount: int(o.TotalInstanceCount),
				Interruptible: o.Interruptible, State: o.State}
			if isActive(cr.State) {
				cr.State = discovery.CapacityReservationStateActive
			}
			var ok bool
			if cr.EndDate, ok = parseRFC3339(o.EndDate); !ok {
				return Capacity{}, false
			}
			if cr.StartDate, ok = parseRFC3339(o.StartDate); !ok {
				return Capacity{}, false
			}
			c.Reservations = append(c.Reservations, cr)
		}
	}
	if g := r.PlacementGroup; g != nil {
		pg := discovery.PlacementGroup{ID: g.ID, Name: g.Name, Strategy: g.Strategy, State: discovery.PlacementGroupStateAvailable}
		if g.PartitionCount != nil {
			pg.PartitionCount = int(*g.PartitionCount)
		}
		c.PlacementGroup = &pg
	}
	return c, true
}

// PlacementGroupID is the recorded placement group's id ("" without one).
func (r Recorded) PlacementGroupID() string {
	if r.PlacementGroup == nil {
		return ""
	}
	return r.PlacementGroup.ID
}

// ReservationIDs are the ids of the recorded reservations Karpenter launches into now (nil
// without any): those still to start (scheduled) are left out, as Karpenter does not see them.
func (r Recorded) ReservationIDs() []string {
	var out []string
	for _, cr := range r.CapacityReservations {
		if isActive(cr.State) {
			out = append(out, cr.ID)
		}
	}
	return out
}

// rfc3339 is t in UTC as RFC 3339, nil for the zero time.
func rfc3339(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// parseRFC3339 reads what rfc3339 wrote (nil: the zero time); false when it is not RFC 3339.
func parseRFC3339(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, *s)
	return t, err == nil
}

// ConnectivityReport is `connectivity_report` for the checks that ran (nil when none did): a
// failed check's detail ends with its fix.
func ConnectivityReport(checks []connectivity.Finding) []ConnectivityCheckOutput {
	if checks == nil {
		return nil
	}
	out := make([]ConnectivityCheckOutput, len(checks))
	for i, f := range checks {
		detail := f.Detail
		if !f.Passed {
			detail = fmt.Sprintf("%s Fix: %s.", f.Detail, f.Fix)
		}
		out[i] = ConnectivityCheckOutput{Check: f.Check, GroupID: f.GroupID, Passed: f.Passed, Required: f.Required, Detail: detail}
	}
	return out
}

// NodeRoleReport is `node_role_report` for a check that ran (nil when it did not).
func NodeRoleReport(rep *iampolicy.Report) []NodeRoleNeedOutput {
	if rep == nil {
		return nil
	}
	out := make([]NodeRoleNeedOutput, len(rep.Needs))
	for i, n := range rep.Needs {
		out[i] = NodeRoleNeedOutput{Need: n.Need.ID, Status: n.Status(), Missing: nonNil(n.MissingActions()), Detail: "Granted."}
		switch {
		case n.Skipped:
			out[i].Detail = "Skipped: the VPC CNI has a role of its own (networking.cni_role)."
		case !n.Met:
			out[i].Detail = "Without these actions, " + n.Need.Consequence + "."
		}
		if notes := n.Notes(); len(notes) > 0 {
			out[i].Detail += " Not evaluated: " + strings.Join(notes, "; ") + "."
		}
	}
	return out
}

func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
