package launchplan

import (
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// resolveCapacityTypes reads karpenter.sh/capacity-type: on-demand only when no requirement
// mentions it; otherwise the allowed ones among spot and on-demand, spot first as Karpenter
// prefers it. Reserved capacity needs reservations the provider does not manage.
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
	if first < 0 {
		b.capTypes = []string{requirements.CapacityTypeOnDemand}
		return
	}
	b.capTypes = requirements.AllowedValues(b.in.Requirements, requirements.LabelCapacityType,
		[]string{requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand})
	if len(b.capTypes) == 0 {
		b.fail(pathRequirements.Index(first).Attr("values"),
			"the capacity-type requirements allow neither on-demand nor spot; the provider launches only those (reserved needs capacity reservations)")
	}
}
