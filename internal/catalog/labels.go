package catalog

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// OSLinux is the kubernetes.io/os value of every Linux AMI family.
const OSLinux = "linux"

// instanceTypeScheme splits a name into category, an optional "-<n>tb" memory marker and the
// generation, as Karpenter does: "m5.large" -> m, 5; "u-6tb1.metal" -> u, 1.
var instanceTypeScheme = regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)

// Labels computes the well-known node labels Karpenter derives from an instance type alone
// (computeRequirements in karpenter-provider-aws), one value per key. Keys whose value Karpenter
// leaves out for this type (no GPU, unknown bandwidth, ...) are absent. Offering labels
// (zone, capacity type, tenancy, region) are not included: they have several values per type;
// Select evaluates them per offering.
//
// Deviations from Karpenter, all for values EC2 does not report: the CPU manufacturer and the
// sustained clock speed are left out when EC2 gives none (Karpenter writes "" and "0"), and
// kubernetes.io/arch is left out for types that are neither x86_64 nor arm64 (Karpenter writes
// the raw architecture list, and never launches them).
func Labels(it *InstanceType) map[string]string {
	l := make(map[string]string, 24)
	l[requirements.LabelInstanceType] = it.Name
	// The processor's facts come with EC2's ProcessorInfo, of which SupportedArchitectures is
	// never empty: Karpenter labels them whenever it is there, an unknown clock as "0" and an
	// architecture Kubernetes has no name for (the Mac types') as the list itself, "[arm64_mac]".
	processor := len(it.Architectures) > 0
	if arch := it.KubeArch(); arch != "" {
		l[requirements.LabelArch] = arch
	} else if processor {
		l[requirements.LabelArch] = fmt.Sprint(it.Architectures)
	}
	l[requirements.LabelOS] = OSLinux

	if m := instanceTypeScheme.FindStringSubmatch(it.Name); len(m) == 4 {
		l[requirements.LabelInstanceCategory] = m[1]
		l[requirements.LabelInstanceGeneration] = m[3]
	}
	if parts := strings.Split(it.Name, "."); len(parts) == 2 {
		l[requirements.LabelInstanceFamily] = parts[0]
		l[requirements.LabelInstanceSize] = parts[1]
	}
	l[requirements.LabelInstanceCapabilityFlex] = strconv.FormatBool(strings.Contains(it.Family(), "-flex"))

	l[requirements.LabelInstanceCPU] = strconv.Itoa(it.VCPUs)
	if processor {
		l[requirements.LabelInstanceCPUManufacturer] = lowerKebab(it.CPUManufacturer)
		l[requirements.LabelInstanceCPUSustainedClockSpeedMhz] = strconv.Itoa(int(math.Round(it.SustainedClockGHz * 1000)))
	}
	l[requirements.LabelInstanceMemory] = strconv.Itoa(it.MemoryMiB)
	if it.EBSOptimizedByDefault && it.EBSBandwidthMbps > 0 {
		l[requirements.LabelInstanceEBSBandwidth] = strconv.Itoa(it.EBSBandwidthMbps)
	}
	if mbps, ok := NetworkBandwidthMbps("", it.Name); ok {
		l[requirements.LabelInstanceNetworkBandwidth] = strconv.Itoa(mbps)
	}
	l[requirements.LabelInstanceEncryptionInTransit] = strconv.FormatBool(it.EncryptionInTransit)
	// Bare metal reports no hypervisor; Karpenter still sets the label, to "".
	l[requirements.LabelInstanceHypervisor] = it.Hypervisor
	if it.LocalNVMeGB > 0 {
		l[requirements.LabelInstanceLocalNVMe] = strconv.Itoa(it.LocalNVMeGB)
	}

	// GPU labels only when the type has exactly one kind of GPU.
	if len(it.GPUs) == 1 {
		g := it.GPUs[0]
		l[requirements.LabelInstanceGPUName] = lowerKebab(g.Name)
		l[requirements.LabelInstanceGPUManufacturer] = lowerKebab(g.Manufacturer)
		l[requirements.LabelInstanceGPUCount] = strconv.Itoa(g.Count)
		l[requirements.LabelInstanceGPUMemory] = strconv.Itoa(g.MemoryMiB)
	}
	// Inference accelerators (when the type has no Neuron devices), then Neuron devices,
	// which win: Neuron types report their Inferentia/Trainium chips in both places.
	if len(it.InferenceAccelerators) == 1 && len(it.NeuronDevices) == 0 {
		a := it.InferenceAccelerators[0]
		l[requirements.LabelInstanceAcceleratorName] = lowerKebab(a.Name)
		l[requirements.LabelInstanceAcceleratorManufacturer] = lowerKebab(a.Manufacturer)
		l[requirements.LabelInstanceAcceleratorCount] = strconv.Itoa(a.Count)
	}
	if len(it.NeuronDevices) == 1 {
		d := it.NeuronDevices[0]
		l[requirements.LabelInstanceAcceleratorName] = lowerKebab(d.Name)
		l[requirements.LabelInstanceAcceleratorManufacturer] = "aws"
		l[requirements.LabelInstanceAcceleratorCount] = strconv.Itoa(d.Count)
	}
	return l
}

func lowerKebab(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, " ", "-"))
}

// instanceKeys are the keys Karpenter defines on every instance type (with "does not exist"
// when there is no value). A requirement on one of them constrains instance types.
var instanceKeys = []string{
	requirements.LabelInstanceType,
	requirements.LabelArch,
	requirements.LabelOS,
	requirements.LabelWindowsBuild,
	requirements.LabelInstanceCategory,
	requirements.LabelInstanceGeneration,
	requirements.LabelInstanceFamily,
	requirements.LabelInstanceSize,
	requirements.LabelInstanceCapabilityFlex,
	requirements.LabelInstanceCPU,
	requirements.LabelInstanceCPUManufacturer,
	requirements.LabelInstanceCPUSustainedClockSpeedMhz,
	requirements.LabelInstanceMemory,
	requirements.LabelInstanceEBSBandwidth,
	requirements.LabelInstanceNetworkBandwidth,
	requirements.LabelInstanceEncryptionInTransit,
	requirements.LabelInstanceHypervisor,
	requirements.LabelInstanceLocalNVMe,
	requirements.LabelInstanceGPUName,
	requirements.LabelInstanceGPUManufacturer,
	requirements.LabelInstanceGPUCount,
	requirements.LabelInstanceGPUMemory,
	requirements.LabelInstanceAcceleratorName,
	requirements.LabelInstanceAcceleratorManufacturer,
	requirements.LabelInstanceAcceleratorCount,
	// Without capacity reservations Karpenter defines these as "does not exist".
	requirements.LabelCapacityReservationID,
	requirements.LabelCapacityReservationType,
}

// offeringKeys have one value per offering, not per type.
var offeringKeys = []string{
	requirements.LabelZone,
	requirements.LabelRegion,
	requirements.LabelCapacityType,
	requirements.LabelInstanceTenancy,
}

// DefinedKeys returns the label keys the catalog evaluates: requirements on any other key
// (custom labels, topology.k8s.aws/zone-id, placement groups, ...) do not constrain instance
// types here, as in Karpenter for keys an instance type does not define.
func DefinedKeys() []string {
	out := make([]string, 0, len(instanceKeys)+len(offeringKeys))
	out = append(out, instanceKeys...)
	return append(out, offeringKeys...)
}

var definedKeySet = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, k := range DefinedKeys() {
		m[k] = struct{}{}
	}
	return m
}()

// IsDefinedKey reports whether key is one of DefinedKeys.
func IsDefinedKey(key string) bool {
	_, ok := definedKeySet[key]
	return ok
}

// NetworkBandwidthMbps is the karpenter.k8s.aws/instance-network-bandwidth value Karpenter
// minor gives the instance type: Karpenter does not read the bandwidth from EC2 but looks the
// type up in a table generated from the EC2 documentation, one per release
// (zz_generated_bandwidth.go, from each release's module), and a type its table lacks has no
// such label (false). An empty or unknown minor reads the newest release's table.
func NetworkBandwidthMbps(minor, name string) (int, bool) {
	row, ok := bandwidthMbps[name]
	if !ok {
		return 0, false
	}
	col := len(bandwidthMinors) - 1
	if i := slices.Index(bandwidthMinors[:], minor); i >= 0 {
		col = i
	}
	return int(row[col]), row[col] > 0
}
