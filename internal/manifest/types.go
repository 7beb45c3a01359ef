// Package manifest renders Karpenter v1 objects (EC2NodeClass, NodePool) as YAML documents meant
// for Terraform's yamldecode and the kubernetes_manifest resource.
//
// The structs mirror the CRD specs (karpenter.k8s.aws/v1 EC2NodeClass, karpenter.sh/v1 NodePool,
// Karpenter v1.14): the JSON/YAML field names are the CRD's camelCase names. Empty strings, nil
// pointers, empty slices/maps and all-zero nested structs are omitted; optional booleans and
// integers are pointers so that false and 0 are rendered when set.
//
// The package is pure: it imports neither Terraform nor the AWS SDK. It does not apply CRD
// defaults (except nodeClassRef group/kind) and does not validate; see package crdcheck for a
// validator used by tests.
package manifest

// EC2NodeClass is one karpenter.k8s.aws/v1 EC2NodeClass object (cluster scoped).
// ObjectMetadata are the labels and annotations of a rendered object itself (metadata.labels,
// metadata.annotations): the API server validates them; Karpenter's hashes leave them out.
type ObjectMetadata struct {
	Labels      map[string]string `tfsdk:"labels"`
	Annotations map[string]string `tfsdk:"annotations"`
}

type EC2NodeClass struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	Spec        EC2NodeClassSpec
}

// EC2NodeClassSpec is spec of an EC2NodeClass.
type EC2NodeClassSpec struct {
	SubnetSelectorTerms              []SubnetSelectorTerm              `json:"subnetSelectorTerms,omitempty" yaml:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm       `json:"securityGroupSelectorTerms,omitempty" yaml:"securityGroupSelectorTerms,omitempty"`
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty" yaml:"capacityReservationSelectorTerms,omitempty"`
	AMISelectorTerms                 []AMISelectorTerm                 `json:"amiSelectorTerms,omitempty" yaml:"amiSelectorTerms,omitempty"`
	AMIFamily                        string                            `json:"amiFamily,omitempty" yaml:"amiFamily,omitempty"`
	Role                             string                            `json:"role,omitempty" yaml:"role,omitempty"`
	InstanceProfile                  string                            `json:"instanceProfile,omitempty" yaml:"instanceProfile,omitempty"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty" yaml:"associatePublicIPAddress,omitempty"`
	IPPrefixCount                    *int32                            `json:"ipPrefixCount,omitempty" yaml:"ipPrefixCount,omitempty"`
	UserData                         string                            `json:"userData,omitempty" yaml:"userData,omitempty"`
	Tags                             map[string]string                 `json:"tags,omitempty" yaml:"tags,omitempty"`
	Kubelet                          KubeletConfiguration              `json:"kubelet,omitzero" yaml:"kubelet,omitempty"`
	BlockDeviceMappings              []BlockDeviceMapping              `json:"blockDeviceMappings,omitempty" yaml:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy              string                            `json:"instanceStorePolicy,omitempty" yaml:"instanceStorePolicy,omitempty"`
	NetworkInterfaces                []NetworkInterface                `json:"networkInterfaces,omitempty" yaml:"networkInterfaces,omitempty"`
	DetailedMonitoring               *bool                             `json:"detailedMonitoring,omitempty" yaml:"detailedMonitoring,omitempty"`
	MetadataOptions                  MetadataOptions                   `json:"metadataOptions,omitzero" yaml:"metadataOptions,omitempty"`
	Context                          string                            `json:"context,omitempty" yaml:"context,omitempty"`
	CPUOptions                       CPUOptions                        `json:"cpuOptions,omitzero" yaml:"cpuOptions,omitempty"`
	ConnectionTracking               ConnectionTracking                `json:"connectionTracking,omitzero" yaml:"connectionTracking,omitempty"`
	PlacementGroupSelector           PlacementGroupSelector            `json:"placementGroupSelector,omitzero" yaml:"placementGroupSelector,omitempty"`
	EnclaveOptions                   *EnclaveOptions                   `json:"enclaveOptions,omitempty" yaml:"enclaveOptions,omitempty"`
}

// EnclaveOptions is spec.enclaveOptions (Karpenter v1.15): AWS Nitro Enclaves on the instances.
type EnclaveOptions struct {
	Enabled bool `json:"enabled" yaml:"enabled"`
}

// CapacityReservationSelectorTerm is one spec.capacityReservationSelectorTerms entry: id alone,
// or tags and/or instanceMatchCriteria with an optional ownerID.
type CapacityReservationSelectorTerm struct {
	Tags                  map[string]string `json:"tags,omitempty" yaml:"tags,omitempty"`
	ID                    string            `json:"id,omitempty" yaml:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty" yaml:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty" yaml:"instanceMatchCriteria,omitempty"`
}

// CPUOptions is spec.cpuOptions.
type CPUOptions struct {
	NestedVirtualization string `json:"nestedVirtualization,omitempty" yaml:"nestedVirtualization,omitempty"`
}

// ConnectionTracking is spec.connectionTracking: idle timeouts in seconds.
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty" yaml:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty" yaml:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty" yaml:"udpTimeout,omitempty"`
}

// PlacementGroupSelector is spec.placementGroupSelector (id and name are mutually exclusive).
type PlacementGroupSelector struct {
	ID   string `json:"id,omitempty" yaml:"id,omitempty"`
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
}

// SubnetSelectorTerm is one spec.subnetSelectorTerms entry (tags and id are mutually exclusive).
type SubnetSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty" yaml:"tags,omitempty"`
	ID   string            `json:"id,omitempty" yaml:"id,omitempty"`
}

// SecurityGroupSelectorTerm is one spec.securityGroupSelectorTerms entry (id, name and tags are
// mutually exclusive).
type SecurityGroupSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty" yaml:"tags,omitempty"`
	ID   string            `json:"id,omitempty" yaml:"id,omitempty"`
	Name string            `json:"name,omitempty" yaml:"name,omitempty"`
}

// AMISelectorTerm is one spec.amiSelectorTerms entry.
type AMISelectorTerm struct {
	Alias        string            `json:"alias,omitempty" yaml:"alias,omitempty"`
	ID           string            `json:"id,omitempty" yaml:"id,omitempty"`
	Name         string            `json:"name,omitempty" yaml:"name,omitempty"`
	Owner        string            `json:"owner,omitempty" yaml:"owner,omitempty"`
	Tags         map[string]string `json:"tags,omitempty" yaml:"tags,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty" yaml:"ssmParameter,omitempty"`
}

// KubeletConfiguration is spec.kubelet in its typed (v1.14) form. Map values are kubelet
// quantities, percentages or durations, rendered as strings.
type KubeletConfiguration struct {
	ClusterDNS                  []string          `json:"clusterDNS,omitempty" yaml:"clusterDNS,omitempty"`
	MaxPods                     *int32            `json:"maxPods,omitempty" yaml:"maxPods,omitempty"`
	PodsPerCore                 *int32            `json:"podsPerCore,omitempty" yaml:"podsPerCore,omitempty"`
	SystemReserved              map[string]string `json:"systemReserved,omitempty" yaml:"systemReserved,omitempty"`
	KubeReserved                map[string]string `json:"kubeReserved,omitempty" yaml:"kubeReserved,omitempty"`
	EvictionHard                map[string]string `json:"evictionHard,omitempty" yaml:"evictionHard,omitempty"`
	EvictionSoft                map[string]string `json:"evictionSoft,omitempty" yaml:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod,omitempty" yaml:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod,omitempty" yaml:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent,omitempty" yaml:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent,omitempty" yaml:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota,omitempty" yaml:"cpuCFSQuota,omitempty"`
	// Extra are v1.15's other KubeletConfiguration fields, rendered after the typed ones (a CEL
	// maxPods expression among them, as the string "maxPods").
	Extra map[string]any `json:"-" yaml:",inline"`
}

// BlockDeviceMapping is one spec.blockDeviceMappings entry.
type BlockDeviceMapping struct {
	DeviceName string      `json:"deviceName,omitempty" yaml:"deviceName,omitempty"`
	RootVolume *bool       `json:"rootVolume,omitempty" yaml:"rootVolume,omitempty"`
	EBS        BlockDevice `json:"ebs,omitzero" yaml:"ebs,omitempty"`
}

// BlockDevice is blockDeviceMappings[].ebs. VolumeSize is a quantity string such as "100Gi".
type BlockDevice struct {
	DeleteOnTermination      *bool  `json:"deleteOnTermination,omitempty" yaml:"deleteOnTermination,omitempty"`
	Encrypted                *bool  `json:"encrypted,omitempty" yaml:"encrypted,omitempty"`
	IOPS                     *int64 `json:"iops,omitempty" yaml:"iops,omitempty"`
	KMSKeyID                 string `json:"kmsKeyID,omitempty" yaml:"kmsKeyID,omitempty"`
	SnapshotID               string `json:"snapshotID,omitempty" yaml:"snapshotID,omitempty"`
	Throughput               *int64 `json:"throughput,omitempty" yaml:"throughput,omitempty"`
	VolumeSize               string `json:"volumeSize,omitempty" yaml:"volumeSize,omitempty"`
	VolumeType               string `json:"volumeType,omitempty" yaml:"volumeType,omitempty"`
	VolumeInitializationRate *int32 `json:"volumeInitializationRate,omitempty" yaml:"volumeInitializationRate,omitempty"`
}

// NetworkInterface is one spec.networkInterfaces entry. All three fields are required by the
// CRD, so they are always rendered (0 included).
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex" yaml:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex" yaml:"deviceIndex"`
	InterfaceType    string `json:"interfaceType" yaml:"interfaceType"`
}

// MetadataOptions is spec.metadataOptions. The CRD defaults unset sub-fields (enabled, disabled,
// 1, required); the renderer leaves them out when empty.
type MetadataOptions struct {
	HTTPEndpoint            string `json:"httpEndpoint,omitempty" yaml:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        string `json:"httpProtocolIPv6,omitempty" yaml:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64 `json:"httpPutResponseHopLimit,omitempty" yaml:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              string `json:"httpTokens,omitempty" yaml:"httpTokens,omitempty"`
}

// NodePool is one karpenter.sh/v1 NodePool object (cluster scoped).
type NodePool struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	Spec        NodePoolSpec
}

// NodePoolSpec is spec of a NodePool. Limits values are resource quantities rendered as strings
// ("1000", "1000Gi").
type NodePoolSpec struct {
	Template   NodeClaimTemplate `json:"template" yaml:"template"`
	Disruption Disruption        `json:"disruption,omitzero" yaml:"disruption,omitempty"`
	Limits     map[string]string `json:"limits,omitempty" yaml:"limits,omitempty"`
	Weight     *int32            `json:"weight,omitempty" yaml:"weight,omitempty"`
	Replicas   *int64            `json:"replicas,omitempty" yaml:"replicas,omitempty"`
}

// NodeClaimTemplate is spec.template.
type NodeClaimTemplate struct {
	Metadata TemplateMetadata      `json:"metadata,omitzero" yaml:"metadata,omitempty"`
	Spec     NodeClaimTemplateSpec `json:"spec" yaml:"spec"`
}

// TemplateMetadata is spec.template.metadata.
type TemplateMetadata struct {
	Labels      map[string]string `json:"labels,omitempty" yaml:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty" yaml:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is spec.template.spec. Requirements is required by the CRD and is always
// rendered (as [] when empty).
type NodeClaimTemplateSpec struct {
	NodeClassRef           NodeClassReference        `json:"nodeClassRef" yaml:"nodeClassRef"`
	Requirements           []NodeSelectorRequirement `json:"requirements" yaml:"requirements"`
	Taints                 []Taint                   `json:"taints,omitempty" yaml:"taints,omitempty"`
	StartupTaints          []Taint                   `json:"startupTaints,omitempty" yaml:"startupTaints,omitempty"`
	ExpireAfter            string                    `json:"expireAfter,omitempty" yaml:"expireAfter,omitempty"`
	TerminationGracePeriod string                    `json:"terminationGracePeriod,omitempty" yaml:"terminationGracePeriod,omitempty"`
}

// NodeClassReference is spec.template.spec.nodeClassRef. Empty Group and Kind render as
// DefaultNodeClassGroup and DefaultNodeClassKind.
type NodeClassReference struct {
	Group string `json:"group" yaml:"group"`
	Kind  string `json:"kind" yaml:"kind"`
	Name  string `json:"name" yaml:"name"`
}

// NodeSelectorRequirement is one spec.template.spec.requirements entry.
type NodeSelectorRequirement struct {
	Key       string   `json:"key" yaml:"key"`
	Operator  string   `json:"operator" yaml:"operator"`
	Values    []string `json:"values,omitempty" yaml:"values,omitempty"`
	MinValues *int32   `json:"minValues,omitempty" yaml:"minValues,omitempty"`
}

// Taint is one taints/startupTaints entry (key and effect are required by the CRD).
type Taint struct {
	Key    string `json:"key" yaml:"key" tfsdk:"key"`
	Value  string `json:"value,omitempty" yaml:"value,omitempty" tfsdk:"value"`
	Effect string `json:"effect" yaml:"effect" tfsdk:"effect"`
}

// Disruption is spec.disruption. When the disruption object is rendered at all, the CRD requires
// consolidateAfter (it defaults only the whole object, to consolidateAfter "0s").
type Disruption struct {
	ConsolidationPolicy string   `json:"consolidationPolicy,omitempty" yaml:"consolidationPolicy,omitempty"`
	ConsolidateAfter    string   `json:"consolidateAfter,omitempty" yaml:"consolidateAfter,omitempty"`
	Budgets             []Budget `json:"budgets,omitempty" yaml:"budgets,omitempty"`
}

// Budget is one spec.disruption.budgets entry. Nodes is "N" or "N%" (required by the CRD);
// Schedule and Duration go together.
type Budget struct {
	Nodes    string   `json:"nodes" yaml:"nodes"`
	Reasons  []string `json:"reasons,omitempty" yaml:"reasons,omitempty"`
	Schedule string   `json:"schedule,omitempty" yaml:"schedule,omitempty"`
	Duration string   `json:"duration,omitempty" yaml:"duration,omitempty"`
}

// NodeOverlay is a karpenter.sh/v1alpha1 NodeOverlay: a change Karpenter makes to the instance
// types (their offerings' prices, their capacity) that its requirements select.
type NodeOverlay struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	Spec        NodeOverlaySpec
}

// NodeOverlaySpec is spec of a NodeOverlay. Requirements are NodeSelectorRequirements without
// minValues; capacity quantities are rendered as strings (the CRD takes int or string).
type NodeOverlaySpec struct {
	Requirements    []NodeSelectorRequirement `json:"requirements" yaml:"requirements"`
	PriceAdjustment *string                   `json:"priceAdjustment,omitempty" yaml:"priceAdjustment,omitempty"`
	Price           *string                   `json:"price,omitempty" yaml:"price,omitempty"`
	Capacity        map[string]string         `json:"capacity,omitempty" yaml:"capacity,omitempty"`
	Weight          *int32                    `json:"weight,omitempty" yaml:"weight,omitempty"`
}
