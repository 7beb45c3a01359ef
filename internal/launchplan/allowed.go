package launchplan

import (
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Allowed are what a pool's requirements allow, as Karpenter's requirement drift reads a node's
// labels against them: the instance types of the catalog (before the node class's filters), the
// zones among those given, and the capacity types (all of them when none is required).
type Allowed struct {
	InstanceTypes, Zones, CapacityTypes []string
}

// AllowedBy evaluates reqs over the catalog and zones, the types labelled as Karpenter minor
// labels them ("" is the newest).
func AllowedBy(cat *catalog.Catalog, region, minor string, reqs []requirements.Requirement, zones []string) Allowed {
	var perType []requirements.Requirement
	for _, r := range reqs {
		if r.Key != requirements.LabelZone && r.Key != requirements.LabelCapacityType {
			r.MinValues = nil // a shortfall is the planner's finding, not a change of what is allowed
			perType = append(perType, r)
		}
	}
	var a Allowed
	if cat != nil {
		res, _ := cat.Select(perType, catalog.SelectOptions{Region: region, KarpenterVersion: minor})
		for _, s := range res.Types {
			a.InstanceTypes = append(a.InstanceTypes, s.Type.Name)
		}
	}
	a.Zones = requirements.AllowedValues(reqs, requirements.LabelZone, zones)
	// Without a requirement on the key every capacity type is allowed, as for Karpenter.
	a.CapacityTypes = requirements.AllowedValues(reqs, requirements.LabelCapacityType,
		[]string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeReserved, requirements.CapacityTypeSpot})
	slices.Sort(a.InstanceTypes)
	return a
}
