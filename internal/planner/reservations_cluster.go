package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
)

// ReservationsFacts are the provider's settings the cluster's NodePools are judged with.
type ReservationsFacts struct {
	// FeatureGates are the provider's karpenter_feature_gates (reservations.GateEnabled).
	FeatureGates []string
	// Now is the plan's clock: a Capacity Block in its last 40 minutes takes no launch (zero:
	// not judged).
	Now time.Time
}

// ClusterPoolName is how a NodePool of the cluster that is not in node_pools is named in
// `used_by` and `idle_reasons`.
func ClusterPoolName(name string) string { return "NodePool " + name + " (cluster)" }

// Summaries of the warnings on the cluster's NodePools.
const (
	summaryClusterPools   = "Cannot list the cluster's NodePools"
	summaryClusterPool    = "Cannot read a NodePool of the cluster"
	summaryClusterCatalog = "Cannot judge the cluster's NodePools"
)

// ClusterPoolUses are the verdicts of the cluster's NodePools that are on a class of
// node_classes (an EC2NodeClass nodeClassRef) and not in node_pools on the reservations their
// class selects among active (clusterPoolReason). read is false when the cluster was not read:
// no kubernetes access (ports.NodePools nil), no active reservation selected (nothing to
// judge), a listing that failed, which is a warning naming the RBAC it needs, or a catalog that
// did not load, a warning too.
func ClusterPoolUses(ctx context.Context, q ReservationsQuery, active []reservations.Reservation, ports ReservationsPorts,
	facts ReservationsFacts) (uses []reservations.PoolUses, read bool, warnings []attrpath.Finding) {
	if ports.NodePools == nil {
		return nil, false, nil
	}
	if !slices.ContainsFunc(active, func(r reservations.Reservation) bool { return selectedByAny(q, r.ID) }) {
		return nil, false, nil // nothing to judge: the cluster is not asked
	}
	objs, err := ports.NodePools(ctx)
	if err != nil {
		return nil, false, []attrpath.Finding{{Summary: summaryClusterPools, Message: err.Error() + "\n\nThe reservations are judged by " +
			"the pools in node_pools alone. For the cluster's other NodePools on the classes to count, give the provider's " +
			"kubernetes token list on nodepools.karpenter.sh."}}
	}
	pools, warnings := clusterPoolsOn(objs, q)
	byID := map[string]reservations.Reservation{}
	for _, r := range active {
		byID[r.ID] = r
	}
	var judged [][]reservations.Reservation
	some := false
	for _, p := range pools {
		var rs []reservations.Reservation
		for _, id := range slices.Sorted(slices.Values(q.NodeClasses[p.NodeClass])) {
			if r, ok := byID[id]; ok && !slices.ContainsFunc(rs, func(x reservations.Reservation) bool { return x.ID == id }) {
				rs = append(rs, r)
			}
		}
		judged, some = append(judged, rs), some || len(rs) > 0
	}
	if !some {
		return nil, true, warnings
	}
	cat, err := ports.Catalog(ctx)
	if err != nil {
		return nil, false, append(warnings, attrpath.Finding{Summary: summaryClusterCatalog, Message: "loading the instance-type " +
			"catalog: " + err.Error() + "\n\nThe cluster's NodePools outside node_pools are judged on their types' labels; " +
			"without the catalog the reservations are judged by the pools in node_pools alone."})
	}
	gateOn := reservations.GateEnabled(facts.FeatureGates)
	for i, p := range pools {
		if len(judged[i]) == 0 {
			continue
		}
		pu := reservations.PoolUses{Pool: ClusterPoolName(p.Config.Name)}
		for _, r := range judged[i] {
			u := reservations.Use{Reservation: r, Reason: clusterPoolReason(r, p.Config.Requirements(), cat, gateOn, facts.Now)}
			if u.Reason == "" {
				u.Nodes = r.Available // limits are not judged
			}
			pu.Uses = append(pu.Uses, u)
		}
		uses = append(uses, pu)
	}
	return uses, true, warnings
}

// selectedByAny reports whether a class of node_classes selects the reservation id.
func selectedByAny(q ReservationsQuery, id string) bool {
	for _, ids := range q.NodeClasses {
		if slices.Contains(ids, id) {
			return true
		}
	}
	return false
}

// clusterPoolsOn are the NodePools of objs whose nodeClassRef names an EC2NodeClass of
// node_classes and whose name is not in node_pools, sorted by name; one that does not read is
// a warning and is not judged.
func clusterPoolsOn(objs []map[string]any, q ReservationsQuery) ([]adopt.Pool, []attrpath.Finding) {
	var pools []adopt.Pool
	var warnings []attrpath.Finding
	for _, obj := range objs {
		name, class := nodePoolClass(obj)
		if _, ok := q.NodeClasses[class]; !ok || name == "" {
			continue
		}
		if _, ok := q.NodePools[name]; ok {
			continue
		}
		p, err := adopt.ReadPool(obj)
		if err != nil {
			warnings = append(warnings, attrpath.Finding{Summary: summaryClusterPool, Message: fmt.Sprintf("NodePool %q is on class %q "+
				"of node_classes but does not read (%v), so its use of the class's reservations is not judged.", name, class, err)})
			continue
		}
		pools = append(pools, p)
	}
	slices.SortFunc(pools, func(a, b adopt.Pool) int { return strings.Compare(a.Config.Name, b.Config.Name) })
	return pools, warnings
}

// nodePoolClass is a live NodePool's name and the EC2NodeClass its nodeClassRef names ("" when
// it names another kind).
func nodePoolClass(obj map[string]any) (name, class string) {
	field := func(m any, key string) any {
		if mm, ok := m.(map[string]any); ok {
			return mm[key]
		}
		return nil
	}
	name, _ = field(field(obj, "metadata"), "name").(string)
	ref := field(field(field(field(obj, "spec"), "template"), "spec"), "nodeClassRef")
	group, _ := field(ref, "group").(string)
	kind, _ := field(ref, "kind").(string)
	if group != manifest.DefaultNodeClassGroup || kind != manifest.DefaultNodeClassKind {
		return name, ""
	}
	class, _ = field(ref, "name").(string)
	return name, class
}

// clusterPoolReason says why a NodePool of the cluster with requirements reqs cannot launch
// into r ("" when it can), on its requirements alone (limits and the class's subnets aside): its
// capacity types must allow `reserved`, with Karpenter's ReservedCapacity gate on; its
// requirements on the type's labels (the catalog's, with the reservation's id and type) must
// hold; and its zone requirements must allow r's zone.
func clusterPoolReason(r reservations.Reservation, reqs []requirements.Requirement, cat *catalog.Catalog, gateOn bool, now time.Time) string {
	allows := func(key, value string) bool {
		return requirements.LabelsCompatible(map[string]string{key: value}, requirements.OnKey(reqs, key))
	}
	switch {
	case !gateOn:
		return reservations.ReasonGateOff + ", so none of the NodePool's launches is a `reserved` one"
	case !allows(requirements.LabelCapacityType, requirements.CapacityTypeReserved):
		return reservations.ReasonReservedAllowed
	case !now.IsZero() && r.Expiring(now):
		return reservations.ReasonExpiring
	case !typeAllowed(r, reqs, cat):
		return reservations.ReasonTypeIneligible
	case !allows(requirements.LabelZone, r.Zone):
		return reservations.ReasonZoneNotAllowed
	case r.Available == 0:
		return reservations.ReasonFull
	}
	return ""
}

// notOnType are keys the catalog defines that typeAllowed does not judge: the offering's (zone
// and capacity type are judged on their own, region and tenancy are the reservation's) and the
// OS, which is the class's AMI family's.
var notOnType = []string{requirements.LabelZone, requirements.LabelRegion, requirements.LabelCapacityType, requirements.LabelInstanceTenancy,
	requirements.LabelOS, requirements.LabelWindowsBuild}

// typeAllowed reports whether the requirements on the keys the catalog defines for a type hold
// on r's type in the catalog, with r's id and type as the reserved offering's labels; a type the
// catalog lacks is not.
func typeAllowed(r reservations.Reservation, reqs []requirements.Requirement, cat *catalog.Catalog) bool {
	it, ok := cat.Get(r.InstanceType)
	if !ok {
		return false
	}
	labels := catalog.Labels(it)
	labels[requirements.LabelCapacityReservationID] = r.ID
	labels[requirements.LabelCapacityReservationType] = r.Type
	onType := slices.DeleteFunc(slices.Clone(reqs), func(q requirements.Requirement) bool {
		return !catalog.IsDefinedKey(q.Key) || slices.Contains(notOnType, q.Key)
	})
	return requirements.LabelsCompatible(labels, onType)
}
