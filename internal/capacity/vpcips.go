package capacity

// ipInputs are the terms of the IP-consumption estimate.
type ipInputs struct {
	maxPods          int
	usableENIs       int
	ipv4PerENI       int
	prefixDelegation bool
	customNetworking bool // pod ENIs live in a separate pod subnet
	trunk            bool // security groups for pods: one trunk ENI in the node subnet
	primaryOnly      bool // Windows: pod IPs come from the primary ENI only
}

// ipConsumption estimates the IPv4 addresses a node at max pods takes from the
// node subnet and, with custom networking, from the pod subnet.
//
// Host-network pods take no address. With secondary IPs the CNI claims every
// address of each attached ENI, so the count is whole ENIs. With prefix
// delegation each ENI costs its primary address plus /28 prefixes, and the CNI
// keeps one prefix warm. Branch ENIs of security groups for pods are not
// counted: their number depends on the pods, not on max pods.
func ipConsumption(in ipInputs) (nodeSubnet, podSubnet int) {
	podIPs := max(0, in.maxPods-hostNetworkPods)
	slotsPerENI := in.ipv4PerENI - 1 // secondary addresses or prefixes per ENI

	eniCap := in.usableENIs
	if in.primaryOnly {
		eniCap = min(eniCap, 1)
	}
	if !in.customNetworking {
		// The primary ENI carries pods and is always attached.
		eniCap = max(eniCap, 1)
	}

	var podENIIPs int
	if in.prefixDelegation {
		prefixes := ceilDiv(podIPs, ipsPerPrefix) + 1
		enis := min(enisFor(prefixes, slotsPerENI), eniCap)
		prefixes = min(prefixes, enis*slotsPerENI) // no room past the attached ENIs
		podENIIPs = enis + prefixes*ipsPerPrefix
	} else {
		enis := min(enisFor(podIPs, slotsPerENI), eniCap)
		podENIIPs = enis * in.ipv4PerENI
	}

	trunk := boolInt(in.trunk)
	if in.customNetworking {
		// Only the primary ENI (and the trunk) stay in the node subnet; pod ENIs,
		// primaries included, draw from the ENIConfig subnet.
		return 1 + trunk, podENIIPs
	}
	return podENIIPs + trunk, 0
}

// enisFor is the number of ENIs needed for n slots, at least one.
func enisFor(n, slotsPerENI int) int {
	if slotsPerENI <= 0 {
		return 1
	}
	return max(1, ceilDiv(n, slotsPerENI))
}

func ceilDiv(a, b int) int {
	return (a + b - 1) / b
}
