package catalog

// Instance-type fixtures with the values EC2 DescribeInstanceTypes reports for them.

var allZones = []string{"ap-southeast-1a", "ap-southeast-1b", "ap-southeast-1c"}

func cards(n, enis int, baselineMbps int) []NetworkCard {
	out := make([]NetworkCard, n)
	for i := range out {
		out[i] = NetworkCard{Index: i, MaxENIs: enis, BaselineBandwidthMbps: baselineMbps}
	}
	return out
}

func m5Large() InstanceType {
	return InstanceType{
		Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 3.1, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 4750,
		MaxENIs: 3, NetworkCards: cards(1, 3, 750), IPv4PerENI: 10, IPv6PerENI: 10,
		ENASupport: "required", NetworkPerformance: "Up to 10 Gigabit",
		Zones: allZones,
	}
}

func c7gXLarge() InstanceType {
	return InstanceType{
		Name: "c7g.xlarge", VCPUs: 4, MemoryMiB: 8192, Architectures: []string{"arm64"},
		CPUManufacturer: "AWS", SustainedClockGHz: 2.6, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 10000,
		MaxENIs: 4, NetworkCards: cards(1, 4, 1876), IPv4PerENI: 15, IPv6PerENI: 15,
		EncryptionInTransit: true, ENASupport: "required", NetworkPerformance: "Up to 12.5 Gigabit",
		Zones: []string{"ap-southeast-1a", "ap-southeast-1b"},
	}
}

func p548XLarge() InstanceType {
	return InstanceType{
		Name: "p5.48xlarge", VCPUs: 192, MemoryMiB: 2097152, Architectures: []string{"x86_64"},
		CPUManufacturer: "AMD", SustainedClockGHz: 3.6, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"capacity-block", "on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 80000,
		MaxENIs: 64, NetworkCards: cards(32, 2, 100000), IPv4PerENI: 50, IPv6PerENI: 50,
		EFASupported: true, MaxEFAInterfaces: 32, EncryptionInTransit: true, ENASupport: "required",
		NetworkPerformance: "3200 Gigabit",
		GPUs:               []Device{{Name: "H100", Manufacturer: "NVIDIA", Count: 8, MemoryMiB: 81920}},
		LocalNVMeGB:        30400,
	}
}

func g4dnXLarge() InstanceType {
	return InstanceType{
		Name: "g4dn.xlarge", VCPUs: 4, MemoryMiB: 16384, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 2.5, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 3500,
		MaxENIs: 3, NetworkCards: cards(1, 3, 5000), IPv4PerENI: 10, IPv6PerENI: 10,
		EncryptionInTransit: true, ENASupport: "required", NetworkPerformance: "Up to 25 Gigabit",

		GPUs:        []Device{{Name: "T4", Manufacturer: "NVIDIA", Count: 1, MemoryMiB: 16384}},
		LocalNVMeGB: 125, Zones: allZones,
	}
}

func c5Metal() InstanceType {
	return InstanceType{
		Name: "c5.metal", VCPUs: 96, MemoryMiB: 196608, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 3.6, BareMetal: true, SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 19000,
		MaxENIs: 15, NetworkCards: cards(1, 15, 25000), IPv4PerENI: 50, IPv6PerENI: 50,
		ENASupport: "required", NetworkPerformance: "25 Gigabit",
		Zones: []string{"ap-southeast-1c"},
	}
}

func c7iFlexLarge() InstanceType {
	return InstanceType{
		Name: "c7i-flex.large", VCPUs: 2, MemoryMiB: 4096, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 3.2, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 10000,
		MaxENIs: 3, NetworkCards: cards(1, 3, 390), IPv4PerENI: 10, IPv6PerENI: 10,
		EncryptionInTransit: true, ENASupport: "required", NetworkPerformance: "Up to 12.5 Gigabit",
		Zones: allZones,
	}
}

func x2ieznXLarge2() InstanceType {
	return InstanceType{
		Name: "x2iezn.2xlarge", VCPUs: 8, MemoryMiB: 262144, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 4.5, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 3170,
		MaxENIs: 4, NetworkCards: cards(1, 4, 12500), IPv4PerENI: 15, IPv6PerENI: 15,
		EncryptionInTransit: true, ENASupport: "required", NetworkPerformance: "Up to 25 Gigabit",
		Zones: []string{"ap-southeast-1a"},
	}
}

func inf2XLarge() InstanceType {
	return InstanceType{
		Name: "inf2.xlarge", VCPUs: 4, MemoryMiB: 16384, Architectures: []string{"x86_64"},
		CPUManufacturer: "AMD", SustainedClockGHz: 3.6, Hypervisor: "nitro", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 10000,
		MaxENIs: 4, NetworkCards: cards(1, 4, 2083), IPv4PerENI: 15, IPv6PerENI: 15,
		EncryptionInTransit: true, ENASupport: "required", NetworkPerformance: "Up to 15 Gigabit",

		InferenceAccelerators: []Device{{Name: "Inferentia2", Manufacturer: "AWS", Count: 1, MemoryMiB: 32768}},
		NeuronDevices:         []Device{{Name: "Inferentia2", Manufacturer: "AWS", Count: 1, MemoryMiB: 32768, Cores: 2}},
		Zones:                 []string{"ap-southeast-1b"},
	}
}

func m4Large() InstanceType {
	return InstanceType{
		Name: "m4.large", VCPUs: 2, MemoryMiB: 8192, Architectures: []string{"x86_64"},
		CPUManufacturer: "Intel", SustainedClockGHz: 2.4, Hypervisor: "xen", SupportsHVM: true,
		UsageClasses: []string{"on-demand", "spot"}, EBSOptimizedByDefault: true, EBSBandwidthMbps: 450,
		MaxENIs: 2, NetworkCards: cards(1, 2, 450), IPv4PerENI: 10, IPv6PerENI: 10,
		ENASupport: "unsupported", NetworkPerformance: "Moderate",
		Zones: allZones,
	}
}

func mac2Metal() InstanceType {
	return InstanceType{
		Name: "mac2.metal", VCPUs: 8, MemoryMiB: 16384, Architectures: []string{"arm64_mac"},
		CPUManufacturer: "Apple", BareMetal: true, SupportsHVM: true,
		UsageClasses: []string{"on-demand"}, MaxENIs: 8, NetworkCards: cards(1, 8, 10000), IPv4PerENI: 30,
		NetworkPerformance: "10 Gigabit", Zones: allZones,
	}
}

func fixtureCatalog() *Catalog {
	return New([]InstanceType{
		m5Large(), c7gXLarge(), p548XLarge(), g4dnXLarge(), c5Metal(), c7iFlexLarge(),
		x2ieznXLarge2(), inf2XLarge(), m4Large(), mac2Metal(),
	})
}
