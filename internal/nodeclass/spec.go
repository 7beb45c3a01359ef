// Package nodeclass holds the EC2NodeClass model as plain Go values: its validation rules
// (Karpenter's CRD and CEL rules plus the provider's own), and its resolution against EC2 into
// the subnets, security groups, zones and pod subnets a node pool plans with. No Terraform, no SDK.
package nodeclass

import (
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeletconfig"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// DiscoveryTagKey is Karpenter's conventional discovery tag.
const DiscoveryTagKey = "karpenter.sh/discovery"

// Spec is one EC2NodeClass as the user wrote it (defaults not yet applied, except where noted).
type Spec struct {
	Name string
	// Object are the EC2NodeClass's own labels and annotations.
	Object                   manifest.ObjectMetadata
	AMIFamily                string
	AMISelectorTerms         []AMITerm
	Role                     string
	InstanceProfile          string
	SubnetTerms              []discovery.SubnetTerm
	SecurityGroupTerms       []discovery.SecurityGroupTerm
	AssociatePublicIPAddress *bool
	IPPrefixCount            *int
	NetworkInterfaces        []capacity.Interface // nil: not configured
	EFA                      bool
	Networking               Networking
	Kubelet                  Kubelet
	MetadataOptions          MetadataOptions
	BlockDeviceMappings      []BlockDeviceMapping
	InstanceStorePolicy      string
	DetailedMonitoring       *bool
	UserData                 *string
	Tags                     map[string]string

	// CapacityReservationTerms is spec.capacityReservationSelectorTerms (nil: not configured).
	CapacityReservationTerms []discovery.CapacityReservationTerm
	// PlacementGroupSelector is spec.placementGroupSelector (nil: not configured).
	PlacementGroupSelector *discovery.PlacementGroupSelector
	// Context is spec.context, the reserved EC2 Fleet context.
	Context string
	// CPUOptions is spec.cpuOptions (nil: not configured).
	CPUOptions *CPUOptions
	// ConnectionTracking is spec.connectionTracking (nil: not configured).
	ConnectionTracking *ConnectionTracking
	// EnclaveOptions is spec.enclaveOptions.enabled (nil: not configured; Karpenter v1.15).
	EnclaveOptions *bool
}

// CPUOptions is spec.cpuOptions.
type CPUOptions struct {
	NestedVirtualization string `tfsdk:"nested_virtualization"` // "enabled", "disabled" or "" (unset)
}

// ConnectionTracking is spec.connectionTracking: idle timeouts in seconds of the launch
// template's interfaces; nil fields are left to EC2's defaults.
type ConnectionTracking struct {
	TCPEstablishedTimeout *int `tfsdk:"tcp_established_timeout"`
	UDPStreamTimeout      *int `tfsdk:"udp_stream_timeout"`
	UDPTimeout            *int `tfsdk:"udp_timeout"`
}

// AMITerm is one amiSelectorTerms entry.
type AMITerm struct {
	Alias        string            `tfsdk:"alias"`
	ID           string            `tfsdk:"id"`
	Name         string            `tfsdk:"name"`
	Owner        string            `tfsdk:"owner"`
	SSMParameter string            `tfsdk:"ssm_parameter"`
	Tags         map[string]string `tfsdk:"tags"`
}

// Networking is the VPC CNI setting the node class is used with (provider-only: Karpenter
// cannot express it, so it is not rendered into the manifest).
type Networking struct {
	PrefixDelegation      bool
	CustomNetworking      bool
	PodSubnetTerms        []discovery.SubnetTerm
	SecurityGroupsForPods bool
	ReservedENIs          int
	Warm                  capacity.WarmTargets // ipamd's warm-pool targets (aws-node environment)
}

// Kubelet is spec.kubelet: the typed fields of every version, and Karpenter v1.15's free-form
// fields and CEL maxPods expression.
type Kubelet struct {
	// MaxPodsExpression is v1.15's CEL maxPods, evaluated per instance type ("" when not set).
	MaxPodsExpression string `tfsdk:"max_pods_expression"`
	// Config holds v1.15's other KubeletConfiguration fields by their upstream names (values
	// as JSON decodes them); nil when not set. Its attribute is dynamic: KubeletConfig reads it.
	Config                      map[string]any
	MaxPods                     *int              `tfsdk:"max_pods"`
	PodsPerCore                 *int              `tfsdk:"pods_per_core"`
	ClusterDNS                  []string          `tfsdk:"cluster_dns"`
	SystemReserved              map[string]string `tfsdk:"system_reserved"`
	KubeReserved                map[string]string `tfsdk:"kube_reserved"`
	EvictionHard                map[string]string `tfsdk:"eviction_hard"`
	EvictionSoft                map[string]string `tfsdk:"eviction_soft"`
	EvictionSoftGracePeriod     map[string]string `tfsdk:"eviction_soft_grace_period"`
	EvictionMaxPodGracePeriod   *int              `tfsdk:"eviction_max_pod_grace_period"`
	ImageGCHighThresholdPercent *int              `tfsdk:"image_gc_high_threshold_percent"`
	ImageGCLowThresholdPercent  *int              `tfsdk:"image_gc_low_threshold_percent"`
	CPUCFSQuota                 *bool             `tfsdk:"cpu_cfs_quota"`
}

// MetadataOptions is spec.metadataOptions with Karpenter's CRD defaults filled in.
type MetadataOptions struct {
	HTTPEndpoint            string `tfsdk:"http_endpoint"`
	HTTPProtocolIPv6        string `tfsdk:"http_protocol_ipv6"`
	HTTPPutResponseHopLimit int    `tfsdk:"http_put_response_hop_limit"`
	HTTPTokens              string `tfsdk:"http_tokens"`
}

// MetadataOptionsConfig is the `metadata_options` block as configured: a field left out (nil)
// takes its CRD default, as the API server defaults each field (WithDefaults). The schema gives
// the same defaults at plan; the configuration alone, validated before them, may leave fields out.
type MetadataOptionsConfig struct {
	HTTPEndpoint            *string `tfsdk:"http_endpoint"`
	HTTPProtocolIPv6        *string `tfsdk:"http_protocol_ipv6"`
	HTTPPutResponseHopLimit *int    `tfsdk:"http_put_response_hop_limit"`
	HTTPTokens              *string `tfsdk:"http_tokens"`
}

// WithDefaults is the block with Karpenter's default for each field left out.
func (m MetadataOptionsConfig) WithDefaults() MetadataOptions {
	d := DefaultMetadataOptions()
	if m.HTTPEndpoint != nil {
		d.HTTPEndpoint = *m.HTTPEndpoint
	}
	if m.HTTPProtocolIPv6 != nil {
		d.HTTPProtocolIPv6 = *m.HTTPProtocolIPv6
	}
	if m.HTTPPutResponseHopLimit != nil {
		d.HTTPPutResponseHopLimit = *m.HTTPPutResponseHopLimit
	}
	if m.HTTPTokens != nil {
		d.HTTPTokens = *m.HTTPTokens
	}
	return d
}

// DefaultMetadataOptions are the CRD defaults: IMDS on, IPv6 off, hop limit 1, IMDSv2 required.
func DefaultMetadataOptions() MetadataOptions {
	return MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPPutResponseHopLimit: 1, HTTPTokens: "required"}
}

// BlockDeviceMapping is one spec.blockDeviceMappings entry.
type BlockDeviceMapping struct {
	DeviceName string `tfsdk:"device_name"`
	RootVolume bool   `tfsdk:"root_volume"`
	EBS        *EBS   `tfsdk:"ebs"`
}

// EBS is a block device's EBS settings.
type EBS struct {
	DeleteOnTermination *bool  `tfsdk:"delete_on_termination"`
	Encrypted           *bool  `tfsdk:"encrypted"`
	IOPS                *int   `tfsdk:"iops"`
	KMSKeyID            string `tfsdk:"kms_key_id"`
	SnapshotID          string `tfsdk:"snapshot_id"`
	Throughput          *int   `tfsdk:"throughput"`
	VolumeSize          string `tfsdk:"volume_size"` // a Kubernetes quantity, e.g. "100Gi"
	VolumeType          string `tfsdk:"volume_type"`
	// VolumeInitializationRate is the provisioned snapshot restore rate in MiB/s (needs SnapshotID).
	VolumeInitializationRate *int `tfsdk:"volume_initialization_rate"`
}

// CapacitySettings is the CNI setting of this class for the pod-capacity engine.
func (s Spec) CapacitySettings() capacity.Settings {
	return capacity.Settings{
		AMIFamily:             s.EffectiveAMIFamily(),
		PrefixDelegation:      s.Networking.PrefixDelegation,
		CustomNetworking:      s.Networking.CustomNetworking,
		SecurityGroupsForPods: s.Networking.SecurityGroupsForPods,
		ReservedENIs:          s.Networking.ReservedENIs,
		Warm:                  s.Networking.Warm,
		NetworkInterfaces:     s.NetworkInterfaces,
		MaxPods:               s.Kubelet.MaxPods,
		MaxPodsExpression:     s.Kubelet.MaxPodsExpression,
		MaxPodsEval:           EvaluatorFor(s.Kubelet.MaxPodsExpression),
		PodsPerCore:           s.Kubelet.PodsPerCore,
	}
}

// EffectiveAMIFamily is amiFamily when set (Custom included, as Karpenter's AMIFamily() does:
// the user then owns user data), else the family of the alias term, else AL2023.
func (s Spec) EffectiveAMIFamily() string {
	if s.AMIFamily != "" {
		return s.AMIFamily
	}
	for _, t := range s.AMISelectorTerms {
		if f, _, ok := aliasFamily(t.Alias); ok {
			return f
		}
	}
	return capacity.DefaultFamily
}

// ApplyDefaultTerms gives a spec without subnet or security group selector terms Karpenter's
// discovery-tag defaults for the cluster; without a cluster name the terms are missing.
func ApplyDefaultTerms(s *Spec, cluster string) []attrpath.Finding {
	var out []attrpath.Finding
	switch {
	case s.SubnetTerms != nil:
	case cluster != "":
		s.SubnetTerms = DefaultSubnetTerms(cluster)
	default:
		out = append(out, attrpath.Finding{Path: attrpath.Of("subnet_selector_terms"), Summary: "Missing subnet selector terms",
			Message: "Set subnet_selector_terms, or set cluster_name on the provider to use the default karpenter.sh/discovery tag."})
	}
	switch {
	case s.SecurityGroupTerms != nil:
	case cluster != "":
		s.SecurityGroupTerms = DefaultSecurityGroupTerms(cluster)
	default:
		out = append(out, attrpath.Finding{Path: attrpath.Of("security_group_selector_terms"), Summary: "Missing security group selector terms",
			Message: "Set security_group_selector_terms, or set cluster_name on the provider to use the default karpenter.sh/discovery tag."})
	}
	return out
}

// DefaultSelectorTerms are the terms used when the user gives none and the provider knows the
// cluster: Karpenter's discovery tag.
func DefaultSubnetTerms(cluster string) []discovery.SubnetTerm {
	return []discovery.SubnetTerm{{Tags: map[string]string{DiscoveryTagKey: cluster}}}
}

// DefaultSecurityGroupTerms: see DefaultSubnetTerms.
func DefaultSecurityGroupTerms(cluster string) []discovery.SecurityGroupTerm {
	return []discovery.SecurityGroupTerm{{Tags: map[string]string{DiscoveryTagKey: cluster}}}
}

// EvaluatorFor is the capacity engine's expression evaluator when there is an expression (nil
// otherwise, so that settings without one compare equal), for every place that builds capacity
// settings from a class.
func EvaluatorFor(expr string) func(string, capacity.ExpressionVars) (int64, error) {
	if expr == "" {
		return nil
	}
	return kubeletconfig.EvaluateForCapacity
}
