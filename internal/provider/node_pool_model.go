package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"math"
	"regexp"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

type nodePoolModel struct {
	ID         types.String     `tfsdk:"id"`
	Name       types.String     `tfsdk:"name"`
	NodeClass  types.Object     `tfsdk:"node_class"`
	Template   *poolTemplate    `tfsdk:"template"`
	Limits     types.Map        `tfsdk:"limits"`
	Disruption *disruptionModel `tfsdk:"disruption"`
	Weight     types.Int64      `tfsdk:"weight"`
	Replicas   types.Int64      `tfsdk:"replicas"`

	InstanceTypes   types.List     `tfsdk:"instance_types"`
	MaxPods         types.Map      `tfsdk:"max_pods"`
	KarpenterPods   types.Map      `tfsdk:"karpenter_assumed_pods"`
	Zones           types.List     `tfsdk:"zones"`
	LaunchPlan      types.List     `tfsdk:"launch_plan"`
	Capacity        types.List     `tfsdk:"capacity"`
	LaunchTemplates types.List     `tfsdk:"launch_templates"`
	Manifest        types.String   `tfsdk:"manifest"`
	Warnings        types.List     `tfsdk:"warnings"`
	Nodes           types.List     `tfsdk:"nodes"`
	OwnerID         types.String   `tfsdk:"owner_id"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

type poolTemplate struct {
	Labels                 types.Map          `tfsdk:"labels"`
	Annotations            types.Map          `tfsdk:"annotations"`
	Taints                 []taintModel       `tfsdk:"taints"`
	StartupTaints          []taintModel       `tfsdk:"startup_taints"`
	Requirements           []requirementModel `tfsdk:"requirements"`
	ExpireAfter            types.String       `tfsdk:"expire_after"`
	TerminationGracePeriod types.String       `tfsdk:"termination_grace_period"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

type requirementModel struct {
	Key       types.String `tfsdk:"key"`
	Operator  types.String `tfsdk:"operator"`
	Values    types.List   `tfsdk:"values"`
	MinValues types.Int64  `tfsdk:"min_values"`
}

type disruptionModel struct {
	ConsolidationPolicy types.String `tfsdk:"consolidation_policy"`
	ConsolidateAfter    types.String `tfsdk:"consolidate_after"`
	Budgets             []budgetTF   `tfsdk:"budgets"`
}

// Computed element shapes; their Go form defines their Terraform type.
type zonePlanTF struct {
	Zone         string  `tfsdk:"zone"`
	ZoneID       string  `tfsdk:"zone_id"`
	SubnetID     string  `tfsdk:"subnet_id"`
	AvailableIPs int64   `tfsdk:"available_ip_address_count"`
	PodSubnetID  *string `tfsdk:"pod_subnet_id"`
}

// optionGroupTF is the launch options of one (zone, capacity type).
type optionGroupTF struct {
	Zone          string   `tfsdk:"zone"`
	SubnetID      string   `tfsdk:"subnet_id"`
	CapacityType  string   `tfsdk:"capacity_type"`
	InstanceTypes []string `tfsdk:"instance_types"`
}

type capacityTF struct {
	Zone          string `tfsdk:"zone"`
	AvailableIPs  int64  `tfsdk:"available_ip_address_count"`
	NodesByIPs    int64  `tfsdk:"nodes_by_ips"`
	NodesByLimits int64  `tfsdk:"nodes_by_limits"`
}

type interfaceTF struct {
	NetworkCardIndex         int64    `tfsdk:"network_card_index"`
	DeviceIndex              int64    `tfsdk:"device_index"`
	InterfaceType            string   `tfsdk:"interface_type"`
	SecurityGroupIDs         []string `tfsdk:"security_group_ids"`
	AssociatePublicIPAddress *bool    `tfsdk:"associate_public_ip_address"`
	IPv4PrefixCount          *int64   `tfsdk:"ipv4_prefix_count"`
}

// launchTemplateTF has ID as a framework type: unknown in a plan until EC2 assigns it.
type launchTemplateTF struct {
	Name              string        `tfsdk:"name"`
	ID                types.String  `tfsdk:"id"`
	DefaultVersion    types.Int64   `tfsdk:"default_version"`
	ImageID           *string       `tfsdk:"image_id"`
	MaxPods           int64         `tfsdk:"max_pods"`
	InstanceTypes     []string      `tfsdk:"instance_types"`
	NetworkInterfaces []interfaceTF `tfsdk:"network_interfaces"`
	UserData          string        `tfsdk:"user_data"`
	Fingerprint       string        `tfsdk:"fingerprint"`
}

var launchTemplateObjType = func() types.ObjectType {
	t := attrTypesOf(launchTemplateTF{})
	t["id"] = types.StringType
	t["default_version"] = types.Int64Type
	return types.ObjectType{AttrTypes: t}
}()

func (m *nodePoolModel) requirements(ctx context.Context, diags *diag.Diagnostics) []requirements.Requirement {
	if m.Template == nil {
		return nil
	}
	out := make([]requirements.Requirement, len(m.Template.Requirements))
	for i, r := range m.Template.Requirements {
		out[i] = requirements.Requirement{
			Key: r.Key.ValueString(), Operator: requirements.Operator(r.Operator.ValueString()),
			Values: stringList(ctx, r.Values, diags), MinValues: intPtr(r.MinValues),
		}
	}
	return out
}

func (m *nodePoolModel) poolSpec(ctx context.Context, diags *diag.Diagnostics) nodepool.Spec {
	s := nodepool.Spec{
		Name: m.Name.ValueString(), Limits: tagsFromMap(ctx, m.Limits, diags),
		Weight: intPtr(m.Weight), Replicas: intPtr(m.Replicas),
		ConsolidationPolicy: nodepool.PolicyWhenEmptyOrUnderutilized, ConsolidateAfter: "0s",
	}
	if t := m.Template; t != nil {
		s.Labels = tagsFromMap(ctx, t.Labels, diags)
		s.ExpireAfter, s.TerminationGracePeriod = t.ExpireAfter.ValueString(), t.TerminationGracePeriod.ValueString()
	}
	if d := m.Disruption; d != nil {
		s.ConsolidationPolicy, s.ConsolidateAfter = d.ConsolidationPolicy.ValueString(), d.ConsolidateAfter.ValueString()
		for _, b := range d.Budgets {
			s.Budgets = append(s.Budgets, nodepool.Budget{Nodes: deref(b.Nodes), Reasons: b.Reasons, Schedule: deref(b.Schedule), Duration: deref(b.Duration)})
		}
	}
	return s
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

var sizeRE = regexp.MustCompile(`^([0-9]+)(Gi|G|Ti|T)$`)

// volumeGiB converts the CRD's volume-size quantity to whole GiB, rounding up.
func volumeGiB(q string) int {
	m := sizeRE.FindStringSubmatch(q)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	switch m[2] {
	case "G":
		n = n * 1e9 / (1 << 30)
	case "Ti":
		n *= 1024
	case "T":
		n = n * 1e12 / (1 << 30)
	}
	return int(math.Ceil(n))
}

// planClass converts the node class's `resolved` object into the planner's view.
func planClass(rc resolvedClass) launchplan.Class {
	c := launchplan.Class{
		Name: rc.Name, AMIFamily: rc.AMIFamily, AMIUnresolved: deref(rc.AMIUnresolved), Zones: rc.Zones, SecurityGroupIDs: rc.SecurityGroupIDs,
		AssociatePublicIPAddress: rc.AssociatePublicIPAddress, IPPrefixCount: derefInt(rc.IPPrefixCount), EFA: rc.EFA,
		DetailedMonitoring: rc.DetailedMonitoring != nil && *rc.DetailedMonitoring, UserData: deref(rc.UserData), Tags: rc.Tags,
		InstanceProfile: deref(rc.InstanceProfile),
		Kubelet: launchplan.Kubelet{ClusterDNS: rc.Kubelet.ClusterDNS, SystemReserved: rc.Kubelet.SystemReserved,
			KubeReserved: rc.Kubelet.KubeReserved, EvictionHard: rc.Kubelet.EvictionHard},
		MetadataOptions: launchplan.MetadataOptions{HTTPEndpoint: rc.MetadataOptions.HTTPEndpoint, HTTPProtocolIPv6: rc.MetadataOptions.HTTPProtocolIPv6,
			HTTPTokens: rc.MetadataOptions.HTTPTokens, HTTPPutResponseHopLimit: int(rc.MetadataOptions.HTTPPutResponseHopLimit)},
	}
	for _, a := range rc.AMIs {
		c.AMIs = append(c.AMIs, a.ami())
	}
	for _, s := range rc.Subnets {
		c.Subnets = append(c.Subnets, launchplan.Subnet{ID: s.ID, Zone: s.Zone, ZoneID: s.ZoneID, CIDRBlock: s.CIDRBlock, AvailableIPs: int(s.AvailableIPAddressCount)})
	}
	for _, p := range rc.PodSubnets {
		c.PodSubnets = append(c.PodSubnets, launchplan.PodSubnet{Zone: p.Zone, ID: p.ID, CIDRBlock: p.CIDRBlock, AvailableIPs: int(p.AvailableIPAddressCount)})
	}
	if rc.NetworkInterfaces != nil {
		c.NetworkInterfaces = []capacity.Interface{}
		for _, ni := range rc.NetworkInterfaces {
			c.NetworkInterfaces = append(c.NetworkInterfaces, capacity.Interface{NetworkCardIndex: int(ni.NetworkCardIndex),
				DeviceIndex: int(ni.DeviceIndex), InterfaceType: ni.InterfaceType})
		}
	}
	for _, b := range rc.BlockDeviceMappings {
		bd := launchplan.BlockDevice{DeviceName: deref(b.DeviceName), RootVolume: b.RootVolume}
		if e := b.EBS; e != nil {
			bd.DeleteOnTermination, bd.Encrypted, bd.IOPS = e.DeleteOnTermination, e.Encrypted, derefInt(e.IOPS)
			bd.KMSKeyID, bd.SnapshotID, bd.Throughput = deref(e.KMSKeyID), deref(e.SnapshotID), derefInt(e.Throughput)
			bd.VolumeSizeGiB, bd.VolumeType = volumeGiB(deref(e.VolumeSize)), deref(e.VolumeType)
		}
		c.BlockDevices = append(c.BlockDevices, bd)
	}
	c.CNI = capacity.Settings{
		AMIFamily: rc.AMIFamily, PrefixDelegation: rc.Networking.PrefixDelegation, CustomNetworking: rc.Networking.CustomNetworking,
		SecurityGroupsForPods: rc.Networking.SecurityGroupsForPods, ReservedENIs: int(rc.Networking.ReservedENIs),
		NetworkInterfaces: c.NetworkInterfaces, MaxPods: derefInt(rc.Kubelet.MaxPods), PodsPerCore: derefInt(rc.Kubelet.PodsPerCore),
	}
	return c
}
