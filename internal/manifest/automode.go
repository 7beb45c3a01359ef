package manifest

import (
	_ "embed"
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"
)

// The EKS Auto Mode NodeClass: the class AWS's managed Karpenter launches from.
const (
	AutoModeNodeClassGroup      = "eks.amazonaws.com"
	AutoModeNodeClassAPIVersion = "eks.amazonaws.com/v1"
	AutoModeNodeClassKind       = "NodeClass"
)

// autoModeSchema is the Auto Mode NodeClass's validation schema. AWS publishes no CRD for it:
// the file is written from the EKS user guide, each field naming its page.
//
//go:embed automode/nodeclasses.eks.amazonaws.com.yaml
var autoModeSchema []byte

// AutoModeSchemaFile is autoModeSchema's path in the repository.
const AutoModeSchemaFile = "internal/manifest/automode/nodeclasses.eks.amazonaws.com.yaml"

// AutoModeNodeClassCRD is the Auto Mode NodeClass schema compiled for admission, once per
// process. Unlike Karpenter's CRDs it is the same for every karpenter_version.
var AutoModeNodeClassCRD = sync.OnceValues(func() (*CRD, error) {
	raw, err := yaml.YAMLToJSON(autoModeSchema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AutoModeSchemaFile, err)
	}
	c, err := compileCRD(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", AutoModeSchemaFile, err)
	}
	if c.Group != AutoModeNodeClassGroup || c.Kind != AutoModeNodeClassKind {
		return nil, fmt.Errorf("%s holds %s %s, not the Auto Mode NodeClass", AutoModeSchemaFile, c.APIVersion(), c.Kind)
	}
	return c, nil
})

// AutoModeNodeClass is one eks.amazonaws.com/v1 NodeClass object (cluster scoped).
type AutoModeNodeClass struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	Spec        AutoModeNodeClassSpec
}

// AutoModeNodeClassSpec is the spec of an Auto Mode NodeClass, in the user guide's field order.
type AutoModeNodeClassSpec struct {
	Role                             string                      `json:"role,omitempty" yaml:"role,omitempty"`
	InstanceProfile                  string                      `json:"instanceProfile,omitempty" yaml:"instanceProfile,omitempty"`
	SubnetSelectorTerms              []SubnetSelectorTerm        `json:"subnetSelectorTerms,omitempty" yaml:"subnetSelectorTerms,omitempty"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms,omitempty" yaml:"securityGroupSelectorTerms,omitempty"`
	PodSubnetSelectorTerms           []SubnetSelectorTerm        `json:"podSubnetSelectorTerms,omitempty" yaml:"podSubnetSelectorTerms,omitempty"`
	PodSecurityGroupSelectorTerms    []SecurityGroupSelectorTerm `json:"podSecurityGroupSelectorTerms,omitempty" yaml:"podSecurityGroupSelectorTerms,omitempty"`
	CapacityReservationSelectorTerms []AutoModeReservationTerm   `json:"capacityReservationSelectorTerms,omitempty" yaml:"capacityReservationSelectorTerms,omitempty"`
	SNATPolicy                       string                      `json:"snatPolicy,omitempty" yaml:"snatPolicy,omitempty"`
	NetworkPolicy                    string                      `json:"networkPolicy,omitempty" yaml:"networkPolicy,omitempty"`
	NetworkPolicyEventLogs           string                      `json:"networkPolicyEventLogs,omitempty" yaml:"networkPolicyEventLogs,omitempty"`
	EphemeralStorage                 *AutoModeEphemeralStorage   `json:"ephemeralStorage,omitempty" yaml:"ephemeralStorage,omitempty"`
	Tags                             map[string]string           `json:"tags,omitempty" yaml:"tags,omitempty"`
	AdvancedNetworking               *AutoModeAdvancedNetworking `json:"advancedNetworking,omitempty" yaml:"advancedNetworking,omitempty"`
	AdvancedSecurity                 *AutoModeAdvancedSecurity   `json:"advancedSecurity,omitempty" yaml:"advancedSecurity,omitempty"`
	PlacementGroupSelector           *PlacementGroupSelector     `json:"placementGroupSelector,omitempty" yaml:"placementGroupSelector,omitempty"`
	CertificateBundles               []AutoModeCertificateBundle `json:"certificateBundles,omitempty" yaml:"certificateBundles,omitempty"`
}

// AutoModeReservationTerm is one capacityReservationSelectorTerms entry: id, or tags with the
// owning account (Auto Mode's field is `owner`, Karpenter's `ownerID`).
type AutoModeReservationTerm struct {
	ID    string            `json:"id,omitempty" yaml:"id,omitempty"`
	Tags  map[string]string `json:"tags,omitempty" yaml:"tags,omitempty"`
	Owner string            `json:"owner,omitempty" yaml:"owner,omitempty"`
}

// AutoModeEphemeralStorage is spec.ephemeralStorage.
type AutoModeEphemeralStorage struct {
	Size       string `json:"size,omitempty" yaml:"size,omitempty"`
	IOPS       *int64 `json:"iops,omitempty" yaml:"iops,omitempty"`
	Throughput *int64 `json:"throughput,omitempty" yaml:"throughput,omitempty"`
	KMSKeyID   string `json:"kmsKeyID,omitempty" yaml:"kmsKeyID,omitempty"`
}

// AutoModeAdvancedNetworking is spec.advancedNetworking.
type AutoModeAdvancedNetworking struct {
	AssociatePublicIPAddress *bool    `json:"associatePublicIPAddress,omitempty" yaml:"associatePublicIPAddress,omitempty"`
	HTTPSProxy               string   `json:"httpsProxy,omitempty" yaml:"httpsProxy,omitempty"`
	NoProxy                  []string `json:"noProxy,omitempty" yaml:"noProxy,omitempty"`
	IPv4PrefixSize           string   `json:"ipv4PrefixSize,omitempty" yaml:"ipv4PrefixSize,omitempty"`
	EnableV4Egress           *bool    `json:"enableV4Egress,omitempty" yaml:"enableV4Egress,omitempty"`
	// NetworkInterfaces is a static ENI layout (nil: Auto Mode's own).
	NetworkInterfaces []AutoModeNetworkInterface `json:"networkInterfaces,omitempty" yaml:"networkInterfaces,omitempty"`
}

// AutoModeNetworkInterface is one spec.advancedNetworking.networkInterfaces entry.
type AutoModeNetworkInterface struct {
	NetworkCardIndex         int64  `json:"networkCardIndex" yaml:"networkCardIndex"`
	DeviceIndex              int64  `json:"deviceIndex" yaml:"deviceIndex"`
	InterfaceType            string `json:"interfaceType" yaml:"interfaceType"`
	SecondaryIPv4Count       *int64 `json:"secondaryIPv4Count,omitempty" yaml:"secondaryIPv4Count,omitempty"`
	SecondaryIPv4PrefixCount *int64 `json:"secondaryIPv4PrefixCount,omitempty" yaml:"secondaryIPv4PrefixCount,omitempty"`
}

// AutoModeAdvancedSecurity is spec.advancedSecurity.
type AutoModeAdvancedSecurity struct {
	FIPS           *bool  `json:"fips,omitempty" yaml:"fips,omitempty"`
	KernelLockdown string `json:"kernelLockdown,omitempty" yaml:"kernelLockdown,omitempty"`
}

// AutoModeCertificateBundle is one spec.certificateBundles entry: a name and base64 data.
type AutoModeCertificateBundle struct {
	Name string `json:"name" yaml:"name"`
	Data string `json:"data" yaml:"data"`
}

// RenderAutoModeNodeClass renders nc as an eks.amazonaws.com/v1 NodeClass YAML document.
func RenderAutoModeNodeClass(nc AutoModeNodeClass) (string, error) {
	return render(document{
		APIVersion: AutoModeNodeClassAPIVersion,
		Kind:       AutoModeNodeClassKind,
		Metadata:   objectMeta{Name: nc.Name, Labels: nc.Labels, Annotations: nc.Annotations},
		Spec:       nc.Spec,
	})
}
