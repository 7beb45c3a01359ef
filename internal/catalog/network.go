package catalog

import "github.com/nodeplane/terraform-provider-karpenter/internal/capacity"

// ToNetwork is the pod-capacity engine's view of the type.
//
// CardENIs lists MaximumNetworkInterfaces per card by card index. When EC2 reports no
// network cards (older API data), CardENIs stays empty and the engine falls back to the
// type's MaximumNetworkInterfaces for the default card, which is right for every
// single-card type.
func ToNetwork(it *InstanceType) capacity.Network {
	n := capacity.Network{
		InstanceType:     it.Name,
		VCPUs:            it.VCPUs,
		MemoryMiB:        it.MemoryMiB,
		Hypervisor:       it.Hypervisor,
		BareMetal:        it.BareMetal,
		MaxENIs:          it.MaxENIs,
		DefaultCardIndex: it.DefaultCardIndex,
		IPv4PerENI:       it.IPv4PerENI,
		IPv6PerENI:       it.IPv6PerENI,
		EFASupported:     it.EFASupported,
		MaxEFAInterfaces: it.MaxEFAInterfaces,
		ENAUnsupported:   it.ENASupport == "unsupported",
	}
	if trunk, _, ok := Trunking(it.Name); ok {
		n.TrunkCompatible = &trunk
	}
	if len(it.NetworkCards) > 0 {
		size := 0
		for _, c := range it.NetworkCards {
			size = max(size, c.Index+1)
		}
		n.CardENIs = make([]int, size)
		for _, c := range it.NetworkCards {
			if c.Index >= 0 {
				n.CardENIs[c.Index] = c.MaxENIs
			}
		}
	}
	return n
}
