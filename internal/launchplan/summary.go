package launchplan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Summary is a pool's plan in a few lines: what a reviewer reads (the node pool's `summary`;
// the tfsdk tags name its attributes and are metadata only).
type Summary struct {
	InstanceTypes      int64  `tfsdk:"instance_types"`
	FirstInstanceTypes string `tfsdk:"first_instance_types"`
	Cost               string `tfsdk:"cost"`
	Prices             string `tfsdk:"prices"`
	MaxPodsMin         int64  `tfsdk:"max_pods_min"`
	MaxPodsMax         int64  `tfsdk:"max_pods_max"`
	KarpenterDisagrees int64  `tfsdk:"karpenter_disagrees"`
	LaunchTemplates    int64  `tfsdk:"launch_templates"`
	NodesByIPs         int64  `tfsdk:"nodes_by_ips"`
	NodesByLimits      *int64 `tfsdk:"nodes_by_limits"`
	// NodeOverlays says which overlays change which types ("" without any).
	NodeOverlays string `tfsdk:"node_overlays"`
	// Reservations says which of the class's capacity reservations the pool launches into first
	// and the nodes each covers (nil when the class selects none).
	Reservations *string `tfsdk:"reservations"`
}

// FirstTypesShown is how many instance types Summary.FirstInstanceTypes names.
const FirstTypesShown = 5

// Summary condenses the plan: counts, the first launch types with their prices, the max-pods
// range, and how many types Karpenter assumes another max pods for.
func (p Plan) Summary() Summary {
	s := Summary{InstanceTypes: int64(len(p.InstanceTypes)), LaunchTemplates: int64(len(p.LaunchTemplates)), NodesByIPs: int64(p.NodesByIPs),
		Cost: p.Cost.String(), Prices: p.PriceSource}
	if p.ReservationsLine != "" {
		line := p.ReservationsLine
		s.Reservations = &line
	}
	byName := make(map[string]*TypePlan, len(p.InstanceTypes))
	for i := range p.InstanceTypes {
		byName[p.InstanceTypes[i].Name] = &p.InstanceTypes[i]
	}
	names := make([]string, 0, FirstTypesShown)
	priced := false
	for _, name := range p.LaunchTypes[:min(FirstTypesShown, len(p.LaunchTypes))] {
		switch t := byName[name]; {
		case t == nil:
		case t.PriceCapacityType == requirements.CapacityTypeReserved: // priced at on-demand / 1e7: paid for already
			names = append(names, t.Name+" reserved")
		default:
			priced = true
			names = append(names, fmt.Sprintf("%s %s %s", t.Name, FormatPrice(t.Price), t.PriceCapacityType))
		}
	}
	for i, t := range p.InstanceTypes {
		if i == 0 || int64(t.MaxPods) < s.MaxPodsMin {
			s.MaxPodsMin = int64(t.MaxPods)
		}
		s.MaxPodsMax = max(s.MaxPodsMax, int64(t.MaxPods))
		if t.KarpenterAssumedPods != t.MaxPods {
			s.KarpenterDisagrees++
		}
	}
	uses := make([]string, len(p.Overlays))
	for i, u := range p.Overlays {
		uses[i] = u.String()
	}
	s.NodeOverlays = strings.Join(uses, "; ")
	s.FirstInstanceTypes = strings.Join(names, ", ")
	if more := len(p.LaunchTypes) - len(names); more > 0 {
		s.FirstInstanceTypes += fmt.Sprintf(" and %d more", more)
	}
	if priced {
		s.FirstInstanceTypes += " (USD/h)"
	}
	if p.NodesByLimits >= 0 {
		n := int64(p.NodesByLimits)
		s.NodesByLimits = &n
	}
	return s
}

// firstTypeNames are the type names of FirstInstanceTypes without their prices.
func firstTypeNames(first string) []string {
	first = strings.TrimSuffix(first, " (USD/h)")
	first, _, _ = strings.Cut(first, " and ")
	var out []string
	for _, part := range strings.Split(first, ", ") {
		if name, _, _ := strings.Cut(part, " "); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// Shown is what a plan showed of a pool's launch, for apply to compare with its own plan.
type Shown struct {
	Summary Summary
	// InstanceTypes are the eligible types in order (nil: not shown, the pool has no details).
	InstanceTypes []string
	// Fingerprints are the planned launch templates' content by name (nil: not shown).
	Fingerprints map[string]string
}

// Holds reports whether planning again gives what the plan showed: the type counts, the first
// launch types (by name: a price may move between plan and apply while the launch stays the
// same), the max-pods range, the templates and, when shown, every eligible type. Apply executes
// what the plan showed, or nothing. fingerprints are the new plan's templates.
func (s Shown) Holds(p Plan, fingerprints map[string]string) bool {
	now := p.Summary()
	same := s.Summary.InstanceTypes == now.InstanceTypes && s.Summary.LaunchTemplates == now.LaunchTemplates &&
		slices.Equal(firstTypeNames(s.Summary.FirstInstanceTypes), firstTypeNames(now.FirstInstanceTypes)) &&
		s.Summary.MaxPodsMin == now.MaxPodsMin && s.Summary.MaxPodsMax == now.MaxPodsMax
	if s.InstanceTypes != nil {
		names := make([]string, len(p.InstanceTypes))
		for i, t := range p.InstanceTypes {
			names[i] = t.Name
		}
		same = same && slices.Equal(s.InstanceTypes, names)
	}
	if s.Fingerprints != nil {
		same = same && maps.Equal(s.Fingerprints, fingerprints)
	}
	return same
}

// NoLongerHolds explains a failed Holds.
func (s Shown) NoLongerHolds(p Plan) string {
	now := p.Summary()
	return fmt.Sprintf("Planning the pool again at apply gives other instance types or launch templates than the plan showed (%d types "+
		"planned, %d now; first types planned: %s; now: %s): the instance-type catalog or the node class changed between plan and apply. "+
		"Nothing was changed in EC2; run terraform plan again.", s.Summary.InstanceTypes, now.InstanceTypes, s.Summary.FirstInstanceTypes, now.FirstInstanceTypes)
}

// MaxNodes is the most nodes the pool can hold: what its subnets address, within its limits.
func (p Plan) MaxNodes() int {
	if p.NodesByLimits >= 0 {
		return min(p.NodesByIPs, p.NodesByLimits)
	}
	return p.NodesByIPs
}
