// Package ec2catalog converts EC2's DescribeInstanceTypes answers to the catalog's instance
// types. It imports the SDK's types alone, so that Karpenter's oracle modules compare the labels
// the provider derives from raw EC2 data without linking the provider's AWS clients.
package ec2catalog

import (
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

// InstanceType maps one DescribeInstanceTypes entry to the catalog model. Missing fields become
// zero values (for example no network cards: the capacity engine then uses
// MaximumNetworkInterfaces for the default card).
func InstanceType(info *ec2types.InstanceTypeInfo) catalog.InstanceType {
	it := catalog.InstanceType{
		Name:              string(info.InstanceType),
		Hypervisor:        string(info.Hypervisor),
		BareMetal:         aws.ToBool(info.BareMetal),
		CurrentGeneration: aws.ToBool(info.CurrentGeneration),
	}
	for _, vt := range info.SupportedVirtualizationTypes {
		if vt == ec2types.VirtualizationTypeHvm {
			it.SupportsHVM = true
		}
	}
	for _, uc := range info.SupportedUsageClasses {
		it.UsageClasses = append(it.UsageClasses, string(uc))
	}
	if v := info.VCpuInfo; v != nil {
		it.VCPUs = int(aws.ToInt32(v.DefaultVCpus))
	}
	if m := info.MemoryInfo; m != nil {
		it.MemoryMiB = int(aws.ToInt64(m.SizeInMiB))
	}
	if p := info.ProcessorInfo; p != nil {
		for _, a := range p.SupportedArchitectures {
			it.Architectures = append(it.Architectures, string(a))
		}
		it.CPUManufacturer = aws.ToString(p.Manufacturer)
		it.SustainedClockGHz = aws.ToFloat64(p.SustainedClockSpeedInGhz)
		for _, f := range p.SupportedFeatures {
			it.ProcessorFeatures = append(it.ProcessorFeatures, string(f))
		}
	}
	it.NitroEnclavesSupport = string(info.NitroEnclavesSupport)
	if pg := info.PlacementGroupInfo; pg != nil {
		for _, s := range pg.SupportedStrategies {
			it.PlacementGroupStrategies = append(it.PlacementGroupStrategies, string(s))
		}
	}
	if e := info.EbsInfo; e != nil {
		it.EBSOptimizedByDefault = e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault
		if e.EbsOptimizedInfo != nil {
			it.EBSBandwidthMbps = int(aws.ToInt32(e.EbsOptimizedInfo.MaximumBandwidthInMbps))
		}
	}
	if n := info.NetworkInfo; n != nil {
		convertNetwork(&it, n)
	}
	it.GPUs = gpuDevices(info.GpuInfo)
	it.InferenceAccelerators = inferenceDevices(info.InferenceAcceleratorInfo)
	it.NeuronDevices = neuronDevices(info.NeuronInfo)
	if s := info.InstanceStorageInfo; s != nil && s.NvmeSupport != "" && s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported {
		it.LocalNVMeGB = int(aws.ToInt64(s.TotalSizeInGB))
	}
	return it
}

// convertNetwork sets the type's ENI, address and EFA figures from its network info.
func convertNetwork(it *catalog.InstanceType, n *ec2types.NetworkInfo) {
	it.MaxENIs = int(aws.ToInt32(n.MaximumNetworkInterfaces))
	it.DefaultCardIndex = int(aws.ToInt32(n.DefaultNetworkCardIndex))
	it.IPv4PerENI = int(aws.ToInt32(n.Ipv4AddressesPerInterface))
	it.IPv6PerENI = int(aws.ToInt32(n.Ipv6AddressesPerInterface))
	it.IPv6Supported = aws.ToBool(n.Ipv6Supported)
	it.EFASupported = aws.ToBool(n.EfaSupported)
	if n.EfaInfo != nil {
		it.MaxEFAInterfaces = int(aws.ToInt32(n.EfaInfo.MaximumEfaInterfaces))
	}
	it.EncryptionInTransit = aws.ToBool(n.EncryptionInTransitSupported)
	it.ENASupport = string(n.EnaSupport)
	it.NetworkPerformance = aws.ToString(n.NetworkPerformance)
	for _, c := range n.NetworkCards {
		it.NetworkCards = append(it.NetworkCards, catalog.NetworkCard{
			Index:                 int(aws.ToInt32(c.NetworkCardIndex)),
			MaxENIs:               int(aws.ToInt32(c.MaximumNetworkInterfaces)),
			Performance:           aws.ToString(c.NetworkPerformance),
			BaselineBandwidthMbps: gbpsToMbps(c.BaselineBandwidthInGbps),
			PeakBandwidthMbps:     gbpsToMbps(c.PeakBandwidthInGbps),
		})
	}
}

// gpuDevices are the type's GPUs; nil without GPU info.
func gpuDevices(g *ec2types.GpuInfo) []catalog.Device {
	if g == nil {
		return nil
	}
	var out []catalog.Device
	for _, d := range g.Gpus {
		dev := catalog.Device{Name: aws.ToString(d.Name), Manufacturer: aws.ToString(d.Manufacturer), Count: int(aws.ToInt32(d.Count))}
		if d.MemoryInfo != nil {
			dev.MemoryMiB = int(aws.ToInt32(d.MemoryInfo.SizeInMiB))
		}
		out = append(out, dev)
	}
	return out
}

// inferenceDevices are the type's inference accelerators; nil without accelerator info.
func inferenceDevices(a *ec2types.InferenceAcceleratorInfo) []catalog.Device {
	if a == nil {
		return nil
	}
	var out []catalog.Device
	for _, d := range a.Accelerators {
		dev := catalog.Device{Name: aws.ToString(d.Name), Manufacturer: aws.ToString(d.Manufacturer), Count: int(aws.ToInt32(d.Count))}
		if d.MemoryInfo != nil {
			dev.MemoryMiB = int(aws.ToInt32(d.MemoryInfo.SizeInMiB))
		}
		out = append(out, dev)
	}
	return out
}

// neuronDevices are the type's Neuron devices (AWS-made, so EC2 reports no manufacturer); nil
// without Neuron info.
func neuronDevices(nr *ec2types.NeuronInfo) []catalog.Device {
	if nr == nil {
		return nil
	}
	var out []catalog.Device
	for _, d := range nr.NeuronDevices {
		dev := catalog.Device{Name: aws.ToString(d.Name), Manufacturer: "AWS", Count: int(aws.ToInt32(d.Count))}
		if d.MemoryInfo != nil {
			dev.MemoryMiB = int(aws.ToInt32(d.MemoryInfo.SizeInMiB))
		}
		if d.CoreInfo != nil {
			dev.Cores = int(aws.ToInt32(d.CoreInfo.Count))
		}
		out = append(out, dev)
	}
	return out
}

func gbpsToMbps(v *float64) int {
	if v == nil {
		return 0
	}
	return int(math.Round(*v * 1000))
}
