package catalog

import (
	"math"
	"regexp"
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
	if arch := it.KubeArch(); arch != "" {
		l[requirements.LabelArch] = arch
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
	if it.CPUManufacturer != "" {
		l[requirements.LabelInstanceCPUManufacturer] = lowerKebab(it.CPUManufacturer)
	}
	if it.SustainedClockGHz > 0 {
		l[requirements.LabelInstanceCPUSustainedClockSpeedMhz] = strconv.Itoa(int(math.Round(it.SustainedClockGHz * 1000)))
	}
	l[requirements.LabelInstanceMemory] = strconv.Itoa(it.MemoryMiB)
	if it.EBSOptimizedByDefault && it.EBSBandwidthMbps > 0 {
		l[requirements.LabelInstanceEBSBandwidth] = strconv.Itoa(it.EBSBandwidthMbps)
	}
	if it.NetworkBandwidthMbps > 0 {
		l[requirements.LabelInstanceNetworkBandwidth] = strconv.Itoa(it.NetworkBandwidthMbps)
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

// gigabitRE matches a fixed NetworkPerformance such as "25 Gigabit" or "8x 100 Gigabit".
var gigabitRE = regexp.MustCompile(`^(?:(\d+)x )?(\d+(?:\.\d+)?) Gigabit$`)

// BandwidthMbps derives the baseline network bandwidth in megabits per second:
//
//   - a fixed NetworkPerformance ("25 Gigabit", "8x 100 Gigabit") is taken as is, since the
//     per-card baselines of multi-card types do not always add up to it;
//   - otherwise ("Up to 10 Gigabit", "Moderate", ...) the sum of the cards' baseline
//     bandwidths, when every card reports one;
//   - otherwise 0 (unknown).
//
// Karpenter reads this label from a table generated from the EC2 documentation's baseline
// bandwidth column; for burstable "Up to" types that column is the card baseline used here.
func BandwidthMbps(performance string, cards []NetworkCard) int {
	if m := gigabitRE.FindStringSubmatch(strings.TrimSpace(performance)); m != nil {
		gbps, err := strconv.ParseFloat(m[2], 64)
		if err == nil {
			mult := 1
			if m[1] != "" {
				mult, _ = strconv.Atoi(m[1])
			}
			return int(math.Round(gbps * 1000 * float64(mult)))
		}
	}
	total := 0
	for _, c := range cards {
		if c.BaselineBandwidthMbps <= 0 {
			return 0
		}
		total += c.BaselineBandwidthMbps
	}
	return total
}
