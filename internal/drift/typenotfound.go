package drift

import (
	"strconv"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// InstanceTypeNotFound as Karpenter's core decides it (instanceTypeNotFound in
// pkg/controllers/nodeclaim/disruption/drift.go, alike from v1.9 through v1.15): it looks the
// NodeClaim's instance-type label up among the types its cloud provider lists for the NodePool
// (GetInstanceTypes) and asks for an offering of that type compatible with all the NodeClaim's
// labels. The AWS provider lists every type DescribeInstanceTypes returns (HVM, x86_64 or arm64:
// catalog.KarpenterEligible), whatever the class: its compatibility checks (AMI family, network
// interfaces, ...) only mark offerings unavailable, and drift does not read availability. Each
// type has an on-demand and a spot offering (as its usage classes allow) in every zone of the
// region (allZones: where any type is offered, not only where this type is), with no
// reservation labels; and a reserved offering per capacity reservation of the class of that type,
// in its zone. So a NodeClaim drifts when
//   - it has launched without the node.kubernetes.io/instance-type label;
//   - its type is not in the region's list (gone from the catalog, or not one Karpenter lists);
//   - its zone is not a zone of the region, or its capacity type is not one the type is offered
//     as (spot on a type with no spot usage class; a value other than on-demand, spot and
//     reserved);
//   - it is not reserved yet carries a reservation label;
//   - it is reserved (counted as reserved or on-demand, its reservation labels ignored, as a
//     reservation can be demoted) on a type with no on-demand usage class and no reservation of
//     the class of that type in its zone.

// typeNotFound reports whether Karpenter drifts n with InstanceTypeNotFound against s.
func typeNotFound(n Node, s Side) bool {
	if s.Catalog == nil {
		return false
	}
	if n.InstanceType == "" {
		// A NodeClaim gets its labels and status.imageID when it launches; Karpenter judges no
		// drift of one that has not launched yet.
		return n.ImageID != ""
	}
	it, ok := s.Catalog.Get(n.InstanceType)
	if !ok || !it.KarpenterEligible() {
		return true
	}
	if s.ClassAllows != nil && !s.ClassAllows(n.InstanceType) {
		return true
	}
	return !hasOffering(s, it, n)
}

// offering is one of Karpenter's offerings of a type, by the labels drift compares.
type offering struct {
	capacityType string
	// zone is the offering's zone; "" stands for an on-demand or spot offering in each zone of
	// the region.
	zone string
	// reservation labels: nil means DoesNotExist (an on-demand or spot offering).
	reservation map[string]string
}

// hasOffering reports whether some offering of it is compatible with n's labels (Karpenter's
// Offerings.HasCompatible with well-known labels allowed to be undefined on the NodeClaim).
func hasOffering(s Side, it *catalog.InstanceType, n Node) bool {
	reqs := nodeRequirements(n)
	for _, o := range offerings(s, it) {
		if o.zone == "" && n.Zone != "" && !s.Catalog.HasZone(n.Zone) {
			continue
		}
		if compatibleOffering(reqs, o) {
			return true
		}
	}
	return false
}

// offerings are the type's offerings as Karpenter's offering resolvers build them, zone ids left
// out (they follow the zone).
func offerings(s Side, it *catalog.InstanceType) []offering {
	var out []offering
	for _, uc := range it.UsageClasses {
		if uc == requirements.CapacityTypeOnDemand || uc == requirements.CapacityTypeSpot {
			out = append(out, offering{capacityType: uc})
		}
	}
	for _, r := range s.Reservations {
		if r.InstanceType != it.Name {
			continue
		}
		out = append(out, offering{capacityType: requirements.CapacityTypeReserved, zone: r.Zone, reservation: map[string]string{
			requirements.LabelCapacityReservationID:            r.ID,
			requirements.LabelCapacityReservationType:          r.Type,
			requirements.LabelCapacityReservationInterruptible: strconv.FormatBool(r.Interruptible),
		}})
	}
	return out
}

var reservationLabels = []string{requirements.LabelCapacityReservationID, requirements.LabelCapacityReservationType,
	requirements.LabelCapacityReservationInterruptible}

// nodeRequirements are the NodeClaim's labels drift compares with offerings, each the set of
// values it allows: a reserved NodeClaim allows on-demand too and its reservation labels are
// dropped.
func nodeRequirements(n Node) map[string][]string {
	reqs := map[string][]string{}
	for _, k := range reservationLabels {
		if v, ok := n.Labels[k]; ok {
			reqs[k] = []string{v}
		}
	}
	if n.CapacityReservationID != "" {
		reqs[requirements.LabelCapacityReservationID] = []string{n.CapacityReservationID}
	}
	if n.Zone != "" {
		reqs[requirements.LabelZone] = []string{n.Zone}
	}
	if n.CapacityType != "" {
		reqs[requirements.LabelCapacityType] = []string{n.CapacityType}
	}
	if n.CapacityType == requirements.CapacityTypeReserved {
		reqs[requirements.LabelCapacityType] = []string{requirements.CapacityTypeReserved, requirements.CapacityTypeOnDemand}
		for _, k := range reservationLabels {
			delete(reqs, k)
		}
	}
	return reqs
}

// compatibleOffering is Karpenter's Requirements.IsCompatible of the NodeClaim's requirements
// with an offering's: every key the offering constrains is well known, so a key the NodeClaim
// lacks is allowed; a key both have must intersect (DoesNotExist meets no value).
func compatibleOffering(reqs map[string][]string, o offering) bool {
	in := func(key, value string) bool {
		vs, ok := reqs[key]
		if !ok {
			return true
		}
		for _, v := range vs {
			if v == value {
				return true
			}
		}
		return false
	}
	if !in(requirements.LabelCapacityType, o.capacityType) || o.zone != "" && !in(requirements.LabelZone, o.zone) {
		return false
	}
	for _, k := range reservationLabels {
		if o.reservation == nil {
			if _, has := reqs[k]; has {
				return false
			}
		} else if !in(k, o.reservation[k]) {
			return false
		}
	}
	return true
}
