package drift

import (
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Karpenter's drift reasons (the NodeClaim's Drifted condition reason).
const (
	ReasonNodePool       = "NodePoolDrifted"          // the karpenter.sh/nodepool-hash annotation differs
	ReasonNodeClass      = "NodeClassDrift"           // the karpenter.k8s.aws/ec2nodeclass-hash annotation differs
	ReasonRequirements   = "RequirementsDrifted"      // the node's labels fail the NodePool requirements
	ReasonTypeNotFound   = "InstanceTypeNotFound"     // the node's instance type, or its offering, is gone from the region
	ReasonAMI            = "AMIDrift"                 // the node's image is not among the class's resolved images
	ReasonSubnet         = "SubnetDrift"              // the node's subnet is not among the class's resolved subnets
	ReasonSecurityGroups = "SecurityGroupDrift"       // the node's security groups differ from the resolved set
	ReasonReservation    = "CapacityReservationDrift" // the node's capacity reservation is no longer selected
	ReasonPlacementGroup = "PlacementGroupDrift"      // the node's placement group is not the class's (Karpenter 1.11+)
)

// check is one of Karpenter's drift checks: its reason, what it compares, and how it is judged
// for the pool as a whole (Compare) and for one running node (CountNodes).
type check struct {
	reason   string
	compares string
	// pool is the finding the change from prior to planned trips, if any.
	pool func(prior, planned Side) (Finding, bool)
	// node reports whether the node drifts for this reason against the planned side.
	node func(n Node, t *target) bool
}

// checks are Karpenter's drift checks in its order: the core's static (NodePool hash) and
// requirement drift, then the AWS provider's (pkg/cloudprovider/drift.go): the class hash, the
// image, the security groups, the subnet, the capacity reservation. A node drifts for the first
// reason that holds; a report lists reasons in this order.
var checks = []check{
	{reason: ReasonNodePool, compares: "the karpenter.sh/nodepool-hash annotation with the NodePool's hash",
		pool: func(prior, planned Side) (Finding, bool) {
			if prior.NodePoolHash == "" || planned.NodePoolHash == "" || prior.NodePoolHash == planned.NodePoolHash {
				return Finding{}, false
			}
			return Finding{Reason: ReasonNodePool, AllNodes: true, Detail: fmt.Sprintf("the NodePool template changed (hash %s → %s)",
				prior.NodePoolHash, planned.NodePoolHash)}, true
		},
		node: func(n Node, t *target) bool {
			return t.planned.NodePoolHash != "" && n.NodePoolHash != "" && n.NodePoolHash != t.planned.NodePoolHash
		}},
	{reason: ReasonRequirements, compares: "the node's labels (instance type, zone, capacity type, tenancy, custom labels) with the NodePool's requirements",
		pool: requirementsFinding,
		node: func(n Node, t *target) bool {
			p := t.planned
			// A type the catalog no longer has is judged by the node's labels alone, as
			// Karpenter reads them (its instance-type label may still meet the requirements: the
			// node then drifts with InstanceTypeNotFound).
			gone := false
			if n.Labels != nil && p.Catalog != nil {
				_, known := p.Catalog.Get(n.InstanceType)
				gone = !known
			}
			return len(p.InstanceTypes) > 0 && n.InstanceType != "" && !t.types[n.InstanceType] && !gone ||
				len(p.Zones) > 0 && n.Zone != "" && !t.zones[n.Zone] ||
				len(p.CapacityTypes) > 0 && n.CapacityType != "" && !t.capacityTypes[n.CapacityType] ||
				n.Labels != nil && !requirements.LabelsCompatible(n.Labels, p.Labels.Requirements)
		}},
	{reason: ReasonTypeNotFound, compares: "the node's instance type, zone, capacity type and reservation labels with the types Karpenter lists for the region and their offerings (counted nodes only)",
		// A catalog change between two plans is not a change of the pool: only the nodes tell.
		pool: func(Side, Side) (Finding, bool) { return Finding{}, false },
		node: func(n Node, t *target) bool { return typeNotFound(n, t.planned) }},
	{reason: ReasonNodeClass, compares: "the karpenter.k8s.aws/ec2nodeclass-hash annotation with the EC2NodeClass's hash (same hash version)",
		pool: func(prior, planned Side) (Finding, bool) {
			// Karpenter re-annotates its nodes when the hash version changes (a new Karpenter, or
			// karpenter_version raised) instead of drifting them: hashes of two versions are not compared.
			sameVersion := prior.NodeClassHashVersion == "" || planned.NodeClassHashVersion == "" || prior.NodeClassHashVersion == planned.NodeClassHashVersion
			if !sameVersion || prior.NodeClassHash == "" || planned.NodeClassHash == "" || prior.NodeClassHash == planned.NodeClassHash {
				return Finding{}, false
			}
			return Finding{Reason: ReasonNodeClass, AllNodes: true, Detail: fmt.Sprintf("the EC2NodeClass changed (hash %s → %s)",
				prior.NodeClassHash, planned.NodeClassHash)}, true
		},
		// Karpenter counts the class hash with its own CA bundle: only the pool verdict tells.
		node: func(_ Node, t *target) bool { return t.poolWide[ReasonNodeClass] }},
	{reason: ReasonAMI, compares: "the node's image with the class's resolved images",
		pool: func(prior, planned Side) (Finding, bool) {
			if prior.AMIs == nil || planned.AMIs == nil {
				return Finding{}, false
			}
			gone := missing(prior.AMIs, planned.AMIs)
			if len(gone) == 0 {
				return Finding{}, false
			}
			return Finding{Reason: ReasonAMI, AllNodes: len(gone) == len(set(prior.AMIs)), Which: gone,
				Detail: fmt.Sprintf("nodes on %s drift (now %s)", list("image", gone), strings.Join(sorted(planned.AMIs), ", "))}, true
		},
		node: func(n Node, t *target) bool {
			return t.planned.AMIs != nil && n.ImageID != "" && !t.amis[n.ImageID]
		}},
	{reason: ReasonSecurityGroups, compares: "the node's security groups with the class's resolved set",
		pool: func(prior, planned Side) (Finding, bool) {
			if len(prior.SecurityGroups) == 0 || sameSet(prior.SecurityGroups, planned.SecurityGroups) {
				return Finding{}, false
			}
			return Finding{Reason: ReasonSecurityGroups, AllNodes: true, Detail: fmt.Sprintf("the security groups changed (%s → %s)",
				strings.Join(sorted(prior.SecurityGroups), ", "), strings.Join(sorted(planned.SecurityGroups), ", "))}, true
		},
		// The NodeClaim does not record the security groups: only the pool verdict tells.
		node: func(_ Node, t *target) bool { return t.poolWide[ReasonSecurityGroups] }},
	{reason: ReasonSubnet, compares: "the node's subnet with the class's resolved subnets",
		pool: func(prior, planned Side) (Finding, bool) {
			gone := missing(prior.Subnets, planned.Subnets)
			if len(gone) == 0 || len(prior.Subnets) == 0 {
				return Finding{}, false
			}
			return Finding{Reason: ReasonSubnet, AllNodes: len(gone) == len(set(prior.Subnets)), Which: gone,
				Detail: fmt.Sprintf("nodes in %s drift", list("subnet", gone))}, true
		},
		node: func(n Node, t *target) bool {
			return len(t.planned.Subnets) > 0 && n.SubnetID != "" && !t.subnets[n.SubnetID]
		}},
	{reason: ReasonReservation, compares: "the node's capacity reservation with the class's selected reservations",
		pool: func(prior, planned Side) (Finding, bool) {
			gone := missing(prior.CapacityReservations, planned.CapacityReservations)
			if len(gone) == 0 {
				return Finding{}, false
			}
			return Finding{Reason: ReasonReservation, Which: gone, Detail: fmt.Sprintf("nodes in %s drift", list("capacity reservation", gone))}, true
		},
		node: func(n Node, t *target) bool {
			return n.CapacityReservationID != "" && !t.reservations[n.CapacityReservationID]
		}},
	{reason: ReasonPlacementGroup, compares: "the node's placement-group-id label with the class's selected placement group",
		pool: func(prior, planned Side) (Finding, bool) {
			if prior.PlacementGroup == planned.PlacementGroup {
				return Finding{}, false
			}
			return Finding{Reason: ReasonPlacementGroup, AllNodes: true, Detail: fmt.Sprintf("the placement group changed (%s → %s)",
				orNone(prior.PlacementGroup), orNone(planned.PlacementGroup))}, true
		},
		node: func(n Node, t *target) bool {
			return n.Labels != nil && n.Labels[requirements.LabelPlacementGroupID] != t.planned.PlacementGroup
		}},
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Check is one of Karpenter's drift checks as a report or a schema names it.
type Check struct {
	Reason   string // the Drifted condition's reason
	Compares string // what the check compares
}

// Checks are Karpenter's drift checks, in its order.
func Checks() []Check {
	out := make([]Check, len(checks))
	for i, c := range checks {
		out[i] = Check{Reason: c.reason, Compares: c.compares}
	}
	return out
}

// requirementsFinding is requirement drift for the pool: the instance types, zones and capacity
// types the prior requirements allowed and the planned ones no longer do.
func requirementsFinding(prior, planned Side) (Finding, bool) {
	var narrowed []string
	var which []string
	all := false
	for _, d := range []struct {
		what          string
		before, after []string
	}{
		{"instance type", prior.InstanceTypes, planned.InstanceTypes},
		{"zone", prior.Zones, planned.Zones},
		{"capacity type", prior.CapacityTypes, planned.CapacityTypes},
	} {
		if len(d.before) == 0 {
			continue
		}
		gone := missing(d.before, d.after)
		if len(gone) == 0 {
			continue
		}
		which = append(which, gone...)
		all = all || len(gone) == len(set(d.before))
		narrowed = append(narrowed, "nodes of "+list(d.what, gone))
	}
	if gone, allGone := labelsFinding(prior.Labels, planned.Labels); len(gone) > 0 {
		which = append(which, gone...)
		all = all || allGone
		narrowed = append(narrowed, labelsDetail(gone))
	}
	if len(narrowed) == 0 {
		return Finding{}, false
	}
	return Finding{Reason: ReasonRequirements, AllNodes: all, Which: which,
		Detail: strings.Join(narrowed, " and ") + " no longer meet the requirements"}, true
}

// target is the planned side as the per-node checks read it: its values as sets, and the
// reasons only the pool verdict can tell.
type target struct {
	planned                               Side
	types, zones, capacityTypes           map[string]bool
	amis, subnets, reservations, poolWide map[string]bool
}

func targetOf(planned Side, v Verdict) *target {
	t := &target{planned: planned,
		types: set(planned.InstanceTypes), zones: set(planned.Zones), capacityTypes: set(planned.CapacityTypes),
		amis: set(planned.AMIs), subnets: set(planned.Subnets), reservations: set(planned.CapacityReservations),
		poolWide: map[string]bool{}}
	for _, f := range v.Findings {
		if f.Reason == ReasonNodeClass || f.Reason == ReasonSecurityGroups {
			t.poolWide[f.Reason] = true
		}
	}
	return t
}

// firstReason is Karpenter's reason for drifting n, "" when it does not drift.
func (t *target) firstReason(n Node) string {
	for _, c := range checks {
		if c.node(n, t) {
			return c.reason
		}
	}
	return ""
}
