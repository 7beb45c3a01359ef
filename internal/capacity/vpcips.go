package capacity

// VPC CNI (ipamd) warm-pool defaults: the values of the aws-node DaemonSet EKS ships.
const (
	DefaultWarmENITarget    = 1
	DefaultWarmPrefixTarget = 1
)

// WarmTargets are the VPC CNI's warm-pool settings (aws-node environment). A nil field takes
// the CNI's default: WARM_ENI_TARGET 1, WARM_PREFIX_TARGET 1, WARM_IP_TARGET and
// MINIMUM_IP_TARGET unset. As in ipamd, a WARM_IP_TARGET or MINIMUM_IP_TARGET above 0 takes
// precedence over the ENI and prefix targets. The tfsdk tags name the provider's attributes.
type WarmTargets struct {
	ENI       *int `tfsdk:"warm_eni_target"`    // WARM_ENI_TARGET: whole ENIs of free addresses (secondary IPs)
	IP        *int `tfsdk:"warm_ip_target"`     // WARM_IP_TARGET: free addresses
	MinimumIP *int `tfsdk:"minimum_ip_target"`  // MINIMUM_IP_TARGET: addresses held whatever the pods
	Prefix    *int `tfsdk:"warm_prefix_target"` // WARM_PREFIX_TARGET: free /28 prefixes (prefix delegation)
}

func (w WarmTargets) values() (eni, ip, minIP, prefix int) {
	eni, prefix = DefaultWarmENITarget, DefaultWarmPrefixTarget
	if w.ENI != nil {
		eni = *w.ENI
	}
	if w.Prefix != nil {
		prefix = *w.Prefix
	}
	if w.IP != nil {
		ip = *w.IP
	}
	if w.MinimumIP != nil {
		minIP = *w.MinimumIP
	}
	return eni, ip, minIP, prefix
}

// ipInputs are the terms of the IP projection.
type ipInputs struct {
	maxPods          int // the kubelet's max pods: ipamd stops growing its pool once it holds that many addresses
	podIPs           int // pods that need an address at max pods (host-network pods take none)
	podENIs          int // ENIs ipamd may use for pods (default card, less efa-only and the trunk; less the primary with custom networking)
	ipv4PerENI       int
	prefixDelegation bool
	customNetworking bool // pod ENIs live in a separate pod subnet
	trunk            bool // security groups for pods: one trunk ENI in the node subnet
	primaryOnly      bool // Windows: pod IPs come from the primary ENI only
	warm             WarmTargets
}

// ipConsumption projects the IPv4 addresses a node at max pods holds in the node subnet and,
// with custom networking, in the pod subnet: every attached ENI's primary address, plus the
// secondary addresses or /28 prefixes ipamd has assigned, plus the trunk ENI's address. Branch
// ENIs of security groups for pods are not counted: their number depends on the pods, not on
// max pods.
func ipConsumption(in ipInputs) (nodeSubnet, podSubnet int) {
	slots := in.ipv4PerENI - 1 // secondary addresses or prefixes an ENI holds
	enis, units := 1, 0        // attached pod ENIs and the addresses or prefixes on them
	if in.primaryOnly {
		units = windowsPrimary(in, slots)
	} else {
		enis, units = simulateIPAMD(in, slots)
	}
	perUnit := 1
	if in.prefixDelegation {
		perUnit = ipsPerPrefix
	}
	podENIIPs := enis + units*perUnit
	trunk := boolInt(in.trunk)
	if in.customNetworking {
		// The primary ENI (and the trunk) stay in the node subnet with their own address only;
		// pod ENIs draw from the ENIConfig subnet.
		return 1 + trunk, podENIIPs
	}
	return podENIIPs + trunk, 0
}

// windowsPrimary is what the primary ENI of a Windows node holds, whose pod addresses the VPC
// resource controller (not ipamd) assigns: the whole ENI with secondary IPs; with prefix
// delegation the prefixes the pods need and one more, as far as the ENI holds them.
func windowsPrimary(in ipInputs, slots int) (units int) {
	if !in.prefixDelegation {
		return max(slots, 0)
	}
	return max(0, min(prefixesFor(in.podIPs)+1, slots))
}

// simulateIPAMD replays ipamd's pool reconciliation while pods are added one by one up to
// in.podIPs, and returns the ENIs it has attached and the addresses (secondary IPs) or /28
// prefixes (prefix delegation) on them. The rules are the VPC CNI's (pkg/ipamd, v1.23):
//   - the pool is never grown once it holds max pods addresses;
//   - with WARM_IP_TARGET or MINIMUM_IP_TARGET above 0 it is low while fewer than WARM_IP_TARGET
//     addresses are free or fewer than MINIMUM_IP_TARGET are held, and grows by exactly what is
//     short (in whole prefixes with prefix delegation);
//   - otherwise it is low while fewer than WARM_ENI_TARGET ENIs' worth of addresses (secondary
//     IPs) or WARM_PREFIX_TARGET prefixes' worth (prefix delegation) are free, or, with a target
//     of 0, when none are; secondary IPs then fill a whole ENI, prefix delegation adds the
//     prefixes WARM_PREFIX_TARGET is short of, at least one;
//   - addresses go on an attached ENI with room first, then on a new ENI while ENIs are left.
//
// Pods are packed densely, so a prefix is free only past the assigned addresses.
func simulateIPAMD(in ipInputs, slots int) (enis, units int) {
	if slots <= 0 || in.podENIs <= 0 {
		// Nothing to assign: the primary ENI is attached all the same (outside custom networking).
		return boolInt(!in.customNetworking), 0
	}
	warmENI, warmIP, minIP, warmPrefix := in.warm.values()
	warmIPDefined := warmIP > 0 || minIP > 0
	perUnit := 1
	if in.prefixDelegation {
		perUnit = ipsPerPrefix
	}
	// warmFree is how many addresses the ENI or prefix target keeps free.
	warmFree := warmENI * slots
	if in.prefixDelegation {
		warmFree = warmPrefix * ipsPerPrefix
	}
	if !in.customNetworking {
		enis = 1 // the primary ENI carries pods and is attached from the start
	}
	total := func() int { return units * perUnit }

	// short returns how many units (addresses or prefixes) the pool lacks with assigned
	// addresses in use; 0 when it is not low.
	short := func(assigned int) int {
		t := total()
		if t >= in.maxPods {
			return 0
		}
		free := t - assigned
		if warmIPDefined {
			need := max(warmIP-free, minIP-t, 0)
			if in.prefixDelegation {
				return prefixesFor(need)
			}
			return need
		}
		if free >= warmFree && (warmFree > 0 || free > 0) {
			return 0
		}
		if !in.prefixDelegation {
			return slots // a whole ENI's worth
		}
		freePrefixes := units - prefixesFor(assigned)
		return max(1, warmPrefix-freePrefixes)
	}
	// grow adds up to n units: on the last attached ENI if it has room (ENIs fill in order),
	// else on a new ENI. It reports false when no ENI is left.
	grow := func(n int) bool {
		if enis > 0 && units < enis*slots {
			units += min(n, enis*slots-units)
			return true
		}
		if enis >= in.podENIs {
			return false
		}
		enis++
		units += min(n, slots)
		return true
	}
	reconcile := func(assigned int) {
		for n := short(assigned); n > 0; n = short(assigned) {
			if !grow(n) {
				return
			}
		}
	}

	podIPs := min(in.podIPs, in.podENIs*slots*perUnit)
	assigned := 0
	reconcile(assigned)
	// Once the pool holds max pods addresses it no longer grows.
	for assigned < podIPs && total() < in.maxPods {
		// Skip to the next pod that makes the pool low: nothing changes in between.
		next := total() - max(warmFree, 1) + 1
		if warmIPDefined {
			next = total() - warmIP + 1
		}
		assigned = min(max(next, assigned+1), podIPs)
		reconcile(assigned)
	}
	return enis, units
}

// prefixesFor is the /28 prefixes that hold n addresses.
func prefixesFor(n int) int {
	return (n + ipsPerPrefix - 1) / ipsPerPrefix
}
