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
	// EC2NodeClassHashVersion is the hash version Karpenter v1.14.1 records next to the hash.
	EC2NodeClassHashVersion = "v5"
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

// EC2NodeClassHash returns the value Karpenter v1.14.1 writes in an EC2NodeClass's
// karpenter.k8s.aws/ec2nodeclass-hash annotation, for an EC2NodeClass whose spec, as stored by
// the API server (CRD defaults applied), is spec. Karpenter hashes, as one unordered set, the
// spec, the AMI family (see AMIFamily) and the cluster CA bundle it runs with: caBundle is that
// bundle as Karpenter holds it (the --cluster-ca-bundle setting when given, otherwise the
// base64 encoding of the CA data of its API server connection; "" when it has none).
func EC2NodeClassHash(spec EC2NodeClassSpec, caBundle string) (string, error) {
	family, err := AMIFamily(spec)
	if err != nil {
		return "", err
	}
	return hash([]any{spec, family, caBundle})
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
	BlockDeviceMappings              []*BlockDeviceMapping             `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy              *InstanceStorePolicy              `json:"instanceStorePolicy,omitempty"`
	NetworkInterfaces                []*NetworkInterface               `json:"networkInterfaces,omitempty"`
	DetailedMonitoring               *bool                             `json:"detailedMonitoring,omitempty"`
	MetadataOptions                  *MetadataOptions                  `json:"metadataOptions,omitempty"`
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

// KubeletConfiguration mirrors karpenter.k8s.aws/v1 KubeletConfiguration (spec.kubelet).
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
