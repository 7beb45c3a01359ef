package launchplan

import (
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveCapacityTypes reads karpenter.sh/capacity-type: the allowed ones among spot and
// on-demand, spot first as Karpenter prefers it. Reserved capacity needs reservations the
// provider does not manage. Without a requirement on the key, Karpenter v1 allows every
// capacity type its offerings have, so a dynamic pool is planned spot first, with a warning
// (DefaultCapacityTypesWarning); a static pool, which the provider's own launcher runs, launches
// on-demand.
func (b *builder) resolveCapacityTypes() {
	first := -1
	for i, r := range b.in.Requirements {
		if r.Key != requirements.LabelCapacityType {
			continue
		}
		if first < 0 {
			first = i
		}
		if r.Operator == requirements.OpIn && slices.Contains(r.Values, requirements.CapacityTypeReserved) {
			b.warn(SummaryReservedIgnored, pathRequirements.Index(i).Attr("values"),
				"capacity type %q is ignored: the provider manages no capacity reservations, so nodes launch as on-demand or spot only",
				requirements.CapacityTypeReserved)
		}
	}
	switch {
	case first < 0 && b.in.Replicas != nil:
		b.capTypes = []string{requirements.CapacityTypeOnDemand}
		return
	case first < 0:
		b.capTypes = []string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand}
		b.warn(SummaryCapacityTypeDefault, pathRequirements, "%s", DefaultCapacityTypesWarning)
		return
	}
	b.capTypes = requirements.AllowedValues(b.in.Requirements, requirements.LabelCapacityType,
		[]string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand})
	if len(b.capTypes) == 0 {
		b.fail(pathRequirements.Index(first).Attr("values"),
			"the capacity-type requirements allow neither on-demand nor spot; the provider launches only those (reserved needs capacity reservations)")
	}
}

// DefaultCapacityTypesWarning is what a dynamic pool without a karpenter.sh/capacity-type
// requirement is told.
const DefaultCapacityTypesWarning = "no karpenter.sh/capacity-type requirement: Karpenter then allows spot and on-demand and " +
	"launches spot wherever a type is offered as spot, so this plan orders the launch and counts the cost by spot prices. " +
	"Spot launches need the EC2 Spot service-linked role (AWSServiceRoleForEC2Spot) in the account, or Karpenter's " +
	"CreateFleet fails. For on-demand only, add { key = \"karpenter.sh/capacity-type\", operator = \"In\", " +
	"values = [\"on-demand\"] }; to keep spot first, say so with values = [\"spot\", \"on-demand\"]"
