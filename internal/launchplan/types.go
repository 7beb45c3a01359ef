// Package launchplan computes, from a resolved node class, a node pool's requirements and the
// instance-type catalog, what Karpenter would launch: the eligible instance types, the zone and
// subnet for each, max pods and IP consumption per type, the launch-template groups with their
// interface layouts and user data, the CreateFleet options, and the capacity the subnets and
// limits allow. Pure: no Terraform, no AWS SDK.
package launchplan

import (
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/reservations"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

// MaxInstanceTypes is Karpenter's cap on the instance types one CreateFleet call carries.
const MaxInstanceTypes = 60

// Subnet is one resolved node-class subnet.
type Subnet struct {
	ID, Zone, ZoneID string
	AvailableIPs     int
}

// PodSubnet is the custom-networking subnet of one zone.
type PodSubnet struct {
	Zone, ID     string
	AvailableIPs int
}

// BlockDevice is one block device mapping, as written into a launch template.
type BlockDevice struct {
	DeviceName          string
	RootVolume          bool
	DeleteOnTermination *bool
	Encrypted           *bool
	IOPS                *int
	KMSKeyID            string
	SnapshotID          string
	Throughput          *int
	VolumeSizeGiB       int // converted from the quantity; 0 when unset
	VolumeType          string
}

// MetadataOptions are the instance metadata settings of the launch templates.
type MetadataOptions struct {
	HTTPEndpoint, HTTPProtocolIPv6, HTTPTokens string
	HTTPPutResponseHopLimit                    int
}

// Kubelet is what user data passes to the kubelet besides max pods.
type Kubelet struct {
	ClusterDNS     []string
	SystemReserved map[string]string
	KubeReserved   map[string]string
	EvictionHard   map[string]string
}

// Class is a node class as the planner needs it (the node class resource's `resolved`).
type Class struct {
	Name      string
	AMIFamily string
	// AMIs are the images the class resolved to at plan, in Karpenter's order; each instance
	// type launches with the first that serves it.
	AMIs []nodeclass.AMI
	// AMIUnresolved says why an alias resolved to no image at plan ("" when it did, or when the
	// class has no alias).
	AMIUnresolved            string
	Subnets                  []Subnet // Karpenter's order
	SecurityGroupIDs         []string
	PodSubnets               []PodSubnet
	AssociatePublicIPAddress *bool
	IPPrefixCount            *int
	NetworkInterfaces        []capacity.Interface // nil: not configured
	EFA                      bool
	CNI                      capacity.Settings // AMI family, prefix delegation, custom networking, SGP, reserved ENIs, interfaces, kubelet max/ppc
	Kubelet                  Kubelet
	MetadataOptions          MetadataOptions
	BlockDevices             []BlockDevice
	DetailedMonitoring       bool
	UserData                 string
	Tags                     map[string]string
	InstanceProfile          string
	// Hash is Karpenter's EC2NodeClass hash of the class ("" when unknown): what its nodes'
	// karpenter.k8s.aws/ec2nodeclass-hash annotation must equal not to drift.
	Hash string
	// HashVersion is the hash version Hash was computed with (Karpenter's
	// ec2nodeclass-hash-version: v4, v5 or v6 by the provider's karpenter_version).
	HashVersion string
	// CapacityReservationIDs are the capacity reservations the class selects (drift only: the
	// planner launches no reserved capacity).
	CapacityReservationIDs []string
	// Reservations are those reservations in full (ids sorted): the offerings a pool that allows
	// `reserved` launches into first, with their counts as of the class's last record.
	Reservations []reservations.Reservation
	// PlacementGroupID is the placement group the class selects ("" without one; drift only:
	// Karpenter's PlacementGroupDrift compares it with the node's placement-group-id label).
	PlacementGroupID string
	// PlacementGroupStrategy is that group's strategy ("cluster", "partition" or "spread"; "" without
	// one): Karpenter offers the class only the types that support it.
	PlacementGroupStrategy string
	// NestedVirtualization is cpuOptions.nestedVirtualization "enabled", NitroEnclaves
	// enclaveOptions.enabled, and ConnectionTracking a connectionTracking with a timeout set (as
	// rendered: an empty one is left out): Karpenter offers such a class only the types with
	// nested virtualization, with Nitro Enclaves, and on the Nitro hypervisor (settingDrop).
	NestedVirtualization, NitroEnclaves, ConnectionTracking bool
	// AutoMode is an EKS Auto Mode NodeClass's networking; nil for an EC2NodeClass. Its nodes
	// run Auto Mode's own images and networking: no AMIs, user data, launch templates or VPC CNI.
	AutoMode *capacity.AutoMode
	// AutoModeStaticAddresses are the pod addresses of an Auto Mode class's static interface
	// layout (nil: Auto Mode's own networking).
	AutoModeStaticAddresses *int64
}

// Bootstrap are the facts of the cluster a node joins: the API server endpoint, its CA bundle
// (base64 PEM, as EKS hands it out) and the service IPv4 CIDR. nodeadm (AL2023) refuses a
// NodeConfig without all three; AL2, Bottlerocket and Windows bootstrap without asking EKS when
// given them.
type Bootstrap struct {
	Endpoint    string
	CABundle    string
	ServiceCIDR string
}

// Missing names the facts that are not set, by the provider's attribute names.
func (b Bootstrap) Missing() []string {
	var out []string
	for _, f := range []struct{ name, v string }{
		{"cluster_endpoint", b.Endpoint}, {"cluster_certificate_authority_data", b.CABundle}, {"cluster_service_cidr", b.ServiceCIDR},
	} {
		if f.v == "" {
			out = append(out, f.name)
		}
	}
	return out
}

// SiblingPool is another NodePool of the cluster on the pool's class, as overlays select its
// nodes: its name and template labels.
type SiblingPool struct {
	Name           string
	TemplateLabels map[string]string
}

// Input is everything one node pool plan depends on.
type Input struct {
	PoolName    string
	ClusterName string // "" when the provider has none
	// OwnerID identifies the Terraform resource instance that owns the pool's EC2 objects
	// (TagOwner); "" leaves the tag out.
	OwnerID string
	// Bootstrap are the cluster facts a node needs to join, written into the user data.
	Bootstrap    Bootstrap
	Region       string
	Class        Class
	Requirements []requirements.Requirement
	Limits       map[string]string // cpu, memory, nodes, … as Kubernetes quantities
	Replicas     *int              // static capacity the provider launches
	// KarpenterReplicas is a static pool Karpenter launches (launcher = "karpenter"): planned as
	// a dynamic pool, with its cost and the subnets' room counted for that many nodes.
	KarpenterReplicas *int
	Catalog           *catalog.Catalog
	// Prices order the eligible types as Karpenter does (cheapest compatible offering first);
	// nil plans with Karpenter's embedded on-demand table, as Karpenter starts.
	Prices *pricing.Prices
	// MinValuesBestEffort is Karpenter's BestEffort min-values policy: a launch whose 60
	// cheapest types miss a requirement's min_values goes ahead (a warning) instead of failing.
	MinValuesBestEffort bool
	// Workloads are deployments to fit into the pool, by name (the pool's `workloads` keys).
	Workloads map[string]workloadfit.Workload
	// KarpenterVersion is the Karpenter minor that launches ("1.15"; "" is
	// manifest.DefaultVersion): its compatibility checks decide what it offers.
	KarpenterVersion string
	// Overlays are the cluster's NodeOverlays (the pool's node_overlays): Karpenter changes the
	// prices and capacity of the types they select before it orders and costs them. nil: none.
	Overlays []nodeoverlay.Config
	// TemplateLabels are the labels of the pool's nodes (template.labels), which overlays can select.
	TemplateLabels map[string]string
	// SiblingPools are the cluster's other NodePools on the same EC2NodeClass: Karpenter judges
	// the overlays' conflicts over every NodePool's types, and ignores a conflicting overlay in
	// every pool. Nil (no view of the cluster): conflicts are judged on this pool's types alone,
	// which a conflict finding says.
	SiblingPools []SiblingPool
	// ReservedCapacityOff says the cluster's Karpenter runs with its ReservedCapacity feature
	// gate off (it is on by default): no reserved offerings, and on-demand launches consume open
	// reservations as EC2 applies them.
	ReservedCapacityOff bool
	// Now is the plan's clock, for Capacity Blocks that have not started, are expiring or end
	// within CapacityBlockHorizon (0: reservations.DefaultHorizon). Zero skips those findings.
	Now                  time.Time
	CapacityBlockHorizon time.Duration
}

// TypePlan is one eligible instance type.
type TypePlan struct {
	Name                 string
	VCPUs                int
	MemoryMiB            int
	Zones                []string // zones of the pool where it is offered and allowed
	CapacityTypes        []string // on-demand, spot, … allowed for it
	MaxPods              int
	ENILimitedPods       int
	KarpenterAssumedPods int
	VPCIPsAtMaxPods      int
	EFAInterfaces        int
	// PodSubnetIPsAtMaxPods is what a full node takes from the custom-networking pod subnet
	// (0 without custom networking).
	PodSubnetIPsAtMaxPods int
	LaunchTemplate        string // name of its group
	// Price is the hourly price of its cheapest offering the pool allows (Karpenter's sort key),
	// as PriceCapacityType in PriceZone.
	Price                    float64
	PriceCapacityType        string
	PriceZone                string
	OnDemandPrice, SpotPrice *float64 // cheapest allowed offering of each capacity type; nil: none
	// Extended are the extended resources NodeOverlays add to its capacity (nil: none).
	Extended map[string]string
}

// ZonePlan is one zone the pool can launch into.
type ZonePlan struct {
	Zone         string
	SubnetID     string // Karpenter's pick: most free IPs, then id
	AvailableIPs int
	PodSubnetID  string // custom networking only
	// PodSubnetAvailableIPs are the free IPs of PodSubnetID (custom networking only).
	PodSubnetAvailableIPs int
}

// Option is one CreateFleet override: where and as what a node may launch.
type Option struct {
	InstanceType   string
	Zone           string
	SubnetID       string
	CapacityType   string
	MaxPods        int
	VPCIPsAtMax    int
	LaunchTemplate string
	Price          float64 // the offering's hourly price: CreateFleet's override priority, as Karpenter sets it
}

// ZoneCapacity says how many nodes a zone can hold.
//
// NodesByIPs divides free addresses by the addresses a full node of the hungriest launchable type
// takes. Without custom networking that is the node subnet (AvailableIPs / VPCIPsAtMaxPods). With
// custom networking pods draw from the zone's pod subnet, so the bound is the smaller of the pod
// subnet's free IPs / PodSubnetIPsAtMaxPods and the node subnet's free IPs / the node-subnet IPs;
// IPBasis says which subnet bounds it.
type ZoneCapacity struct {
	Zone         string
	AvailableIPs int
	NodesByIPs   int // free IPs / the hungriest type's IPs at max pods; 0 when no type launches here

	HungriestType string // the launchable type with the most IPs per full node here
	IPsPerNode    int    // its IPs per full node, from the subnet named by IPBasis
	MaxPods       int    // its max pods
	IPBasis       string // IPBasisNodeSubnet or IPBasisPodSubnet
	// PodSubnetAvailableIPs are the free IPs of the zone's pod subnet (custom networking only).
	PodSubnetAvailableIPs int
}

// ZoneCapacity.IPBasis values.
const (
	IPBasisNodeSubnet = "node subnet"
	IPBasisPodSubnet  = "pod subnet"
)

// Interface is one network interface of a launch template.
type Interface struct {
	NetworkCardIndex         int
	DeviceIndex              int
	InterfaceType            string // interface, efa, efa-only
	SecurityGroupIDs         []string
	AssociatePublicIPAddress *bool
	IPv4PrefixCount          *int
}

// LaunchTemplate is one group of instance types that share max pods and interface layout.
type LaunchTemplate struct {
	Name               string // <cluster or "karpenter">/<pool>/<hash>
	MaxPods            int
	InstanceTypes      []string
	NetworkInterfaces  []Interface
	UserData           string // plain text; base64 is the adapter's job
	ImageID            string // the AMI of the group's types, "" when the class's alias was not resolved at plan
	MetadataOptions    MetadataOptions
	BlockDevices       []BlockDevice
	DetailedMonitoring bool
	InstanceProfile    string
	Tags               map[string]string // class tags + ownership tags
}

// Problem is an error or warning at an attribute path of the node pool: the node pool
// package's, so validation and planning speak one vocabulary.
type Problem = nodepool.Problem

// Summaries of the planner's warnings.
const (
	SummarySubnetsTooSmall     = "Subnets too small for the pool's limits"
	SummarySubnetsTooSmallFor  = "Subnets too small for the pool's replicas"
	SummaryMinValuesAtRisk     = "min_values not met"
	SummaryPriceFallback       = "Prices from Karpenter's embedded table"
	SummaryNoPrice             = "Instance types without a price"
	SummaryMaxPodsDisagree     = "Karpenter and the kubelet disagree on max pods"
	SummaryMaxPodsUnaddressed  = "Max pods above what the ENIs can address"
	SummaryPrefixFallback      = "Prefix delegation falls back to secondary IPs"
	SummaryNoPodSubnet         = "No pod subnet in a node zone"
	SummaryReservedIgnored     = "Reserved capacity type ignored"
	SummaryCapacityTypeDefault = "Spot first: no capacity-type requirement"
	SummaryOverlayConflict     = "NodeOverlay ignored by Karpenter"
	SummaryTypesDropped        = "Instance types dropped from the pool"
	SummaryNotInZones          = "Instance types not offered in the pool's zones"
	SummaryPublicIPInterfaces  = "Public IP with several network interfaces"
	SummaryNoClusterName       = "Nodes cannot name their cluster"
	SummaryCustomMaxPods       = "Custom AMI family without max pods"
	SummaryUserDataReplaced    = "User data setting replaced"
	SummaryUserDataMIME        = "User data is not readable MIME"
)

// Plan is the result.
type Plan struct {
	InstanceTypes   []TypePlan
	Zones           []ZonePlan
	LaunchPlan      []Option
	Capacity        []ZoneCapacity
	LaunchTemplates []LaunchTemplate
	Warnings        []Problem

	// NodesByIPs is the sum of Capacity[].NodesByIPs: the nodes the pool's subnets can address.
	NodesByIPs int
	// NodesByLimits is the most nodes the pool's limits allow, computed with the smallest
	// launchable type; -1 when no limit bounds nodes.
	NodesByLimits int

	// Cost bounds what the pool costs per hour at the plan's prices.
	Cost Cost
	// PriceSource names where the plan's prices came from.
	PriceSource string
	// Overlays are the NodeOverlays that change some eligible type, heaviest first.
	Overlays []OverlayUse
	// LaunchTypes are the types of LaunchPlan in Karpenter's order (at most MaxInstanceTypes):
	// InstanceTypes after the launch filters (exotic types, dear spot offerings) and the cut.
	LaunchTypes []string
	// Workloads answers Input.Workloads, by name.
	Workloads map[string]workloadfit.Result
	// Reservations are the class's reservations as the pool uses them, in Karpenter's order.
	Reservations []reservations.Use
	// ReservationsLine is the summary's `reservations` ("" when the class selects none).
	ReservationsLine string
}

// Cost is a pool's hourly cost bound: a static pool's replicas at the price of the type
// CreateFleet would choose; a dynamic pool's nodes the limits allow at its cheapest type.
type Cost struct {
	Bounded      bool    // false: a dynamic pool without cpu, memory or nodes limits
	Nodes        int     // nodes counted
	InstanceType string  // the type priced
	CapacityType string  // its capacity type
	Price        float64 // its hourly price
	Hourly       float64 // Nodes × Price
	Basis        string  // what bounds Nodes: "replicas", or the limit, e.g. "cpu 1000"
	// ReservedNodes are the nodes capacity reservations cover before Nodes, and ReservedHourly
	// what they would cost on-demand: paid for already, whether used or not.
	ReservedNodes  int
	ReservedHourly float64
}

// Ownership tag keys written on every EC2 object the provider creates for a pool (defined in
// nodeclass, whose instance profiles carry them too).
const (
	TagNodePool  = "karpenter.sh/nodepool"
	TagNodeClass = nodeclass.TagNodeClass
	TagCluster   = "karpenter.k8s.aws/cluster"
	TagManagedBy = nodeclass.TagManagedBy
	TagOwner     = nodeclass.TagOwner
)
