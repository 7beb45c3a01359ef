package automode

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// API is what a class's resolution reads of EC2: the selectors and the capacity reservations.
type API interface {
	discovery.API
	discovery.CapacityAPI
}

// Resolution is what EC2 says the class's selectors hit.
type Resolution struct {
	nodeclass.Resolved
	// PodSecurityGroups are what pod_security_group_selector_terms select (nil without pod subnets).
	PodSecurityGroups []discovery.SecurityGroup
	Reservations      []discovery.CapacityReservation
	PlacementGroup    *discovery.PlacementGroup // nil without a selector
}

// Result is a class's resolution and its findings; the resolution is complete only without
// Errors.
type Result struct {
	Resolution
	Errors, Warnings []attrpath.Finding
}

var (
	pathPodSubnets = attrpath.Of("pod_subnet_selector_terms")
	pathPodGroups  = attrpath.Of("pod_security_group_selector_terms")
)

// Resolve runs the class's selectors against EC2, as Auto Mode reads them:
//   - node subnets and security groups as Karpenter's EC2NodeClass selects them (some must
//     match, one VPC);
//   - pod subnets: pods are not placed on the primary ENI but on secondary ENIs in a pod subnet
//     of the node's zone, so every node zone needs one, and the pod security groups must match
//     (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html);
//   - capacity reservations: a term that selects no usable reservation is a warning.
//
// err is an API failure.
func Resolve(ctx context.Context, api API, c Config, now time.Time) (Result, error) {
	var res Result
	spec := nodeclass.Spec{Name: c.Name, SubnetTerms: c.SubnetSelectorTerms, SecurityGroupTerms: c.SecurityGroupSelectorTerms}
	r, errs, err := nodeclass.Resolve(ctx, api, spec)
	if err != nil {
		return res, err
	}
	res.Resolved = r
	res.Errors = attrpath.WithSummary("No subnets or security groups selected", errs)
	res.Warnings = r.Warnings
	res.Resolved.Warnings = nil
	if len(res.Errors) > 0 {
		return res, nil
	}
	if len(c.PodSubnetSelectorTerms) > 0 {
		if err := res.resolvePods(ctx, api, c); err != nil {
			return res, err
		}
	}
	res.resolveCapacity(ctx, api, c, now)
	return res, nil
}

// resolveCapacity resolves the capacity reservation terms and the placement group, each on its own
// attribute: what one selects, or the API failure that stopped it. A placement group that does not
// exist, or is not available, is an error: Auto Mode then launches nothing from the class
// (create-node-class.html); a reservation term that selects nothing is a warning.
func (res *Result) resolveCapacity(ctx context.Context, api API, c Config, now time.Time) {
	type stage struct {
		set  bool
		spec nodeclass.Spec
		at   attrpath.Path
	}
	for _, s := range []stage{
		{len(c.CapacityReservationSelectorTerms) > 0, nodeclass.Spec{CapacityReservationTerms: reservationTerms(c.CapacityReservationSelectorTerms)},
			attrpath.Of("capacity_reservation_selector_terms")},
		{c.PlacementGroupSelector != nil, nodeclass.Spec{PlacementGroupSelector: c.PlacementGroupSelector}, attrpath.Of("placement_group_selector")},
	} {
		if !s.set {
			continue
		}
		got, f, err := nodeclass.ResolveCapacity(ctx, api, s.spec, res.Zones, now)
		if err != nil {
			res.Errors = append(res.Errors, attrpath.Finding{Path: s.at, Summary: "Cannot resolve the NodeClass's selectors", Message: err.Error()})
			continue
		}
		if got.Reservations != nil {
			res.Reservations = got.Reservations
		}
		if got.PlacementGroup != nil {
			res.PlacementGroup = got.PlacementGroup
		}
		res.Warnings = append(res.Warnings, ownerPaths(f.Warnings)...)
		res.Errors = append(res.Errors, ownerPaths(f.Errors)...)
	}
}

func (res *Result) resolvePods(ctx context.Context, api API, c Config) error {
	pods, err := discovery.ResolveSubnets(ctx, api, c.PodSubnetSelectorTerms)
	if err != nil {
		return err
	}
	var groupTerms []discovery.SecurityGroupTerm
	for _, t := range c.PodSecurityGroupSelectorTerms {
		groupTerms = append(groupTerms, discovery.SecurityGroupTerm{ID: t.ID, Tags: t.Tags})
	}
	groups, err := discovery.ResolveSecurityGroups(ctx, api, groupTerms)
	if err != nil {
		return err
	}
	res.PodSubnets = podSubnetsByZone(pods, res.VPCID)
	if missing := nodeclass.ZonesWithoutPodSubnet(res.Resolved); len(missing) > 0 {
		res.Errors = append(res.Errors, attrpath.Finding{Path: pathPodSubnets, Summary: "No pod subnet in a node zone",
			Message: fmt.Sprintf("no pod subnet in VPC %s for node zone(s) %s: Auto Mode places pods only in a pod subnet of the node's own "+
				"zone, so pods on nodes there would get no IP. Add a pod subnet in each node zone "+
				"(https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html).", res.VPCID, strings.Join(missing, ", "))})
	}
	res.PodSecurityGroups = groups
	if len(groups) == 0 {
		res.Errors = append(res.Errors, attrpath.Finding{Path: pathPodGroups, Summary: "No pod security groups selected",
			Message: "pod_security_group_selector_terms match no security group: Auto Mode applies the pod security groups to pod " +
				"traffic in the VPC, and needs them with pod subnets (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)."})
	}
	for _, g := range groups {
		if res.VPCID != "" && g.VPCID != res.VPCID {
			res.Errors = append(res.Errors, attrpath.Finding{Path: pathPodGroups, Summary: "Pod security group in another VPC",
				Message: fmt.Sprintf("pod security group %s is in VPC %s, the node subnets in %s", g.ID, g.VPCID, res.VPCID)})
		}
	}
	return nil
}

// podSubnetsByZone picks, per zone, the pod subnet of the node VPC with the most free IPs.
func podSubnetsByZone(pods []discovery.Subnet, vpcID string) []nodeclass.PodSubnet {
	discovery.SortSubnets(pods)
	byZone := map[string]discovery.Subnet{}
	for _, p := range pods {
		if _, ok := byZone[p.Zone]; !ok && p.VPCID == vpcID {
			byZone[p.Zone] = p
		}
	}
	out := make([]nodeclass.PodSubnet, 0, len(byZone))
	for z, s := range byZone {
		out = append(out, nodeclass.PodSubnet{Zone: z, Subnet: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Zone < out[j].Zone })
	return out
}

func reservationTerms(in []ReservationTerm) []discovery.CapacityReservationTerm {
	out := make([]discovery.CapacityReservationTerm, len(in))
	for i, t := range in {
		out[i] = discovery.CapacityReservationTerm{ID: t.ID, Tags: t.Tags, OwnerID: t.Owner}
	}
	return out
}

// ownerPaths renames the EC2NodeClass's owner_id in findings to this class's owner.
func ownerPaths(in []attrpath.Finding) []attrpath.Finding {
	out := make([]attrpath.Finding, len(in))
	for i, f := range in {
		var p attrpath.Path
		for _, s := range f.Path.Steps() {
			switch {
			case s.Kind == attrpath.Attr && s.Name == "owner_id":
				p = p.Attr("owner")
			case s.Kind == attrpath.Attr:
				p = p.Attr(s.Name)
			case s.Kind == attrpath.Index:
				p = p.Index(s.Index)
			default:
				p = p.Key(s.Name)
			}
		}
		f.Path, f.Message = p, strings.ReplaceAll(f.Message, "owner_id", "owner")
		out[i] = f
	}
	return out
}

// Value is the class as its pools read it (the resource's `resolved`): the selection, the tags
// and Auto Mode's networking. prior is the state's value (nil: none): while it selects the
// same objects, its free-IP counts are kept, since they move with every launch and would
// otherwise make every plan an update.
func (r Resolution) Value(c Config, prior *launchplan.ClassValue) launchplan.ClassValue {
	v := launchplan.ClassValue{Name: c.Name, Subnets: map[string]launchplan.ClassSubnet{},
		SecurityGroupIDs: r.SecurityGroupIDs(), AutoMode: &launchplan.ClassAutoMode{IPv4PrefixSize: c.PrefixSize(),
			StaticPodAddresses: c.StaticPodAddresses()}}
	if r.PlacementGroup != nil {
		v.PlacementGroupID = &r.PlacementGroup.ID
	}
	for _, s := range r.Subnets {
		v.Subnets[s.ID] = launchplan.ClassSubnet{Zone: s.Zone, ZoneID: s.ZoneID, AvailableIPAddressCount: int64(s.AvailableIPAddressCount)}
	}
	if len(r.PodSubnets) > 0 {
		v.PodSubnets = map[string]launchplan.ClassPodSubnet{}
		for _, p := range r.PodSubnets {
			v.PodSubnets[p.Zone] = launchplan.ClassPodSubnet{ID: p.Subnet.ID, AvailableIPAddressCount: int64(p.Subnet.AvailableIPAddressCount)}
		}
	}
	for _, g := range r.PodSecurityGroups {
		v.AutoMode.PodSecurityGroupIDs = append(v.AutoMode.PodSecurityGroupIDs, g.ID)
	}
	for _, cr := range r.Reservations {
		v.CapacityReservationIDs = append(v.CapacityReservationIDs, cr.ID)
	}
	v.CapacityReservations = launchplan.ClassReservationsOf(nodeclass.ReservationsOf(r.Reservations))
	if len(c.Tags) > 0 {
		v.Tags = c.Tags
	}
	if c.AdvancedNetworking != nil {
		v.AssociatePublicIPAddress = c.AdvancedNetworking.AssociatePublicIPAddress
	}
	if prior != nil && sameSelection(v, *prior) {
		for id, s := range prior.Subnets {
			v.Subnets[id] = s
		}
		for z, p := range prior.PodSubnets {
			v.PodSubnets[z] = p
		}
	}
	if prior != nil && sameReservations(v.CapacityReservations, prior.CapacityReservations) {
		v.CapacityReservations = prior.CapacityReservations
	}
	return v
}

// sameReservations reports whether two selections hold the same reservations, whatever their
// free counts (which move with every launch).
func sameReservations(a, b []launchplan.ClassReservation) bool {
	return slices.EqualFunc(a, b, func(x, y launchplan.ClassReservation) bool {
		x.Available, y.Available = 0, 0
		return x == y
	})
}

// sameSelection reports whether two values select the same subnets (ids and zones) and pod
// subnets, whatever their free-IP counts.
func sameSelection(a, b launchplan.ClassValue) bool {
	if len(a.Subnets) != len(b.Subnets) || len(a.PodSubnets) != len(b.PodSubnets) {
		return false
	}
	for id, s := range a.Subnets {
		if o, ok := b.Subnets[id]; !ok || o.Zone != s.Zone || o.ZoneID != s.ZoneID {
			return false
		}
	}
	for z, p := range a.PodSubnets {
		if o, ok := b.PodSubnets[z]; !ok || o.ID != p.ID {
			return false
		}
	}
	return true
}
