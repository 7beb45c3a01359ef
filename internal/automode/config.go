// Package automode holds the EKS Auto Mode NodeClass (eks.amazonaws.com/v1) as plain Go values:
// its configuration, the rules the provider checks beyond its schema, its manifest, and its
// resolution against EC2 into the class a node pool plans with. AWS publishes no CRD for it:
// the rules come from the EKS user guide, and each names its page. No Terraform, no SDK.
package automode

import (
	"slices"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Config is a karpenter_auto_mode_node_class resource's inputs as its schema shapes them (the
// provider decodes the plan straight into it by the tfsdk tags).
type Config struct {
	Name                             string                            `tfsdk:"name"`
	Role                             string                            `tfsdk:"role"`
	InstanceProfile                  string                            `tfsdk:"instance_profile"`
	SubnetSelectorTerms              []discovery.SubnetTerm            `tfsdk:"subnet_selector_terms"`
	SecurityGroupSelectorTerms       []discovery.SecurityGroupTerm     `tfsdk:"security_group_selector_terms"`
	PodSubnetSelectorTerms           []discovery.SubnetTerm            `tfsdk:"pod_subnet_selector_terms"`
	PodSecurityGroupSelectorTerms    []PodSecurityGroupTerm            `tfsdk:"pod_security_group_selector_terms"`
	CapacityReservationSelectorTerms []ReservationTerm                 `tfsdk:"capacity_reservation_selector_terms"`
	SNATPolicy                       string                            `tfsdk:"snat_policy"`
	NetworkPolicy                    string                            `tfsdk:"network_policy"`
	NetworkPolicyEventLogs           string                            `tfsdk:"network_policy_event_logs"`
	EphemeralStorage                 *EphemeralStorage                 `tfsdk:"ephemeral_storage"`
	Tags                             map[string]string                 `tfsdk:"tags"`
	AdvancedNetworking               *AdvancedNetworking               `tfsdk:"advanced_networking"`
	AdvancedSecurity                 *AdvancedSecurity                 `tfsdk:"advanced_security"`
	PlacementGroupSelector           *discovery.PlacementGroupSelector `tfsdk:"placement_group_selector"`
	CertificateBundles               []CertificateBundle               `tfsdk:"certificate_bundles"`
}

// PodSecurityGroupTerm is one pod_security_group_selector_terms entry: id or tags.
type PodSecurityGroupTerm struct {
	ID   string            `tfsdk:"id"`
	Tags map[string]string `tfsdk:"tags"`
}

// ReservationTerm is one capacity_reservation_selector_terms entry: id, or tags with the owning
// account (`owner`, where Karpenter's EC2NodeClass says `ownerID`).
type ReservationTerm struct {
	ID    string            `tfsdk:"id"`
	Tags  map[string]string `tfsdk:"tags"`
	Owner string            `tfsdk:"owner"`
}

// EphemeralStorage is `ephemeral_storage`.
type EphemeralStorage struct {
	Size       string `tfsdk:"size"`
	IOPS       *int64 `tfsdk:"iops"`
	Throughput *int64 `tfsdk:"throughput"`
	KMSKeyID   string `tfsdk:"kms_key_id"`
}

// AdvancedNetworking is `advanced_networking`.
type AdvancedNetworking struct {
	AssociatePublicIPAddress *bool    `tfsdk:"associate_public_ip_address"`
	HTTPSProxy               string   `tfsdk:"https_proxy"`
	NoProxy                  []string `tfsdk:"no_proxy"`
	IPv4PrefixSize           string   `tfsdk:"ipv4_prefix_size"`
	EnableV4Egress           *bool    `tfsdk:"enable_v4_egress"`
	// NetworkInterfaces is a static ENI layout (nil: Auto Mode's own).
	NetworkInterfaces []NetworkInterface `tfsdk:"network_interfaces"`
}

// NetworkInterface is one `advanced_networking.network_interfaces` entry.
type NetworkInterface struct {
	NetworkCardIndex         int64  `tfsdk:"network_card_index"`
	DeviceIndex              int64  `tfsdk:"device_index"`
	InterfaceType            string `tfsdk:"interface_type"`
	SecondaryIPv4Count       *int64 `tfsdk:"secondary_ipv4_count"`
	SecondaryIPv4PrefixCount *int64 `tfsdk:"secondary_ipv4_prefix_count"`
}

// StaticPodAddresses is what a static interface layout gives pods: the secondary addresses and
// 16 per prefix on network card 0, since Auto Mode adds no IPs, prefixes or ENIs after launch;
// nil without a layout (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html).
func (c Config) StaticPodAddresses() *int64 {
	if c.AdvancedNetworking == nil || c.AdvancedNetworking.NetworkInterfaces == nil {
		return nil
	}
	var n int64
	for _, i := range c.AdvancedNetworking.NetworkInterfaces {
		if i.SecondaryIPv4Count != nil {
			n += *i.SecondaryIPv4Count
		}
		if i.SecondaryIPv4PrefixCount != nil {
			n += 16 * *i.SecondaryIPv4PrefixCount
		}
	}
	return &n
}

// AdvancedSecurity is `advanced_security`.
type AdvancedSecurity struct {
	FIPS           *bool  `tfsdk:"fips"`
	KernelLockdown string `tfsdk:"kernel_lockdown"`
}

// CertificateBundle is one `certificate_bundles` entry.
type CertificateBundle struct {
	Name string `tfsdk:"name"`
	Data string `tfsdk:"data"`
}

// IPv4PrefixSize values: Auto (/28 prefixes, falling back to secondary IPs) and "32" (secondary
// IPs only). https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html
const (
	PrefixSizeAuto = "Auto"
	PrefixSize32   = "32"
)

// PrefixSize is the class's ipv4PrefixSize, Auto when not set.
func (c Config) PrefixSize() string {
	if c.AdvancedNetworking != nil && c.AdvancedNetworking.IPv4PrefixSize != "" {
		return c.AdvancedNetworking.IPv4PrefixSize
	}
	return PrefixSizeAuto
}

// ReservedName is the NodeClass EKS creates for the built-in node pools: a custom class must
// not take it. https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html
const ReservedName = "default"

// Validate applies the rules the schema cannot hold (those on the object's name); the
// manifest's admission applies the rest.
func Validate(c Config) []attrpath.Finding {
	var out []attrpath.Finding
	if c.Name == ReservedName {
		out = append(out, attrpath.Finding{Path: attrpath.Of("name"), Summary: "Reserved NodeClass name",
			Message: `"default" is the NodeClass EKS Auto Mode creates for its built-in node pools; a custom NodeClass must be named ` +
				"otherwise (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)."})
	}
	return out
}

// Manifest renders the class as the eks.amazonaws.com/v1 NodeClass the cluster stores.
func (c Config) Manifest() (string, error) {
	spec := manifest.AutoModeNodeClassSpec{
		Role: c.Role, InstanceProfile: c.InstanceProfile,
		SubnetSelectorTerms:        subnetTerms(c.SubnetSelectorTerms),
		SecurityGroupSelectorTerms: groupTerms(c.SecurityGroupSelectorTerms),
		PodSubnetSelectorTerms:     subnetTerms(c.PodSubnetSelectorTerms),
		SNATPolicy:                 c.SNATPolicy, NetworkPolicy: c.NetworkPolicy, NetworkPolicyEventLogs: c.NetworkPolicyEventLogs,
		Tags: c.Tags,
	}
	for _, t := range c.PodSecurityGroupSelectorTerms {
		spec.PodSecurityGroupSelectorTerms = append(spec.PodSecurityGroupSelectorTerms, manifest.SecurityGroupSelectorTerm{ID: t.ID, Tags: t.Tags})
	}
	for _, t := range c.CapacityReservationSelectorTerms {
		spec.CapacityReservationSelectorTerms = append(spec.CapacityReservationSelectorTerms, manifest.AutoModeReservationTerm(t))
	}
	if e := c.EphemeralStorage; e != nil {
		spec.EphemeralStorage = &manifest.AutoModeEphemeralStorage{Size: e.Size, IOPS: e.IOPS, Throughput: e.Throughput, KMSKeyID: e.KMSKeyID}
	}
	if a := c.AdvancedNetworking; a != nil {
		spec.AdvancedNetworking = &manifest.AutoModeAdvancedNetworking{AssociatePublicIPAddress: a.AssociatePublicIPAddress,
			HTTPSProxy: a.HTTPSProxy, NoProxy: slices.Clone(a.NoProxy), IPv4PrefixSize: a.IPv4PrefixSize, EnableV4Egress: a.EnableV4Egress}
		for _, i := range a.NetworkInterfaces {
			spec.AdvancedNetworking.NetworkInterfaces = append(spec.AdvancedNetworking.NetworkInterfaces, manifest.AutoModeNetworkInterface(i))
		}
	}
	if p := c.PlacementGroupSelector; p != nil {
		spec.PlacementGroupSelector = &manifest.PlacementGroupSelector{ID: p.ID, Name: p.Name}
	}
	if a := c.AdvancedSecurity; a != nil {
		spec.AdvancedSecurity = &manifest.AutoModeAdvancedSecurity{FIPS: a.FIPS, KernelLockdown: a.KernelLockdown}
	}
	for _, b := range c.CertificateBundles {
		spec.CertificateBundles = append(spec.CertificateBundles, manifest.AutoModeCertificateBundle(b))
	}
	return manifest.RenderAutoModeNodeClass(manifest.AutoModeNodeClass{Name: c.Name, Spec: spec})
}

func subnetTerms(in []discovery.SubnetTerm) []manifest.SubnetSelectorTerm {
	var out []manifest.SubnetSelectorTerm
	for _, t := range in {
		out = append(out, manifest.SubnetSelectorTerm{ID: t.ID, Tags: t.Tags})
	}
	return out
}

func groupTerms(in []discovery.SecurityGroupTerm) []manifest.SecurityGroupSelectorTerm {
	var out []manifest.SecurityGroupSelectorTerm
	for _, t := range in {
		out = append(out, manifest.SecurityGroupSelectorTerm{ID: t.ID, Name: t.Name, Tags: t.Tags})
	}
	return out
}
