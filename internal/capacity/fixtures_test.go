package capacity

// Instance type fixtures built from the numbers in the Karpenter reference
// (§3.3 and the VPC limits table): vCPUs, default-card ENIs, IPv4 per ENI.

func ptr(v int) *int { return &v }

func m5Large() Network {
	return Network{InstanceType: "m5.large", VCPUs: 2, Hypervisor: HypervisorNitro,
		MaxENIs: 3, CardENIs: []int{3}, IPv4PerENI: 10, IPv6PerENI: 10}
}

func m5XLarge() Network {
	return Network{InstanceType: "m5.xlarge", VCPUs: 4, Hypervisor: HypervisorNitro,
		MaxENIs: 4, CardENIs: []int{4}, IPv4PerENI: 15, IPv6PerENI: 15}
}

func c518XLarge() Network {
	return Network{InstanceType: "c5.18xlarge", VCPUs: 72, Hypervisor: HypervisorNitro,
		MaxENIs: 15, CardENIs: []int{15}, IPv4PerENI: 50, IPv6PerENI: 50}
}

func t3Micro() Network {
	return Network{InstanceType: "t3.micro", VCPUs: 2, Hypervisor: HypervisorNitro,
		MaxENIs: 2, CardENIs: []int{2}, IPv4PerENI: 2, IPv6PerENI: 2}
}

// p548XLarge has 32 network cards of 2 ENIs each (64 in total).
func p548XLarge() Network {
	cards := make([]int, 32)
	for i := range cards {
		cards[i] = 2
	}
	return Network{InstanceType: "p5.48xlarge", VCPUs: 192, Hypervisor: HypervisorNitro,
		MaxENIs: 64, CardENIs: cards, IPv4PerENI: 50, IPv6PerENI: 50,
		EFASupported: true, MaxEFAInterfaces: 32}
}

// m4Large is a Xen instance type: 2 ENIs of 10 IPv4.
func m4Large() Network {
	return Network{InstanceType: "m4.large", VCPUs: 2, Hypervisor: HypervisorXen,
		MaxENIs: 2, CardENIs: []int{2}, IPv4PerENI: 10, IPv6PerENI: 10}
}

// c5Metal is bare metal: no hypervisor reported.
func c5Metal() Network {
	return Network{InstanceType: "c5.metal", VCPUs: 96, BareMetal: true,
		MaxENIs: 15, CardENIs: []int{15}, IPv4PerENI: 50, IPv6PerENI: 50}
}

// p5EFALayout is the primary interface plus efa-only on card 0 device 1 and
// on device 0 of cards 1..31: 32 efa-only entries.
func p5EFALayout() []Interface {
	ifaces := []Interface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: InterfaceTypeInterface},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: InterfaceTypeEFAOnly},
	}
	for card := 1; card < 32; card++ {
		ifaces = append(ifaces, Interface{NetworkCardIndex: card, DeviceIndex: 0, InterfaceType: InterfaceTypeEFAOnly})
	}
	return ifaces
}
