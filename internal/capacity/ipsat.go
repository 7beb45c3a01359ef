package capacity

// IPsAtPods projects the IPv4 addresses ipamd holds on a node of type n under s that runs pods
// pods, in the node subnet and (custom networking only) in the pod subnet. It is Compute's
// VPCIPsAtMaxPods / PodSubnetIPsAtMaxPods for a node that is not full: the same ENIs, warm
// targets and growth cap (the kubelet's max pods), with only the pods that need an address
// changed.
//
// pods counts every pod on the node, as the kubelet's max pods does: it is clamped to
// [0, max pods], and the first two are taken to be the host-network pods (aws-node and
// kube-proxy) that need no address, as Compute assumes. So pods 0 to 2 give the empty node's
// pool, and pods = max pods gives Compute's figures. The result never decreases as pods grows.
//
// With Settings.AutoMode every pod is counted as needing an address, up to what the pod ENIs
// hold (autoModeAddresses): which pods of an Auto Mode node use the host network is not
// documented, so the count errs high.
//
// Errors are Compute's: invalid settings or network data, incompatible interfaces, no ENI
// left for pods.
func IPsAtPods(n Network, s Settings, pods int) (nodeSubnet, podSubnet int, err error) {
	r, err := Compute(n, s)
	if err != nil {
		return 0, 0, err
	}
	if s.AutoMode != nil {
		ips := autoModeAddresses(n, *s.AutoMode, r, min(max(pods, 0), r.MaxPods))
		return ips.nodeSubnet, ips.podSubnet, nil
	}
	in := projectionInputs(n, s, r)
	in.podIPs = max(0, min(max(pods, 0), r.MaxPods)-hostNetworkPods)
	nodeSubnet, podSubnet, _ = ipConsumption(in)
	return nodeSubnet, podSubnet, nil
}

// projectionInputs are the ipConsumption inputs of a full node of r (Compute's result for n
// and s, whose prefix-delegation and trunk fallbacks it applies to s).
func projectionInputs(n Network, s Settings, r Result) ipInputs {
	if r.PrefixFallback {
		s.PrefixDelegation = false
	}
	if r.NoTrunk {
		s.SecurityGroupsForPods = false
	}
	windows := IsWindows(ResolveFamily(s.AMIFamily))
	efaOnly0 := countEFAOnly(s.NetworkInterfaces, 0)
	cniReserved := boolInt(s.CustomNetworking) + boolInt(s.SecurityGroupsForPods)
	// ipamd ignores RESERVED_ENIS: every default-card ENI but the efa-only ones, the trunk and,
	// with custom networking, the primary may carry pods.
	podENIs := max(0, DefaultCardENIs(n)-efaOnly0-cniReserved)
	if windows {
		podENIs = min(podENIs, 1)
	}
	return ipInputs{
		maxPods:          r.MaxPods,
		podIPs:           max(0, r.MaxPods-hostNetworkPods),
		podENIs:          podENIs,
		ipv4PerENI:       n.IPv4PerENI,
		prefixDelegation: s.PrefixDelegation,
		customNetworking: s.CustomNetworking,
		trunk:            s.SecurityGroupsForPods,
		primaryOnly:      windows,
		warm:             s.Warm,
	}
}
