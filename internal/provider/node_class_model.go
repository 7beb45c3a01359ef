package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// nodeClassModel is the resource's config/plan/state. Inputs are decoded only when fully known
// (ModifyPlan checks), so nested inputs can be plain Go structs; computed values stay framework
// types because they are unknown in a plan.
type nodeClassModel struct {
	ID                         types.String        `tfsdk:"id"`
	Name                       types.String        `tfsdk:"name"`
	AMIFamily                  types.String        `tfsdk:"ami_family"`
	AMISelectorTerms           []amiTermModel      `tfsdk:"ami_selector_terms"`
	Role                       types.String        `tfsdk:"role"`
	InstanceProfile            types.String        `tfsdk:"instance_profile"`
	SubnetSelectorTerms        []subnetTermModel   `tfsdk:"subnet_selector_terms"`
	SecurityGroupSelectorTerms []selectorTermModel `tfsdk:"security_group_selector_terms"`
	AssociatePublicIPAddress   types.Bool          `tfsdk:"associate_public_ip_address"`
	IPPrefixCount              types.Int64         `tfsdk:"ip_prefix_count"`
	NetworkInterfaces          []netIfModel        `tfsdk:"network_interfaces"`
	EFA                        types.Bool          `tfsdk:"efa"`
	Networking                 *networkingModel    `tfsdk:"networking"`
	Kubelet                    *kubeletModel       `tfsdk:"kubelet"`
	MetadataOptions            *metadataModel      `tfsdk:"metadata_options"`
	BlockDeviceMappings        []bdmModel          `tfsdk:"block_device_mappings"`
	InstanceStorePolicy        types.String        `tfsdk:"instance_store_policy"`
	DetailedMonitoring         types.Bool          `tfsdk:"detailed_monitoring"`
	UserData                   types.String        `tfsdk:"user_data"`
	Tags                       types.Map           `tfsdk:"tags"`
	Connectivity               *connectivityModel  `tfsdk:"connectivity"`

	CapacityReservationSelectorTerms []capacityReservationTermModel `tfsdk:"capacity_reservation_selector_terms"`
	PlacementGroupSelector           *placementGroupSelectorModel   `tfsdk:"placement_group_selector"`
	Context                          types.String                   `tfsdk:"context"`
	CPUOptions                       *cpuOptionsModel               `tfsdk:"cpu_options"`
	ConnectionTracking               *connectionTrackingModel       `tfsdk:"connection_tracking"`
	EnclaveOptions                   *enclaveOptionsModel           `tfsdk:"enclave_options"`

	VPCID              types.String  `tfsdk:"vpc_id"`
	Subnets            types.List    `tfsdk:"subnets"`
	SecurityGroups     types.List    `tfsdk:"security_groups"`
	Zones              types.List    `tfsdk:"zones"`
	PodSubnets         types.List    `tfsdk:"pod_subnets"`
	AMIs               types.List    `tfsdk:"amis"`
	Resolved           types.Object  `tfsdk:"resolved"`
	ConnectivityReport types.List    `tfsdk:"connectivity_report"`
	NodeRoleReport     types.List    `tfsdk:"node_role_report"`
	Manifest           types.String  `tfsdk:"manifest"`
	ManifestObject     types.Dynamic `tfsdk:"manifest_object"`

	CapacityReservations types.List   `tfsdk:"capacity_reservations"`
	PlacementGroup       types.Object `tfsdk:"placement_group"`

	OwnerID types.String `tfsdk:"owner_id"`
}

// capacityReservationTermModel is one capacity_reservation_selector_terms entry.
type capacityReservationTermModel struct {
	ID                    types.String `tfsdk:"id"`
	OwnerID               types.String `tfsdk:"owner_id"`
	Tags                  types.Map    `tfsdk:"tags"`
	InstanceMatchCriteria types.String `tfsdk:"instance_match_criteria"`
}

type placementGroupSelectorModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
}

type enclaveOptionsModel struct {
	Enabled types.Bool `tfsdk:"enabled"`
}

type cpuOptionsModel struct {
	NestedVirtualization types.String `tfsdk:"nested_virtualization"`
}

type connectionTrackingModel struct {
	TCPEstablishedTimeout types.Int64 `tfsdk:"tcp_established_timeout"`
	UDPStreamTimeout      types.Int64 `tfsdk:"udp_stream_timeout"`
	UDPTimeout            types.Int64 `tfsdk:"udp_timeout"`
}

// connectivityModel is the provider-only `connectivity` block.
type connectivityModel struct {
	ControlPlaneSecurityGroupIDs           []string            `tfsdk:"control_plane_security_group_ids"`
	ControlPlaneSecurityGroupSelectorTerms []selectorTermModel `tfsdk:"control_plane_security_group_selector_terms"`
	Checks                                 types.String        `tfsdk:"checks"`
}

// config is the `connectivity` block for the checks; an unset block runs them as warnings
// (node_to_node only: no control-plane groups are named).
func (c *connectivityModel) config() nodeclass.Connectivity {
	if c == nil {
		return nodeclass.Connectivity{Mode: nodeclass.ChecksWarn}
	}
	mode := c.Checks.ValueString()
	if mode == "" {
		mode = nodeclass.ChecksWarn
	}
	return nodeclass.Connectivity{Configured: true, Mode: mode, ControlPlaneIDs: c.ControlPlaneSecurityGroupIDs,
		ControlPlaneTerms: securityGroupTermsFrom(c.ControlPlaneSecurityGroupSelectorTerms)}
}

// connectivityCheck is one entry of `connectivity_report`.
type connectivityCheck struct {
	Check    string `tfsdk:"check"`
	GroupID  string `tfsdk:"group_id"`
	Passed   bool   `tfsdk:"passed"`
	Required string `tfsdk:"required"`
	Detail   string `tfsdk:"detail"`
}

var connectivityCheckType = types.ObjectType{AttrTypes: attrTypesOf(connectivityCheck{})}

type amiTermModel struct {
	Alias        types.String `tfsdk:"alias"`
	ID           types.String `tfsdk:"id"`
	Name         types.String `tfsdk:"name"`
	Owner        types.String `tfsdk:"owner"`
	SSMParameter types.String `tfsdk:"ssm_parameter"`
	Tags         types.Map    `tfsdk:"tags"`
}

type netIfModel struct {
	NetworkCardIndex types.Int64  `tfsdk:"network_card_index"`
	DeviceIndex      types.Int64  `tfsdk:"device_index"`
	InterfaceType    types.String `tfsdk:"interface_type"`
}

type networkingModel struct {
	PrefixDelegation      types.Bool          `tfsdk:"prefix_delegation"`
	CustomNetworking      *customNetworkModel `tfsdk:"custom_networking"`
	SecurityGroupsForPods types.Bool          `tfsdk:"security_groups_for_pods"`
	ReservedENIs          types.Int64         `tfsdk:"reserved_enis"`
	WarmENITarget         types.Int64         `tfsdk:"warm_eni_target"`
	WarmIPTarget          types.Int64         `tfsdk:"warm_ip_target"`
	MinimumIPTarget       types.Int64         `tfsdk:"minimum_ip_target"`
	WarmPrefixTarget      types.Int64         `tfsdk:"warm_prefix_target"`
	CNIRole               types.String        `tfsdk:"cni_role"`
}

type customNetworkModel struct {
	PodSubnetSelectorTerms []subnetTermModel `tfsdk:"pod_subnet_selector_terms"`
}

type kubeletModel struct {
	MaxPods                     types.Int64   `tfsdk:"max_pods"`
	PodsPerCore                 types.Int64   `tfsdk:"pods_per_core"`
	ClusterDNS                  types.List    `tfsdk:"cluster_dns"`
	SystemReserved              types.Map     `tfsdk:"system_reserved"`
	KubeReserved                types.Map     `tfsdk:"kube_reserved"`
	EvictionHard                types.Map     `tfsdk:"eviction_hard"`
	EvictionSoft                types.Map     `tfsdk:"eviction_soft"`
	EvictionSoftGracePeriod     types.Map     `tfsdk:"eviction_soft_grace_period"`
	EvictionMaxPodGracePeriod   types.Int64   `tfsdk:"eviction_max_pod_grace_period"`
	ImageGCHighThresholdPercent types.Int64   `tfsdk:"image_gc_high_threshold_percent"`
	ImageGCLowThresholdPercent  types.Int64   `tfsdk:"image_gc_low_threshold_percent"`
	CPUCFSQuota                 types.Bool    `tfsdk:"cpu_cfs_quota"`
	MaxPodsExpression           types.String  `tfsdk:"max_pods_expression"`
	Config                      types.Dynamic `tfsdk:"config"`
}

type metadataModel struct {
	HTTPEndpoint            types.String `tfsdk:"http_endpoint"`
	HTTPProtocolIPv6        types.String `tfsdk:"http_protocol_ipv6"`
	HTTPPutResponseHopLimit types.Int64  `tfsdk:"http_put_response_hop_limit"`
	HTTPTokens              types.String `tfsdk:"http_tokens"`
}

type bdmModel struct {
	DeviceName types.String `tfsdk:"device_name"`
	RootVolume types.Bool   `tfsdk:"root_volume"`
	EBS        *ebsModel    `tfsdk:"ebs"`
}

type ebsModel struct {
	DeleteOnTermination types.Bool   `tfsdk:"delete_on_termination"`
	Encrypted           types.Bool   `tfsdk:"encrypted"`
	IOPS                types.Int64  `tfsdk:"iops"`
	KMSKeyID            types.String `tfsdk:"kms_key_id"`
	SnapshotID          types.String `tfsdk:"snapshot_id"`
	Throughput          types.Int64  `tfsdk:"throughput"`
	VolumeSize          types.String `tfsdk:"volume_size"`
	VolumeType          types.String `tfsdk:"volume_type"`

	VolumeInitializationRate types.Int64 `tfsdk:"volume_initialization_rate"`
}

// amiTF is one image of the node class's `amis` (EC2NodeClass status.amis).
type amiTF struct {
	ID           string   `tfsdk:"id"`
	Name         string   `tfsdk:"name"`
	Architecture string   `tfsdk:"architecture"`
	Variant      *string  `tfsdk:"variant"`
	CreationDate string   `tfsdk:"creation_date"`
	Deprecated   bool     `tfsdk:"deprecated"`
	Requirements []string `tfsdk:"requirements"`
}

func amisTF(amis []nodeclass.AMI) []amiTF {
	out := make([]amiTF, len(amis))
	for i, a := range amis {
		out[i] = amiTF{ID: a.ID, Name: a.Name, Architecture: a.Architecture, Variant: emptyNil(string(a.Variant)),
			CreationDate: a.CreationDate, Deprecated: a.Deprecated, Requirements: a.Requirements()}
	}
	return out
}

// subnetTF is one subnet of the node class's `subnets`.
type subnetTF struct {
	ID                      string  `tfsdk:"id"`
	Name                    *string `tfsdk:"name"`
	Zone                    string  `tfsdk:"zone"`
	ZoneID                  string  `tfsdk:"zone_id"`
	CIDRBlock               string  `tfsdk:"cidr_block"`
	AvailableIPAddressCount int64   `tfsdk:"available_ip_address_count"`
	MapPublicIPOnLaunch     bool    `tfsdk:"map_public_ip_on_launch"`
	DefaultForAZ            bool    `tfsdk:"default_for_az"`
}

func subnetTFFrom(s discovery.Subnet) subnetTF {
	return subnetTF{ID: s.ID, Name: emptyNil(s.Name()), Zone: s.Zone, ZoneID: s.ZoneID, CIDRBlock: s.CIDRBlock,
		AvailableIPAddressCount: int64(s.AvailableIPAddressCount), MapPublicIPOnLaunch: s.MapPublicIPOnLaunch, DefaultForAZ: s.DefaultForAZ}
}

// podSubnetTF is one zone's pod subnet of the node class's `pod_subnets`.
type podSubnetTF struct {
	Zone                    string `tfsdk:"zone"`
	ID                      string `tfsdk:"id"`
	CIDRBlock               string `tfsdk:"cidr_block"`
	AvailableIPAddressCount int64  `tfsdk:"available_ip_address_count"`
}

// --- conversions -------------------------------------------------------------------------

func strPtr(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func intPtr(v types.Int64) *int {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	i := int(v.ValueInt64())
	return &i
}

func boolPtr(v types.Bool) *bool {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	b := v.ValueBool()
	return &b
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// spec converts the (fully known) plan into the domain spec; omitted selector terms stay nil
// (nodeclass.ApplyDefaultTerms).
func (m *nodeClassModel) spec(ctx context.Context, diags *diag.Diagnostics) nodeclass.Spec {
	s := nodeclass.Spec{
		Name:                     m.Name.ValueString(),
		AMIFamily:                m.AMIFamily.ValueString(),
		Role:                     m.Role.ValueString(),
		InstanceProfile:          m.InstanceProfile.ValueString(),
		AssociatePublicIPAddress: boolPtr(m.AssociatePublicIPAddress),
		IPPrefixCount:            intPtr(m.IPPrefixCount),
		EFA:                      m.EFA.ValueBool(),
		InstanceStorePolicy:      m.InstanceStorePolicy.ValueString(),
		DetailedMonitoring:       boolPtr(m.DetailedMonitoring),
		UserData:                 strPtr(m.UserData),
		Tags:                     tagsFromMap(m.Tags),
		MetadataOptions:          nodeclass.DefaultMetadataOptions(),
	}
	for _, t := range m.AMISelectorTerms {
		s.AMISelectorTerms = append(s.AMISelectorTerms, nodeclass.AMITerm{
			Alias: t.Alias.ValueString(), ID: t.ID.ValueString(), Name: t.Name.ValueString(), Owner: t.Owner.ValueString(),
			SSMParameter: t.SSMParameter.ValueString(), Tags: tagsFromMap(t.Tags),
		})
	}
	if m.SubnetSelectorTerms != nil {
		s.SubnetTerms = subnetTermsFrom(asSelectorTerms(m.SubnetSelectorTerms))
	}
	if m.SecurityGroupSelectorTerms != nil {
		s.SecurityGroupTerms = securityGroupTermsFrom(m.SecurityGroupSelectorTerms)
	}
	if m.NetworkInterfaces != nil {
		s.NetworkInterfaces = []capacity.Interface{}
		for _, ni := range m.NetworkInterfaces {
			s.NetworkInterfaces = append(s.NetworkInterfaces, capacity.Interface{
				NetworkCardIndex: int(ni.NetworkCardIndex.ValueInt64()), DeviceIndex: int(ni.DeviceIndex.ValueInt64()),
				InterfaceType: ni.InterfaceType.ValueString(),
			})
		}
	}
	if n := m.Networking; n != nil {
		s.Networking.PrefixDelegation = n.PrefixDelegation.ValueBool()
		s.Networking.SecurityGroupsForPods = n.SecurityGroupsForPods.ValueBool()
		s.Networking.ReservedENIs = int(n.ReservedENIs.ValueInt64())
		s.Networking.Warm = capacity.WarmTargets{
			ENI: cniIntPtr(n.WarmENITarget), IP: cniIntPtr(n.WarmIPTarget),
			MinimumIP: cniIntPtr(n.MinimumIPTarget), Prefix: cniIntPtr(n.WarmPrefixTarget),
		}
		if n.CustomNetworking != nil {
			s.Networking.CustomNetworking = true
			s.Networking.PodSubnetTerms = subnetTermsFrom(asSelectorTerms(n.CustomNetworking.PodSubnetSelectorTerms))
		}
	}
	s.Kubelet = m.kubelet(ctx, diags)
	if md := m.MetadataOptions; md != nil {
		s.MetadataOptions = nodeclass.MetadataOptions{
			HTTPEndpoint: md.HTTPEndpoint.ValueString(), HTTPProtocolIPv6: md.HTTPProtocolIPv6.ValueString(),
			HTTPPutResponseHopLimit: int(md.HTTPPutResponseHopLimit.ValueInt64()), HTTPTokens: md.HTTPTokens.ValueString(),
		}
	}
	for _, b := range m.BlockDeviceMappings {
		bd := nodeclass.BlockDeviceMapping{DeviceName: b.DeviceName.ValueString(), RootVolume: b.RootVolume.ValueBool()}
		if e := b.EBS; e != nil {
			bd.EBS = &nodeclass.EBS{
				DeleteOnTermination: boolPtr(e.DeleteOnTermination), Encrypted: boolPtr(e.Encrypted), IOPS: intPtr(e.IOPS),
				KMSKeyID: e.KMSKeyID.ValueString(), SnapshotID: e.SnapshotID.ValueString(), Throughput: intPtr(e.Throughput),
				VolumeSize: e.VolumeSize.ValueString(), VolumeType: e.VolumeType.ValueString(),
				VolumeInitializationRate: intPtr(e.VolumeInitializationRate),
			}
		}
		s.BlockDeviceMappings = append(s.BlockDeviceMappings, bd)
	}
	m.launchOptionsInto(&s)
	return s
}

// kubelet is spec.kubelet of the model (the zero value when not set).
func (m *nodeClassModel) kubelet(ctx context.Context, diags *diag.Diagnostics) nodeclass.Kubelet {
	k := m.Kubelet
	if k == nil {
		return nodeclass.Kubelet{}
	}
	return nodeclass.Kubelet{
		MaxPods: intPtr(k.MaxPods), PodsPerCore: intPtr(k.PodsPerCore), ClusterDNS: stringList(ctx, k.ClusterDNS, diags),
		SystemReserved: tagsFromMap(k.SystemReserved), KubeReserved: tagsFromMap(k.KubeReserved),
		EvictionHard: tagsFromMap(k.EvictionHard), EvictionSoft: tagsFromMap(k.EvictionSoft),
		EvictionSoftGracePeriod:     tagsFromMap(k.EvictionSoftGracePeriod),
		EvictionMaxPodGracePeriod:   intPtr(k.EvictionMaxPodGracePeriod),
		ImageGCHighThresholdPercent: intPtr(k.ImageGCHighThresholdPercent),
		ImageGCLowThresholdPercent:  intPtr(k.ImageGCLowThresholdPercent),
		CPUCFSQuota:                 boolPtr(k.CPUCFSQuota),
		MaxPodsExpression:           k.MaxPodsExpression.ValueString(),
		Config:                      dynamicObject(k.Config, diags),
	}
}

// launchOptionsInto copies the capacity reservation terms, placement group selector, context,
// cpu_options, connection_tracking and enclave_options into the spec.
func (m *nodeClassModel) launchOptionsInto(s *nodeclass.Spec) {
	for _, t := range m.CapacityReservationSelectorTerms {
		s.CapacityReservationTerms = append(s.CapacityReservationTerms, discovery.CapacityReservationTerm{
			ID: t.ID.ValueString(), OwnerID: t.OwnerID.ValueString(), Tags: tagsFromMap(t.Tags),
			InstanceMatchCriteria: t.InstanceMatchCriteria.ValueString(),
		})
	}
	if pg := m.PlacementGroupSelector; pg != nil {
		s.PlacementGroupSelector = &discovery.PlacementGroupSelector{ID: pg.ID.ValueString(), Name: pg.Name.ValueString()}
	}
	s.Context = m.Context.ValueString()
	if c := m.CPUOptions; c != nil {
		s.CPUOptions = &nodeclass.CPUOptions{NestedVirtualization: c.NestedVirtualization.ValueString()}
	}
	if ct := m.ConnectionTracking; ct != nil {
		s.ConnectionTracking = &nodeclass.ConnectionTracking{TCPEstablishedTimeout: intPtr(ct.TCPEstablishedTimeout),
			UDPStreamTimeout: intPtr(ct.UDPStreamTimeout), UDPTimeout: intPtr(ct.UDPTimeout)}
	}
	if e := m.EnclaveOptions; e != nil {
		s.EnclaveOptions = e.Enabled.ValueBoolPointer()
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func emptyNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
