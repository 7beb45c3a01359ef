package capacity

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// EKS Auto Mode runs its own pod networking instead of the VPC CNI, and its NodeClass
// (eks.amazonaws.com) has neither the VPC CNI's settings nor a kubelet block:
//
//   - https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html: VPC CNI settings (warm
//     targets, custom networking, security groups for pods) do not apply; pods get /28 prefixes on
//     the node's ENIs by default and secondary IPs when the subnet has no free /28.
//   - https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html:
//     advancedNetworking.ipv4PrefixSize is "Auto" (prefixes, the default) or "32" (secondary IPs);
//     with podSubnetSelectorTerms pods leave the primary ENI to the node and use secondary ENIs
//     in the pod subnets; max pods is the usual ENI figure, then capped at 110.
//   - https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html: only types
//     with more than one vCPU, and no nano, micro or small sizes.
//
// Only IPv4 is modelled: an IPv6 cluster's nodes get a /80 each, which this package does not
// count.

// Values of AutoMode.IPv4PrefixSize (NodeClass spec.advancedNetworking.ipv4PrefixSize).
const (
	AutoModePrefixAuto = "Auto" // /28 prefixes, falling back to secondary IPs; the default
	AutoModePrefix32   = "32"   // secondary IPs only
)

// autoModeMaxPods is EKS Auto Mode's cap on pods per node, applied after the ENI figure.
const autoModeMaxPods = 110

// AutoMode is an EKS Auto Mode NodeClass's networking, as far as it changes pod capacity (tfsdk
// tags: karpenter_pod_capacity's `auto_mode`). A nil *AutoMode in Settings is a self-managed
// node class on the VPC CNI.
type AutoMode struct {
	// IPv4PrefixSize is spec.advancedNetworking.ipv4PrefixSize: AutoModePrefixAuto ("" too) or
	// AutoModePrefix32.
	IPv4PrefixSize string `tfsdk:"ipv4_prefix_size"`
	// PodSubnets: spec.podSubnetSelectorTerms (with podSecurityGroupSelectorTerms) is set, so pods
	// take their addresses from secondary ENIs in the pod subnets and none from the primary ENI.
	PodSubnets bool `tfsdk:"pod_subnets"`
}

// prefixes reports whether pods get /28 prefixes (the default) rather than secondary IPs.
func (a AutoMode) prefixes() bool { return a.IPv4PrefixSize != AutoModePrefix32 }

// ErrAutoModeUnsupported means EKS Auto Mode does not launch the instance type.
var ErrAutoModeUnsupported = errors.New("instance type not supported by EKS Auto Mode")

// autoModeSizes are the instance sizes EKS Auto Mode never launches.
var autoModeSizes = []string{"nano", "micro", "small"}

// autoModeSupported rejects the types EKS Auto Mode does not launch: one vCPU or less, or a
// nano, micro or small size.
func autoModeSupported(n Network) error {
	_, size, _ := strings.Cut(n.InstanceType, ".")
	for _, s := range autoModeSizes {
		if size == s {
			return fmt.Errorf("%w: %s is a %s size, which EKS Auto Mode does not launch", ErrAutoModeUnsupported, n.InstanceType, s)
		}
	}
	if n.VCPUs <= 1 {
		return fmt.Errorf("%w: %s has %d vCPU; EKS Auto Mode launches only types with more than 1", ErrAutoModeUnsupported,
			n.InstanceType, n.VCPUs)
	}
	return nil
}

// autoModeConflicts are the findings of settings that have no place in an Auto Mode NodeClass:
// the VPC CNI's, Karpenter's own (RESERVED_ENIS, networkInterfaces, amiFamily) and the kubelet's.
// Each is on the setting's own attribute.
func autoModeConflicts(s Settings) []attrpath.Finding {
	if s.AutoMode == nil {
		return nil
	}
	var errs []attrpath.Finding
	add := func(field, why string) {
		errs = append(errs, attrpath.Finding{Path: attrpath.Of(field),
			Message: "does not apply with auto_mode: " + why + ". Remove it, or remove auto_mode to model a self-managed node class."})
	}
	const cni = "EKS Auto Mode runs its own networking, not the VPC CNI " +
		"(https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html)"
	const nodeClass = "the EKS Auto Mode NodeClass has no such field " +
		"(https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)"
	if s.AMIFamily != "" {
		add("ami_family", "EKS Auto Mode chooses the node's AMI itself; "+nodeClass)
	}
	if s.PrefixDelegation {
		add("prefix_delegation", cni+"; auto_mode.ipv4_prefix_size chooses prefixes or secondary IPs")
	}
	if s.CustomNetworking {
		add("custom_networking", cni+"; auto_mode.pod_subnets models pod subnets")
	}
	if s.SecurityGroupsForPods {
		add("security_groups_for_pods", cni)
	}
	if s.BranchInterfaces != nil {
		add("branch_interfaces", cni)
	}
	for _, w := range []struct {
		field string
		v     *int
	}{
		{"warm_eni_target", s.Warm.ENI}, {"warm_ip_target", s.Warm.IP},
		{"minimum_ip_target", s.Warm.MinimumIP}, {"warm_prefix_target", s.Warm.Prefix},
	} {
		if w.v != nil {
			add(w.field, cni)
		}
	}
	if s.ReservedENIs != 0 {
		add("reserved_enis", "RESERVED_ENIS is a setting of a self-managed Karpenter controller, which EKS Auto Mode runs for you")
	}
	if s.NetworkInterfaces != nil {
		add("network_interfaces", "networkInterfaces is an EC2NodeClass field; "+nodeClass)
	}
	if s.MaxPods != nil || s.MaxPodsExpression != "" {
		add("max_pods", "EKS Auto Mode sets max pods itself (the ENI figure capped at 110) and takes no kubelet maxPods; "+nodeClass)
	}
	if s.PodsPerCore != nil {
		add("pods_per_core", "EKS Auto Mode takes no kubelet settings; "+nodeClass)
	}
	switch s.AutoMode.IPv4PrefixSize {
	case "", AutoModePrefixAuto, AutoModePrefix32:
	default:
		errs = append(errs, attrpath.Finding{Path: attrpath.Of("auto_mode", "ipv4_prefix_size"),
			Message: fmt.Sprintf("must be %q or %q, got %q", AutoModePrefixAuto, AutoModePrefix32, s.AutoMode.IPv4PrefixSize)})
	}
	return errs
}

// computeAutoMode is Compute for an EKS Auto Mode node: the ENI figure of the VPC CNI formulas
// (prefix or secondary IPs, the primary ENI left out with pod subnets), capped at 110. The
// kubelet and Karpenter (which EKS runs) agree on it, so the result is always consistent.
func computeAutoMode(n Network, s Settings) (Result, error) {
	if err := autoModeSupported(n); err != nil {
		return Result{}, err
	}
	a := *s.AutoMode
	prefixes, fallback := a.prefixes(), false
	var warnings []string
	if prefixes && !isNitro(n) {
		prefixes, fallback = false, true
		warnings = append(warnings, fmt.Sprintf("%s runs on the %s hypervisor, which cannot take /28 prefixes; EKS Auto Mode "+
			"falls back to secondary IPs", n.InstanceType, n.Hypervisor))
	}
	// With pod subnets the primary ENI holds the node's address only, as with the VPC CNI's
	// custom networking: the same budget, reserving it.
	e := budgetENIs(n, Settings{PrefixDelegation: prefixes, CustomNetworking: a.PodSubnets})
	if e.usable == 0 {
		return Result{}, fmt.Errorf("%w: %s has %d ENIs on its default card and pod subnets leave the primary one to the node",
			ErrNoPodENI, n.InstanceType, e.cardENIs)
	}
	addressable := e.usable*e.podIPsPerENI + hostNetworkPods
	maxPods := min(addressable, autoModeMaxPods)
	r := Result{
		ENILimitedPods:       eniLimitedPods(e.cardENIs, n.IPv4PerENI),
		MaxPods:              maxPods,
		KarpenterAssumedPods: maxPods,
		Consistent:           true,
		UsableENIs:           e.usable,
		IPv4PerENI:           n.IPv4PerENI,
		PodIPsPerENI:         e.podIPsPerENI,
		PrefixFallback:       fallback,
		AddressablePods:      addressable,
		EFAInterfaces:        efaInterfaces(n, nil),
		Warnings:             warnings,
		Formula:              autoModeFormula(e, prefixes, n.IPv4PerENI, addressable, maxPods),
	}
	ips := autoModeAddresses(n, a, r, maxPods)
	r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods, r.PrefixesAtMaxPods = ips.nodeSubnet, ips.podSubnet, ips.prefixes
	return r, nil
}

// autoModeFormula spells out the Auto Mode max pods: the ENI figure and the cap.
func autoModeFormula(e eniBudget, prefixes bool, ipv4PerENI, addressable, maxPods int) string {
	mode, per := "secondary IPs", ""
	if prefixes {
		mode, per = "/28 prefixes", fmt.Sprintf(" x %d", ipsPerPrefix)
	}
	enis := fmt.Sprintf("%d ENIs", e.cardENIs)
	if e.reserved > 0 {
		enis = fmt.Sprintf("(%d ENIs - 1 primary, pod subnets)", e.cardENIs)
	}
	f := fmt.Sprintf("EKS Auto Mode, %s: %s x (%d IPv4 - 1)%s + 2 = %d", mode, enis, ipv4PerENI, per, addressable)
	if maxPods < addressable {
		f += fmt.Sprintf(", capped at %d", maxPods)
	}
	return f
}

// autoModeIPs are the IPv4 addresses an Auto Mode node holds.
type autoModeIPs struct {
	nodeSubnet, podSubnet int
	prefixes              int // /28 prefixes among them (0 with secondary IPs)
}

// autoModeAddresses are the IPv4 addresses an Auto Mode node of type n with networking a holds
// when it runs pods pods, r being Compute's result for it: the primary address of each ENI in
// use (the first is the node's) plus one address per pod, or one /28 per 16 pods (at least one,
// which the node takes up front) with prefixes. With pod subnets the primary ENI keeps only the
// node's address in the node subnet and the pod ENIs are in the pod subnet. Every pod is counted
// as needing an address, up to what the pod ENIs hold; any warm pool EKS keeps beyond that is
// not documented and not counted.
func autoModeAddresses(n Network, a AutoMode, r Result, pods int) autoModeIPs {
	prefixes := a.prefixes() && !r.PrefixFallback
	slots := max(n.IPv4PerENI-1, 0) // secondary addresses or prefixes one ENI holds
	perUnit := 1
	if prefixes {
		perUnit = ipsPerPrefix
	}
	room := r.UsableENIs * slots * perUnit
	podIPs := min(max(pods, 0), room)
	units := podIPs
	if prefixes && room > 0 {
		units = max(1, prefixesFor(podIPs))
	}
	enis := 0 // pod ENIs in use
	if slots > 0 {
		enis = (units + slots - 1) / slots
	}
	out := autoModeIPs{}
	if prefixes {
		out.prefixes = units
	}
	if a.PodSubnets {
		out.nodeSubnet, out.podSubnet = 1, enis+units*perUnit
		return out
	}
	out.nodeSubnet = max(enis, 1) + units*perUnit
	return out
}

// AutoModeIPsAtPods projects the IPv4 addresses an EKS Auto Mode node of type n with networking
// a holds when it runs pods pods (clamped to [0, max pods]), in the node subnet and the pod
// subnets, and the /28 prefixes among them (autoModeAddresses). Errors are Compute's.
func AutoModeIPsAtPods(n Network, a AutoMode, pods int) (nodeSubnet, podSubnet, prefixes int, err error) {
	r, err := Compute(n, Settings{AutoMode: &a})
	if err != nil {
		return 0, 0, 0, err
	}
	ips := autoModeAddresses(n, a, r, min(max(pods, 0), r.MaxPods))
	return ips.nodeSubnet, ips.podSubnet, ips.prefixes, nil
}
