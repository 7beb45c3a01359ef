package launchplan

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveCapacityTypes reads karpenter.sh/capacity-type: the allowed ones among reserved, spot
// and on-demand, in Karpenter's order (a reserved offering is priced at a millionth of on-demand,
// spot is preferred over on-demand). Reserved capacity is planned where Karpenter launches (a
// dynamic pool or launcher = "karpenter") with its ReservedCapacity gate on and the class selects
// a reservation some eligible type can launch into; see resolveReservations. Without a
// requirement on the key, Karpenter v1 allows every capacity type its offerings have, so a
// dynamic pool is planned reserved first, then spot, with a warning (DefaultCapacityTypesWarning);
// a static pool, which the provider's own launcher runs, launches on-demand.
func (b *builder) resolveCapacityTypes() {
	first := -1
	for i, r := range b.in.Requirements {
		if r.Key == requirements.LabelCapacityType && first < 0 {
			first = i
		}
	}
	b.resolveReservations(first)
	switch {
	case first < 0 && b.in.Replicas != nil:
		b.capTypes = []string{requirements.CapacityTypeOnDemand}
		return
	case first < 0:
		b.capTypes = []string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand}
		if b.res.on {
			b.capTypes = append([]string{requirements.CapacityTypeReserved}, b.capTypes...)
		}
		b.warn(SummaryCapacityTypeDefault, pathRequirements, "%s", DefaultCapacityTypesWarning)
		return
	}
	order := []string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand}
	if b.res.on {
		order = append([]string{requirements.CapacityTypeReserved}, order...)
	}
	b.capTypes = requirements.AllowedValues(b.in.Requirements, requirements.LabelCapacityType, order)
	if len(b.capTypes) == 0 {
		msg := "the capacity-type requirements allow neither on-demand nor spot"
		if b.res.allowed {
			msg += ", and reserved capacity cannot be planned: " + b.res.whyNot
		}
		b.fail(pathRequirements.Index(first).Attr("values"), "%s", msg)
	}
}

// DefaultCapacityTypesWarning is what a dynamic pool without a karpenter.sh/capacity-type
// requirement is told.
const DefaultCapacityTypesWarning = "no karpenter.sh/capacity-type requirement: Karpenter then allows spot and on-demand and " +
	"launches spot wherever a type is offered as spot, so this plan orders the launch and counts the cost by spot prices. " +
	"Spot launches need the EC2 Spot service-linked role (AWSServiceRoleForEC2Spot) in the account, or Karpenter's " +
	"CreateFleet fails. For on-demand only, add { key = \"karpenter.sh/capacity-type\", operator = \"In\", " +
	"values = [\"on-demand\"] }; to keep spot first, say so with values = [\"spot\", \"on-demand\"]"
