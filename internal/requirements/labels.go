package requirements

// Well-known node label keys used in NodePool requirements.
const (
	// Kubernetes / Karpenter core labels.
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelInstanceType = "node.kubernetes.io/instance-type"
	LabelArch         = "kubernetes.io/arch"
	LabelOS           = "kubernetes.io/os"
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	LabelHostname     = "kubernetes.io/hostname" // restricted in requirements
	LabelCapacityType = "karpenter.sh/capacity-type"
	LabelNodePool     = "karpenter.sh/nodepool" // restricted in requirements

	// AWS topology.
	LabelZoneID = "topology.k8s.aws/zone-id"

	// AWS instance-type labels (karpenter.k8s.aws domain).
	LabelInstanceCategory                  = "karpenter.k8s.aws/instance-category"
	LabelInstanceGeneration                = "karpenter.k8s.aws/instance-generation"
	LabelInstanceFamily                    = "karpenter.k8s.aws/instance-family"
	LabelInstanceSize                      = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU                       = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceCPUManufacturer           = "karpenter.k8s.aws/instance-cpu-manufacturer"
	LabelInstanceCPUSustainedClockSpeedMhz = "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz"
	LabelInstanceMemory                    = "karpenter.k8s.aws/instance-memory"
	LabelInstanceEBSBandwidth              = "karpenter.k8s.aws/instance-ebs-bandwidth"
	LabelInstanceNetworkBandwidth          = "karpenter.k8s.aws/instance-network-bandwidth"
	LabelInstanceEncryptionInTransit       = "karpenter.k8s.aws/instance-encryption-in-transit-supported"
	LabelInstanceHypervisor                = "karpenter.k8s.aws/instance-hypervisor"
	LabelInstanceLocalNVMe                 = "karpenter.k8s.aws/instance-local-nvme"
	LabelInstanceGPUName                   = "karpenter.k8s.aws/instance-gpu-name"
	LabelInstanceGPUManufacturer           = "karpenter.k8s.aws/instance-gpu-manufacturer"
	LabelInstanceGPUCount                  = "karpenter.k8s.aws/instance-gpu-count"
	LabelInstanceGPUMemory                 = "karpenter.k8s.aws/instance-gpu-memory"
	LabelInstanceAcceleratorName           = "karpenter.k8s.aws/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer   = "karpenter.k8s.aws/instance-accelerator-manufacturer"
	LabelInstanceAcceleratorCount          = "karpenter.k8s.aws/instance-accelerator-count"
	LabelInstanceCapabilityFlex            = "karpenter.k8s.aws/instance-capability-flex"
	LabelInstanceTenancy                   = "karpenter.k8s.aws/instance-tenancy"

	// Other AWS labels allowed as requirement keys.
	LabelEC2NodeClass                     = "karpenter.k8s.aws/ec2nodeclass"
	LabelCapacityReservationID            = "karpenter.k8s.aws/capacity-reservation-id"
	LabelCapacityReservationType          = "karpenter.k8s.aws/capacity-reservation-type"
	LabelCapacityReservationInterruptible = "karpenter.k8s.aws/capacity-reservation-interruptible"
	LabelPlacementGroupID                 = "karpenter.k8s.aws/placement-group-id"
	LabelPlacementGroupPartition          = "karpenter.k8s.aws/placement-group-partition"
	// LabelNitroSandbox is set on nodes but the v1.14 NodePool CRD does not allow it as a requirement key.
	LabelNitroSandbox = "karpenter.k8s.aws/nitro-sandbox"
)

// Values of the karpenter.sh/capacity-type label.
const (
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeSpot     = "spot"
	CapacityTypeReserved = "reserved"
)

// Restricted label domains (matched against the part of the key before the first "/").
const (
	domainKarpenter    = "karpenter.sh"
	domainKarpenterAWS = "karpenter.k8s.aws"
)

// capacityTypes lists the values accepted for karpenter.sh/capacity-type with In/NotIn.
var capacityTypes = []string{CapacityTypeOnDemand, CapacityTypeSpot, CapacityTypeReserved}

// awsRequirementKeys is the allowlist of karpenter.k8s.aws keys that may be used in a requirement.
var awsRequirementKeys = []string{
	LabelInstanceCategory,
	LabelInstanceGeneration,
	LabelInstanceFamily,
	LabelInstanceSize,
	LabelInstanceCPU,
	LabelInstanceCPUManufacturer,
	LabelInstanceCPUSustainedClockSpeedMhz,
	LabelInstanceMemory,
	LabelInstanceEBSBandwidth,
	LabelInstanceNetworkBandwidth,
	LabelInstanceEncryptionInTransit,
	LabelInstanceHypervisor,
	LabelInstanceLocalNVMe,
	LabelInstanceGPUName,
	LabelInstanceGPUManufacturer,
	LabelInstanceGPUCount,
	LabelInstanceGPUMemory,
	LabelInstanceAcceleratorName,
	LabelInstanceAcceleratorManufacturer,
	LabelInstanceAcceleratorCount,
	LabelInstanceCapabilityFlex,
	LabelInstanceTenancy,
	LabelEC2NodeClass,
	LabelCapacityReservationID,
	LabelCapacityReservationType,
	LabelCapacityReservationInterruptible,
	LabelPlacementGroupID,
	LabelPlacementGroupPartition,
}

var awsRequirementKeySet = func() map[string]struct{} {
	m := make(map[string]struct{}, len(awsRequirementKeys))
	for _, k := range awsRequirementKeys {
		m[k] = struct{}{}
	}
	return m
}()

// AllowedAWSKeys returns the karpenter.k8s.aws keys that Validate accepts as requirement keys.
func AllowedAWSKeys() []string {
	return append([]string(nil), awsRequirementKeys...)
}

// CapacityTypes returns the values Validate accepts for karpenter.sh/capacity-type with In/NotIn.
func CapacityTypes() []string {
	return append([]string(nil), capacityTypes...)
}
