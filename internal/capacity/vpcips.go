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
// secondary addresses or /28 prefixes ipamd has assigned, plus the trunk ENI's address; and how
// many /28 prefixes are among them (0 with secondary IPs). Branch ENIs of security groups for
// pods are not counted: their number depends on the pods, not on max pods.
func ipConsumption(in ipInputs) (nodeSubnet, podSubnet, prefixes int) {
	slots := in.ipv4PerENI - 1 // secondary addresses or prefixes an ENI holds
	enis, units := 1, 0        // attached pod ENIs and the addresses or prefixes on them
	if in.primaryOnly {
		units = windowsPrimary(in, slots)
	} else {
		enis, units = simulateIPAMD(in, slots)
	}
	perUnit := 1
	if in.prefixDelegation {
		perUnit, prefixes = ipsPerPrefix, units
	}
	podENIIPs := enis + units*perUnit
	trunk := boolInt(in.trunk)
	if in.customNetworking {
		// The primary ENI (and the trunk) stay in the node subnet with their own address only;
		// pod ENIs draw from the ENIConfig subnet.
		return 1 + trunk, podENIIPs, prefixes
	}
	return podENIIPs + trunk, 0, prefixes
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
	p := newIPAMDPool(in, slots)
	podIPs := min(in.podIPs, in.podENIs*slots*p.perUnit)
	assigned := 0
	p.reconcile(assigned)
	// Once the pool holds max pods addresses it no longer grows.
	for assigned < podIPs && p.total() < in.maxPods {
		// Skip to the next pod that makes the pool low: nothing changes in between.
		next := p.total() - max(p.warmFree, 1) + 1
		if p.warmIPDefined {
			next = p.total() - p.warmIP + 1
		}
		assigned = min(max(next, assigned+1), podIPs)
		p.reconcile(assigned)
	}
	return p.enis, p.units
}

// ipamdPool is one node's address pool as simulateIPAMD replays it: its targets, and the ENIs
// attached with the units (addresses or prefixes) on them.
type ipamdPool struct {
	in      ipInputs
	slots   int // units one ENI holds
	perUnit int // addresses per unit: 1, or a prefix's

	warmIP, minIP, warmPrefix int
	warmIPDefined             bool // WARM_IP_TARGET or MINIMUM_IP_TARGET rules the pool
	warmFree                  int  // addresses the ENI or prefix target keeps free

	enis, units int
}

func newIPAMDPool(in ipInputs, slots int) *ipamdPool {
	p := &ipamdPool{in: in, slots: slots, perUnit: 1}
	var warmENI int
	warmENI, p.warmIP, p.minIP, p.warmPrefix = in.warm.values()
	p.warmIPDefined = p.warmIP > 0 || p.minIP > 0
	p.warmFree = warmENI * slots
	if in.prefixDelegation {
		p.perUnit = ipsPerPrefix
		p.warmFree = p.warmPrefix * ipsPerPrefix
	}
	if !in.customNetworking {
		p.enis = 1 // the primary ENI carries pods and is attached from the start
	}
	return p
}

// total is the addresses the pool holds.
func (p *ipamdPool) total() int { return p.units * p.perUnit }

// short returns how many units the pool lacks with assigned addresses in use; 0 when it is not
// low.
func (p *ipamdPool) short(assigned int) int {
	t := p.total()
	if t >= p.in.maxPods {
		return 0
	}
	free := t - assigned
	if p.warmIPDefined {
		need := max(p.warmIP-free, p.minIP-t, 0)
		if p.in.prefixDelegation {
			return prefixesFor(need)
		}
		return need
	}
	if free >= p.warmFree && (p.warmFree > 0 || free > 0) {
		return 0
	}
	if !p.in.prefixDelegation {
		return p.slots // a whole ENI's worth
	}
	freePrefixes := p.units - prefixesFor(assigned)
	return max(1, p.warmPrefix-freePrefixes)
}

// grow adds up to n units: on the last attached ENI if it has room (ENIs fill in order), else
// on a new ENI. It reports false when no ENI is left.
func (p *ipamdPool) grow(n int) bool {
	if p.enis > 0 && p.units < p.enis*p.slots {
		p.units += min(n, p.enis*p.slots-p.units)
		return true
	}
	if p.enis >= p.in.podENIs {
		return false
	}
	p.enis++
	p.units += min(n, p.slots)
	return true
}

// reconcile grows the pool until it is no longer low or no ENI is left, as ipamd's reconcile
// loop does.
func (p *ipamdPool) reconcile(assigned int) {
	for n := p.short(assigned); n > 0; n = p.short(assigned) {
		if !p.grow(n) {
			return
		}
	}
}

// prefixesFor is the /28 prefixes that hold n addresses.
func prefixesFor(n int) int {
	return (n + ipsPerPrefix - 1) / ipsPerPrefix
}
