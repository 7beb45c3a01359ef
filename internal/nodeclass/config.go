package nodeclass

import (
	"fmt"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Config is a karpenter_node_class resource's inputs as its schema shapes them (the provider
// decodes the plan straight into it by the tfsdk tags); Spec reads it.
type Config struct {
	Name             string    `tfsdk:"name"`
	AMIFamily        string    `tfsdk:"ami_family"`
	AMISelectorTerms []AMITerm `tfsdk:"ami_selector_terms"`
	Role             string    `tfsdk:"role"`
	InstanceProfile  string    `tfsdk:"instance_profile"`
	// InstanceProfileForStaticPools: with Role, the provider creates an instance profile of its
	// own for the static pools it launches (fleet.Profiles); nil or false, the class has none.
	InstanceProfileForStaticPools *bool                         `tfsdk:"instance_profile_for_static_pools"`
	SubnetSelectorTerms           []discovery.SubnetTerm        `tfsdk:"subnet_selector_terms"`
	SecurityGroupSelectorTerms    []discovery.SecurityGroupTerm `tfsdk:"security_group_selector_terms"`
	AssociatePublicIPAddress      *bool                         `tfsdk:"associate_public_ip_address"`
	IPPrefixCount                 *int                          `tfsdk:"ip_prefix_count"`
	NetworkInterfaces             []capacity.Interface          `tfsdk:"network_interfaces"`
	EFA                           bool                          `tfsdk:"efa"`
	Networking                    *NetworkingConfig             `tfsdk:"networking"`
	Kubelet                       *KubeletConfig                `tfsdk:"kubelet"`
	MetadataOptions               *MetadataOptionsConfig        `tfsdk:"metadata_options"`
	BlockDeviceMappings           []BlockDeviceMapping          `tfsdk:"block_device_mappings"`
	InstanceStorePolicy           string                        `tfsdk:"instance_store_policy"`
	DetailedMonitoring            *bool                         `tfsdk:"detailed_monitoring"`
	UserData                      *string                       `tfsdk:"user_data"`
	Tags                          map[string]string             `tfsdk:"tags"`
	Connectivity                  *ConnectivityConfig           `tfsdk:"connectivity"`

	CapacityReservationSelectorTerms []discovery.CapacityReservationTerm `tfsdk:"capacity_reservation_selector_terms"`
	PlacementGroupSelector           *discovery.PlacementGroupSelector   `tfsdk:"placement_group_selector"`
	Context                          string                              `tfsdk:"context"`
	CPUOptions                       *CPUOptions                         `tfsdk:"cpu_options"`
	ConnectionTracking               *ConnectionTracking                 `tfsdk:"connection_tracking"`
	EnclaveOptions                   *EnclaveOptionsConfig               `tfsdk:"enclave_options"`
	// Metadata is the EC2NodeClass object's own labels and annotations.
	Metadata *manifest.ObjectMetadata `tfsdk:"metadata"`
}

// ProfileForStaticPools reports whether the provider creates the class's instance profile for
// the static pools it launches (`instance_profile_for_static_pools`).
func (c Config) ProfileForStaticPools() bool {
	return c.InstanceProfileForStaticPools != nil && *c.InstanceProfileForStaticPools
}

// NetworkingConfig is the provider-only `networking` attribute.
type NetworkingConfig struct {
	PrefixDelegation      bool                    `tfsdk:"prefix_delegation"`
	CustomNetworking      *CustomNetworkingConfig `tfsdk:"custom_networking"`
	SecurityGroupsForPods bool                    `tfsdk:"security_groups_for_pods"`
	ReservedENIs          int                     `tfsdk:"reserved_enis"`
	WarmENITarget         *int                    `tfsdk:"warm_eni_target"`
	WarmIPTarget          *int                    `tfsdk:"warm_ip_target"`
	MinimumIPTarget       *int                    `tfsdk:"minimum_ip_target"`
	WarmPrefixTarget      *int                    `tfsdk:"warm_prefix_target"`
	CNIRole               string                  `tfsdk:"cni_role"`
}

// CustomNetworkingConfig is `networking.custom_networking`: set, it turns custom networking on.
type CustomNetworkingConfig struct {
	PodSubnetSelectorTerms []discovery.SubnetTerm `tfsdk:"pod_subnet_selector_terms"`
}

// KubeletConfig is the `kubelet` attribute: Kubelet's typed fields, and `config` (dynamic),
// which must hold an object of KubeletConfiguration fields.
type KubeletConfig struct {
	Kubelet
	Config any `tfsdk:"config"`
}

// EnclaveOptionsConfig is the `enclave_options` attribute.
type EnclaveOptionsConfig struct {
	Enabled *bool `tfsdk:"enabled"`
}

// ConnectivityConfig is the provider-only `connectivity` attribute.
type ConnectivityConfig struct {
	ControlPlaneSecurityGroupIDs           []string                      `tfsdk:"control_plane_security_group_ids"`
	ControlPlaneSecurityGroupSelectorTerms []discovery.SecurityGroupTerm `tfsdk:"control_plane_security_group_selector_terms"`
	Checks                                 string                        `tfsdk:"checks"`
}

// CNIOwnRole reports whether the VPC CNI runs with a role of its own (IRSA or Pod Identity), so
// the node role needs none of its actions.
func (n *NetworkingConfig) CNIOwnRole() bool {
	return n != nil && n.CNIRole != "" && n.CNIRole != "node"
}

// Setting is the connectivity setting of the checks; an unset block runs them as warnings
// (node_to_node only: no control-plane groups are named).
func (c *ConnectivityConfig) Setting() Connectivity {
	if c == nil {
		return Connectivity{Mode: ChecksWarn}
	}
	mode := c.Checks
	if mode == "" {
		mode = ChecksWarn
	}
	return Connectivity{Configured: true, Mode: mode, ControlPlaneIDs: c.ControlPlaneSecurityGroupIDs,
		ControlPlaneTerms: nonNil(c.ControlPlaneSecurityGroupSelectorTerms)}
}

// nonNil is s, or an empty slice for nil: a list that is known and empty, not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

var pathKubeletConfig = attrpath.Of("kubelet", "config")

// Spec is the class as the rules read it: metadata options default to the CRD's, custom
// networking is on when its block is set, and omitted selector terms stay nil (ApplyDefaultTerms).
// A `kubelet.config` that is not an object is a finding.
func (c Config) Spec() (Spec, []attrpath.Finding) {
	s := Spec{Name: c.Name, AMIFamily: c.AMIFamily, AMISelectorTerms: c.AMISelectorTerms, Role: c.Role, InstanceProfile: c.InstanceProfile,
		SubnetTerms: c.SubnetSelectorTerms, SecurityGroupTerms: c.SecurityGroupSelectorTerms,
		AssociatePublicIPAddress: c.AssociatePublicIPAddress, IPPrefixCount: c.IPPrefixCount, NetworkInterfaces: c.NetworkInterfaces,
		EFA: c.EFA, BlockDeviceMappings: c.BlockDeviceMappings, InstanceStorePolicy: c.InstanceStorePolicy,
		DetailedMonitoring: c.DetailedMonitoring, UserData: c.UserData, Tags: c.Tags, MetadataOptions: DefaultMetadataOptions(),
		CapacityReservationTerms: c.CapacityReservationSelectorTerms, PlacementGroupSelector: c.PlacementGroupSelector,
		Context: c.Context, CPUOptions: c.CPUOptions, ConnectionTracking: c.ConnectionTracking}
	if c.Metadata != nil {
		s.Object = *c.Metadata
	}
	if n := c.Networking; n != nil {
		s.Networking = Networking{PrefixDelegation: n.PrefixDelegation, SecurityGroupsForPods: n.SecurityGroupsForPods,
			ReservedENIs: n.ReservedENIs, Warm: capacity.WarmTargets{ENI: n.WarmENITarget, IP: n.WarmIPTarget,
				MinimumIP: n.MinimumIPTarget, Prefix: n.WarmPrefixTarget}}
		if n.CustomNetworking != nil {
			s.Networking.CustomNetworking = true
			s.Networking.PodSubnetTerms = nonNil(n.CustomNetworking.PodSubnetSelectorTerms)
		}
	}
	var findings []attrpath.Finding
	if k := c.Kubelet; k != nil {
		s.Kubelet = k.Kubelet
		switch cfg := k.Config.(type) {
		case nil:
		case map[string]any:
			s.Kubelet.Config = cfg
		default:
			findings = append(findings, attrpath.Finding{Path: pathKubeletConfig, Summary: "Invalid kubelet.config",
				Message: fmt.Sprintf("must be an object of KubeletConfiguration fields, got %T", cfg)})
		}
	}
	if c.MetadataOptions != nil {
		s.MetadataOptions = c.MetadataOptions.WithDefaults()
	}
	if c.EnclaveOptions != nil {
		s.EnclaveOptions = c.EnclaveOptions.Enabled
	}
	return s, findings
}
