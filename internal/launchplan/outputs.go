package launchplan

import (
	"cmp"
	"slices"
)

// Outputs are the attributes a node pool's plan computes, shaped as the karpenter_node_pool
// schema (the provider encodes them by the tfsdk tags). Per-type detail (every eligible type,
// prices, max pods per type, the launch options, template content) is nil unless the pool sets
// `details`; a dynamic pool's templates are listed only with `details`, as Karpenter builds its
// own from the EC2NodeClass.
type Outputs struct {
	Summary              Summary                   `tfsdk:"summary"`
	Zones                map[string]ZoneOutput     `tfsdk:"zones"`
	WorkloadFit          map[string]WorkloadOutput `tfsdk:"workload_fit"`
	InstanceTypes        []string                  `tfsdk:"instance_types"`
	Prices               map[string]float64        `tfsdk:"prices"`
	MaxPods              map[string]int64          `tfsdk:"max_pods"`
	KarpenterAssumedPods map[string]int64          `tfsdk:"karpenter_assumed_pods"`
	LaunchPlan           []OptionGroup             `tfsdk:"launch_plan"`
	LaunchTemplates      []TemplateOutput          `tfsdk:"launch_templates"`
	Warnings             []string                  `tfsdk:"warnings"`
	Reservations         []ReservationUseValue     `tfsdk:"reservations"`
}

// ZoneOutput is one entry of `zones`, keyed by zone: Karpenter's subnet there and the nodes
// its free IPs hold.
type ZoneOutput struct {
	SubnetID    string  `tfsdk:"subnet_id"`
	NodesByIPs  int64   `tfsdk:"nodes_by_ips"`
	PodSubnetID *string `tfsdk:"pod_subnet_id"`
}

// WorkloadOutput is one entry of `workload_fit`.
type WorkloadOutput struct {
	Fits         bool    `tfsdk:"fits"`
	Summary      string  `tfsdk:"summary"`
	InstanceType string  `tfsdk:"instance_type"`
	CapacityType string  `tfsdk:"capacity_type"`
	PodsPerNode  int64   `tfsdk:"pods_per_node"`
	BoundBy      string  `tfsdk:"bound_by"`
	Nodes        int64   `tfsdk:"nodes"`
	HourlyCost   float64 `tfsdk:"hourly_cost"`
	Binding      string  `tfsdk:"binding"`
}

// OptionGroup is the launch options of one (zone, capacity type).
type OptionGroup struct {
	Zone          string   `tfsdk:"zone"`
	SubnetID      string   `tfsdk:"subnet_id"`
	CapacityType  string   `tfsdk:"capacity_type"`
	InstanceTypes []string `tfsdk:"instance_types"`
}

// TemplateOutput is one entry of `launch_templates` but for what EC2 assigns (the template's
// id and default version), which the provider adds.
type TemplateOutput struct {
	Name              string            `tfsdk:"name"`
	ImageID           *string           `tfsdk:"image_id"`
	MaxPods           int64             `tfsdk:"max_pods"`
	InstanceTypeCount int64             `tfsdk:"instance_type_count"`
	InstanceTypes     []string          `tfsdk:"instance_types"`
	NetworkInterfaces []InterfaceOutput `tfsdk:"network_interfaces"`
	UserData          *string           `tfsdk:"user_data"`
	Fingerprint       string            `tfsdk:"fingerprint"`
}

// InterfaceOutput is one network interface of a template.
type InterfaceOutput struct {
	NetworkCardIndex         int64    `tfsdk:"network_card_index"`
	DeviceIndex              int64    `tfsdk:"device_index"`
	InterfaceType            string   `tfsdk:"interface_type"`
	SecurityGroupIDs         []string `tfsdk:"security_group_ids"`
	AssociatePublicIPAddress *bool    `tfsdk:"associate_public_ip_address"`
	IPv4PrefixCount          *int64   `tfsdk:"ipv4_prefix_count"`
}

// Outputs shapes the plan for the pool's attributes; fingerprint is the hash of a template's
// content as the apply stage writes it.
func (p Plan) Outputs(details, static bool) Outputs {
	o := Outputs{Summary: p.Summary(), Zones: p.zoneOutputs(), Warnings: make([]string, 0, len(p.Warnings)),
		Reservations: ReservationUseValues(p.Reservations)}
	if p.Workloads != nil {
		o.WorkloadFit = make(map[string]WorkloadOutput, len(p.Workloads))
		for name, r := range p.Workloads {
			o.WorkloadFit[name] = WorkloadOutput{Fits: r.Fits, Summary: r.Summary, InstanceType: r.Type, CapacityType: r.CapacityType,
				PodsPerNode: int64(r.PodsPerNode), BoundBy: r.BoundBy, Nodes: int64(r.Nodes), HourlyCost: r.HourlyCost, Binding: r.Binding}
		}
	}
	if details {
		o.InstanceTypes = make([]string, 0, len(p.InstanceTypes))
		o.Prices = make(map[string]float64, len(p.InstanceTypes))
		o.MaxPods = make(map[string]int64, len(p.InstanceTypes))
		o.KarpenterAssumedPods = map[string]int64{}
		for _, t := range p.InstanceTypes {
			o.InstanceTypes = append(o.InstanceTypes, t.Name)
			o.Prices[t.Name], o.MaxPods[t.Name] = t.Price, int64(t.MaxPods)
			if t.KarpenterAssumedPods != t.MaxPods {
				o.KarpenterAssumedPods[t.Name] = int64(t.KarpenterAssumedPods)
			}
		}
		o.LaunchPlan = GroupOptions(p.LaunchPlan)
	}
	if static || details {
		o.LaunchTemplates = make([]TemplateOutput, 0, len(p.LaunchTemplates))
		for _, lt := range p.LaunchTemplates {
			o.LaunchTemplates = append(o.LaunchTemplates, templateOutput(lt, details, lt.Fingerprint()))
		}
	}
	for _, w := range p.Warnings {
		if w.Path.IsEmpty() {
			o.Warnings = append(o.Warnings, w.Message)
		} else {
			o.Warnings = append(o.Warnings, w.Path.String()+": "+w.Message)
		}
	}
	return o
}

func (p Plan) zoneOutputs() map[string]ZoneOutput {
	byIPs := map[string]int{}
	for _, c := range p.Capacity {
		byIPs[c.Zone] = c.NodesByIPs
	}
	out := make(map[string]ZoneOutput, len(p.Zones))
	for _, z := range p.Zones {
		out[z.Zone] = ZoneOutput{SubnetID: z.SubnetID, NodesByIPs: int64(byIPs[z.Zone]), PodSubnetID: emptyNil(z.PodSubnetID)}
	}
	return out
}

func templateOutput(lt LaunchTemplate, details bool, fingerprint string) TemplateOutput {
	t := TemplateOutput{Name: lt.Name, ImageID: emptyNil(lt.ImageID), MaxPods: int64(lt.MaxPods),
		InstanceTypeCount: int64(len(lt.InstanceTypes)), Fingerprint: fingerprint}
	if !details {
		return t
	}
	ud := lt.UserData
	t.InstanceTypes, t.UserData, t.NetworkInterfaces = append(make([]string, 0, len(lt.InstanceTypes)), lt.InstanceTypes...), &ud, []InterfaceOutput{}
	for _, ni := range lt.NetworkInterfaces {
		t.NetworkInterfaces = append(t.NetworkInterfaces, InterfaceOutput{NetworkCardIndex: int64(ni.NetworkCardIndex),
			DeviceIndex: int64(ni.DeviceIndex), InterfaceType: ni.InterfaceType,
			SecurityGroupIDs:         append(make([]string, 0, len(ni.SecurityGroupIDs)), ni.SecurityGroupIDs...),
			AssociatePublicIPAddress: ni.AssociatePublicIPAddress, IPv4PrefixCount: toInt64Ptr(ni.IPv4PrefixCount)})
	}
	return t
}

// GroupOptions folds the planner's ordered options into one group per (zone, capacity type),
// groups sorted by zone then capacity type, each keeping the options' instance-type order.
func GroupOptions(opts []Option) []OptionGroup {
	type key struct{ zone, capacityType string }
	index := map[key]int{}
	groups := []OptionGroup{}
	for _, o := range opts {
		k := key{o.Zone, o.CapacityType}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, OptionGroup{Zone: o.Zone, SubnetID: o.SubnetID, CapacityType: o.CapacityType, InstanceTypes: []string{}})
		}
		groups[i].InstanceTypes = append(groups[i].InstanceTypes, o.InstanceType)
	}
	slices.SortStableFunc(groups, func(a, b OptionGroup) int {
		return cmp.Or(cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.CapacityType, b.CapacityType))
	})
	return groups
}
