package karpenterhash

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClass hash annotations (karpenter.k8s.aws/v1). Karpenter treats a NodeClaim as drifted
// when its EC2NodeClassHashAnnotationKey differs from its EC2NodeClass's while both carry the
// same EC2NodeClassHashVersionAnnotationKey.
const (
	EC2NodeClassHashAnnotationKey        = "karpenter.k8s.aws/ec2nodeclass-hash"
	EC2NodeClassHashVersionAnnotationKey = "karpenter.k8s.aws/ec2nodeclass-hash-version"
	// EC2NodeClassHashVersion is the hash version Karpenter v1.14 records next to the hash
	// (EC2NodeClassHash's version).
	EC2NodeClassHashVersion = EC2NodeClassHashV5
)

// The EC2NodeClass hash versions of the supported Karpenter minors (see
// EC2NodeClassHashVersionFor).
const (
	// EC2NodeClassHashV4 (Karpenter 1.9 to 1.11) hashes the spec and the AMI family.
	EC2NodeClassHashV4 = "v4"
	// EC2NodeClassHashV5 (Karpenter 1.12 to 1.14) hashes the spec, the AMI family and the
	// cluster CA bundle.
	EC2NodeClassHashV5 = "v5"
	// EC2NodeClassHashV6 (Karpenter 1.15) hashes the spec without spec.kubelet, the AMI family,
	// the cluster CA bundle and spec.kubelet as canonical JSON
	// (RawKubeletConfiguration.CanonicalJSON).
	EC2NodeClassHashV6 = "v6"
)

// AMI families, as spec.amiFamily spells them and as an amiSelectorTerms alias resolves to.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyUbuntu       = "Ubuntu"
	AMIFamilyWindows2019  = "Windows2019"
	AMIFamilyWindows2022  = "Windows2022"
	AMIFamilyWindows2025  = "Windows2025"
	AMIFamilyCustom       = "Custom"
)

// aliasFamilies are the families an amiSelectorTerms alias may name (Ubuntu has no alias).
var aliasFamilies = []string{
	AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket,
	AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025,
}

// EC2NodeClassHash returns the value Karpenter v1.14 writes in an EC2NodeClass's
// karpenter.k8s.aws/ec2nodeclass-hash annotation (hash version EC2NodeClassHashVersion, "v5"),
// for an EC2NodeClass whose spec, as stored by the API server (CRD defaults applied), is spec.
// Karpenter hashes, as one unordered set, the spec, the AMI family (see AMIFamily) and the
// cluster CA bundle it runs with: caBundle is that bundle as Karpenter holds it (the
// --cluster-ca-bundle setting when given, otherwise the base64 encoding of the CA data of its
// API server connection; "" when it has none). EC2NodeClassHashForVersion covers the other
// hash versions.
func EC2NodeClassHash(spec EC2NodeClassSpec, caBundle string) (string, error) {
	return EC2NodeClassHashForVersion(EC2NodeClassHashV5, spec, caBundle)
}

// AMIFamily is the family Karpenter attributes to an EC2NodeClass: spec.amiFamily when set,
// otherwise the family of the first amiSelectorTerms alias ("al2023@latest" is AL2023),
// otherwise Custom. It fails on an alias that is not family@version with a known family, which
// the CRD rejects (and on which Karpenter would exit).
func AMIFamily(spec EC2NodeClassSpec) (string, error) {
	if spec.AMIFamily != nil {
		return *spec.AMIFamily, nil
	}
	for _, term := range spec.AMISelectorTerms {
		if term.Alias == "" {
			continue
		}
		family, version, ok := strings.Cut(term.Alias, "@")
		if !ok || strings.Contains(version, "@") {
			return "", fmt.Errorf("AMI alias %q is not family@version", term.Alias)
		}
		for _, f := range aliasFamilies {
			if strings.ToLower(f) == family {
				return f, nil
			}
		}
		return "", fmt.Errorf("AMI alias %q: unknown family %q", term.Alias, family)
	}
	return AMIFamilyCustom, nil
}

// EC2NodeClassSpec mirrors karpenter.k8s.aws/v1 EC2NodeClassSpec. The selector terms, amiFamily
// and ipPrefixCount are not hashed (Karpenter detects their drift from the resolved resources).
//
// One type serves every supported Karpenter minor: a field a minor's CRD lacks is nil in that
// minor's stored spec, and a nil field does not enter the hash. Two fields follow Karpenter
// 1.15 (hash version v6): EnclaveOptions, which only that minor declares, and spec.kubelet,
// which that minor turns into a free-form map whose Go field is not hashed. A v6 spec therefore
// carries spec.kubelet in RawKubelet (never hashed as a field: its canonical JSON is hashed
// next to the spec) and leaves the typed Kubelet nil; specs of earlier minors use Kubelet and
// leave RawKubelet nil.
type EC2NodeClassSpec struct {
	SubnetSelectorTerms              []SubnetSelectorTerm              `json:"subnetSelectorTerms" hash:"ignore"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm       `json:"securityGroupSelectorTerms" hash:"ignore"`
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms" hash:"ignore"`
	PlacementGroupSelector           *PlacementGroupSelector           `json:"placementGroupSelector,omitempty"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty"`
	IPPrefixCount                    *int32                            `json:"ipPrefixCount,omitempty" hash:"ignore"`
	AMISelectorTerms                 []AMISelectorTerm                 `json:"amiSelectorTerms" hash:"ignore"`
	AMIFamily                        *string                           `json:"amiFamily,omitempty" hash:"ignore"`
	UserData                         *string                           `json:"userData,omitempty"`
	Role                             string                            `json:"role,omitempty"`
	InstanceProfile                  *string                           `json:"instanceProfile,omitempty"`
	Tags                             map[string]string                 `json:"tags,omitempty"`
	Kubelet                          *KubeletConfiguration             `json:"kubelet,omitempty"`
	RawKubelet                       RawKubeletConfiguration           `json:"-" hash:"ignore"`
	BlockDeviceMappings              []*BlockDeviceMapping             `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy              *InstanceStorePolicy              `json:"instanceStorePolicy,omitempty"`
	NetworkInterfaces                []*NetworkInterface               `json:"networkInterfaces,omitempty"`
	DetailedMonitoring               *bool                             `json:"detailedMonitoring,omitempty"`
	MetadataOptions                  *MetadataOptions                  `json:"metadataOptions,omitempty"`
	EnclaveOptions                   *EnclaveOptions                   `json:"enclaveOptions,omitempty"`
	ConnectionTracking               *ConnectionTracking               `json:"connectionTracking,omitempty"`
	Context                          *string                           `json:"context,omitempty"`
	CPUOptions                       *CPUOptions                       `json:"cpuOptions,omitempty"`
}

// SubnetSelectorTerm mirrors karpenter.k8s.aws/v1 SubnetSelectorTerm.
type SubnetSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
}

// SecurityGroupSelectorTerm mirrors karpenter.k8s.aws/v1 SecurityGroupSelectorTerm.
type SecurityGroupSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

// CapacityReservationSelectorTerm mirrors karpenter.k8s.aws/v1 CapacityReservationSelectorTerm.
type CapacityReservationSelectorTerm struct {
	Tags                  map[string]string `json:"tags,omitempty"`
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// PlacementGroupSelector mirrors karpenter.k8s.aws/v1 PlacementGroupSelector.
type PlacementGroupSelector struct {
	Name *string `json:"name,omitempty"`
	ID   *string `json:"id,omitempty"`
}

// AMISelectorTerm mirrors karpenter.k8s.aws/v1 AMISelectorTerm.
type AMISelectorTerm struct {
	Alias        string            `json:"alias,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
}

// KubeletConfiguration mirrors karpenter.k8s.aws/v1 KubeletConfiguration (spec.kubelet) of
// Karpenter 1.9 to 1.14; see RawKubeletConfiguration for Karpenter 1.15.
type KubeletConfiguration struct {
	ClusterDNS                  []string                   `json:"clusterDNS,omitempty"`
	MaxPods                     *int32                     `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// MetadataOptions mirrors karpenter.k8s.aws/v1 MetadataOptions (spec.metadataOptions).
type MetadataOptions struct {
	HTTPEndpoint            *string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        *string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64  `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              *string `json:"httpTokens,omitempty"`
}

// EnclaveOptions mirrors karpenter.k8s.aws/v1 EnclaveOptions (spec.enclaveOptions, Karpenter
// 1.15). Enabled false is still hashed as a set enclaveOptions: Karpenter tells an explicit
// "enabled: false" from an absent enclaveOptions.
type EnclaveOptions struct {
	Enabled bool `json:"enabled"`
}

// CPUOptions mirrors karpenter.k8s.aws/v1 CPUOptions (spec.cpuOptions).
type CPUOptions struct {
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// ConnectionTracking mirrors karpenter.k8s.aws/v1 ConnectionTracking (spec.connectionTracking).
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty"`
}

// BlockDeviceMapping mirrors karpenter.k8s.aws/v1 BlockDeviceMapping.
type BlockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
	RootVolume bool         `json:"rootVolume,omitempty"`
}

// BlockDevice mirrors karpenter.k8s.aws/v1 BlockDevice. The volume size is hashed as its
// canonical string ("20Gi"), like Karpenter does.
type BlockDevice struct {
	DeleteOnTermination      *bool              `json:"deleteOnTermination,omitempty"`
	Encrypted                *bool              `json:"encrypted,omitempty"`
	IOPS                     *int64             `json:"iops,omitempty"`
	KMSKeyID                 *string            `json:"kmsKeyID,omitempty"`
	SnapshotID               *string            `json:"snapshotID,omitempty"`
	Throughput               *int64             `json:"throughput,omitempty"`
	VolumeInitializationRate *int32             `json:"volumeInitializationRate,omitempty"`
	VolumeSize               *resource.Quantity `json:"volumeSize,omitempty" hash:"string"`
	VolumeType               *string            `json:"volumeType,omitempty"`
}

// InstanceStorePolicy mirrors karpenter.k8s.aws/v1 InstanceStorePolicy (RAID0).
type InstanceStorePolicy string

// InstanceStorePolicyRAID0 is the one instance store policy.
const InstanceStorePolicyRAID0 InstanceStorePolicy = "RAID0"

// InterfaceType mirrors karpenter.k8s.aws/v1 InterfaceType (interface, efa-only).
type InterfaceType string

// NetworkInterface mirrors karpenter.k8s.aws/v1 NetworkInterface.
type NetworkInterface struct {
	NetworkCardIndex int32         `json:"networkCardIndex"`
	DeviceIndex      int32         `json:"deviceIndex"`
	InterfaceType    InterfaceType `json:"interfaceType"`
}
