// Package capacity computes how many pods an EC2 instance type runs and how
// many VPC IPv4 addresses a full node consumes, for one AMI family and VPC CNI
// configuration.
//
// It keeps two numbers side by side: the pod count Karpenter schedules against
// (Karpenter's pods()), and the count the kubelet really gets, following the
// EKS max-pods calculator rules for prefix delegation, custom networking and
// security groups for pods. When the two differ, Result says why and what to
// set so they agree.
//
// With Settings.AutoMode it models an EKS Auto Mode node instead, whose networking is not the
// VPC CNI (automode.go).
package capacity

import (
	"errors"
	"fmt"
	"strings"
)

// AMI families accepted by EC2NodeClass spec.amiFamily.
const (
	FamilyAL2          = "AL2"
	FamilyAL2023       = "AL2023"
	FamilyBottlerocket = "Bottlerocket"
	FamilyCustom       = "Custom"
	FamilyWindows2019  = "Windows2019"
	FamilyWindows2022  = "Windows2022"
	FamilyWindows2025  = "Windows2025"

	// DefaultFamily is used when Settings.AMIFamily is empty.
	DefaultFamily = FamilyAL2023
)

// Interface types accepted by EC2NodeClass spec.networkInterfaces.
const (
	InterfaceTypeInterface = "interface"
	InterfaceTypeEFAOnly   = "efa-only"
)

// Hypervisor values reported by DescribeInstanceTypes.
const (
	HypervisorNitro = "nitro"
	HypervisorXen   = "xen"
)

const (
	// ipsPerPrefix is the size of a /28 IPv4 prefix used by prefix delegation.
	ipsPerPrefix = 16
	// hostNetworkPods are the pods that need no VPC IP (aws-node and kube-proxy);
	// every ENI-based formula adds them back.
	hostNetworkPods = 2
	// windowsDefaultMaxPods is Karpenter's and the Windows AMI's fixed pod count.
	windowsDefaultMaxPods = 110
	// EKS max-pods calculator ceilings under prefix delegation: 110 pods up to
	// 30 vCPUs, 250 above.
	lowCPUThreshold       = 30
	maxPodsCeilingLowCPU  = 110
	maxPodsCeilingHighCPU = 250
)

var families = []string{
	FamilyAL2, FamilyAL2023, FamilyBottlerocket, FamilyCustom,
	FamilyWindows2019, FamilyWindows2022, FamilyWindows2025,
}

// Families returns every supported AMI family, in a fresh slice.
func Families() []string {
	return append([]string(nil), families...)
}

// IsFamily reports whether family is a supported AMI family name (exact case).
func IsFamily(family string) bool {
	for _, f := range families {
		if f == family {
			return true
		}
	}
	return false
}

// ResolveFamily maps the empty family to DefaultFamily and returns others as is.
func ResolveFamily(family string) string {
	if family == "" {
		return DefaultFamily
	}
	return family
}

// IsWindows reports whether family is one of the Windows AMI families.
func IsWindows(family string) bool {
	switch family {
	case FamilyWindows2019, FamilyWindows2022, FamilyWindows2025:
		return true
	}
	return false
}

// honoursPodsPerCore mirrors Karpenter's PodsPerCoreEnabled feature flag:
// Bottlerocket ignores kubelet podsPerCore.
func honoursPodsPerCore(family string) bool {
	return family != FamilyBottlerocket
}

// Network is what the EC2 API says about one instance type's networking.
type Network struct {
	InstanceType     string
	VCPUs            int
	MemoryMiB        int    // the type's memory (the maxPods expression's memory_mib)
	Hypervisor       string // "nitro", "xen" or "" (bare metal)
	BareMetal        bool
	MaxENIs          int   // NetworkInfo.MaximumNetworkInterfaces (all cards)
	DefaultCardIndex int   // NetworkInfo.DefaultNetworkCardIndex
	CardENIs         []int // MaximumNetworkInterfaces per card, by card index; empty => default card has MaxENIs
	IPv4PerENI       int
	IPv6PerENI       int
	EFASupported     bool
	MaxEFAInterfaces int
	// ENAUnsupported is EC2's EnaSupport "unsupported": Karpenter launches no such type with
	// spec.networkInterfaces.
	ENAUnsupported bool
	// TrunkCompatible says whether the VPC resource controller gives the type a trunk ENI for
	// security groups for pods; nil when unknown (taken as compatible).
	TrunkCompatible *bool
}

// Interface is one EC2NodeClass spec.networkInterfaces entry (tfsdk tags: a
// `network_interfaces` entry).
type Interface struct {
	NetworkCardIndex int    `tfsdk:"network_card_index"`
	DeviceIndex      int    `tfsdk:"device_index"`
	InterfaceType    string `tfsdk:"interface_type"` // InterfaceTypeInterface or InterfaceTypeEFAOnly
}

// Settings are the node class, kubelet and VPC CNI choices that affect capacity.
type Settings struct {
	AMIFamily             string // one of Families(); "" => AL2023
	PrefixDelegation      bool   // VPC CNI ENABLE_PREFIX_DELEGATION
	CustomNetworking      bool   // VPC CNI AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG (ENIConfig)
	SecurityGroupsForPods bool   // VPC CNI ENABLE_POD_ENI
	ReservedENIs          int    // Karpenter's RESERVED_ENIS
	NetworkInterfaces     []Interface
	MaxPods               *int // kubelet maxPods
	// MaxPodsExpression is Karpenter v1.15's CEL maxPods (the NodeClassCEL feature gate),
	// evaluated per instance type in place of MaxPods by MaxPodsEval; "" when not set.
	MaxPodsExpression string
	// MaxPodsEval evaluates MaxPodsExpression (kubeletconfig.EvaluateForCapacity); the engine
	// itself carries no expression language.
	MaxPodsEval      func(expr string, v ExpressionVars) (int64, error) `json:"-"`
	PodsPerCore      *int                                               // kubelet podsPerCore
	BranchInterfaces *int                                               // branch ENI count for security groups for pods, when known
	Warm             WarmTargets
	// AutoMode is an EKS Auto Mode node class's networking (automode.go); nil for a
	// self-managed node class on the VPC CNI. With it, none of the settings above may be set.
	AutoMode *AutoMode
}

// Result is the capacity of one instance type under one Settings. The tfsdk tags name the
// attributes of karpenter_pod_capacity that report it.
type Result struct {
	ENILimitedPods       int    `tfsdk:"eni_limited_pods"`       // Karpenter's ENI-limited pod count (uses ReservedENIs only)
	MaxPods              int    `tfsdk:"max_pods"`               // what the kubelet runs with
	KarpenterAssumedPods int    `tfsdk:"karpenter_assumed_pods"` // what Karpenter schedules against
	Consistent           bool   `tfsdk:"consistent"`             // KarpenterAssumedPods == MaxPods
	Reason               string `tfsdk:"reason"`                 // why they differ and what to set; empty when Consistent
	UsableENIs           int    `tfsdk:"usable_enis"`            // default-card ENIs that carry pod IPs
	IPv4PerENI           int    `tfsdk:"ipv4_per_eni"`
	PodIPsPerENI         int    `tfsdk:"pod_ips_per_eni"` // pod addresses one ENI provides (x16 with prefix delegation)
	// PrefixFallback: prefix delegation was asked for on a non-Nitro type, where the VPC CNI
	// falls back to secondary IPs; the result is the secondary-IP one.
	PrefixFallback bool
	// NoTrunk: security groups for pods is on but the type cannot carry a trunk ENI; the VPC CNI
	// then reserves none, and its pods get no security groups of their own.
	NoTrunk bool
	// AddressablePods are the pods the usable ENIs give an address (plus host-network pods),
	// before any cap; a kubelet max_pods above it leaves the pods past it without an IP.
	AddressablePods       int
	EFAInterfaces         int      `tfsdk:"efa_interfaces"`             // vpc.amazonaws.com/efa
	PodENI                *int     `tfsdk:"pod_eni"`                    // vpc.amazonaws.com/pod-eni; nil when unknown
	VPCIPsAtMaxPods       int      `tfsdk:"vpc_ips_at_max_pods"`        // node-subnet IPv4 addresses a full node consumes
	PodSubnetIPsAtMaxPods int      `tfsdk:"pod_subnet_ips_at_max_pods"` // pod-subnet IPv4 addresses (custom networking, Auto Mode pod subnets)
	Warnings              []string `tfsdk:"warnings"`
	Formula               string   `tfsdk:"formula"` // one line explaining MaxPods

	// PrefixesAtMaxPods are the /28 IPv4 prefixes (16 addresses each) among the addresses a full
	// node holds, in the subnet that carries pod IPs; 0 with secondary IPs. A subnet needs that
	// many free /28 blocks for a full node to get prefixes.
	PrefixesAtMaxPods int `tfsdk:"prefixes_at_max_pods"`
}

// Errors returned by Compute, for errors.Is. Settings problems are returned as
// attrpath.Finding values joined together (use errors.As).
var (
	// ErrInvalidNetwork means the Network description is incomplete or negative.
	ErrInvalidNetwork = errors.New("invalid instance type network data")
	// ErrIncompatible means Karpenter would not launch this instance type with
	// the configured network interfaces.
	ErrIncompatible = errors.New("instance type incompatible with network interfaces")
	// ErrNoPodENI means no ENI is left for pod IPs and kubelet max_pods is unset.
	ErrNoPodENI = errors.New("no ENI left for pods")
	// ErrMaxPodsExpression is a CEL maxPods expression that does not evaluate for a type.
	ErrMaxPodsExpression = errors.New("the kubelet maxPods expression does not evaluate")
)

// Compute returns the pod capacity and IP consumption of instance type n under s.
func Compute(n Network, s Settings) (Result, error) {
	if err := checkComputeInputs(n, s); err != nil {
		return Result{}, err
	}
	if s.AutoMode != nil {
		return computeAutoMode(n, s)
	}
	s, warnings, fallback, noTrunk := hardwareSettings(n, s)
	family := ResolveFamily(s.AMIFamily)
	windows := IsWindows(family)
	e := budgetENIs(n, s)

	r := Result{
		ENILimitedPods: eniLimitedPods(e.cardENIs-s.ReservedENIs-e.efaOnly, n.IPv4PerENI),
		UsableENIs:     e.usable,
		IPv4PerENI:     n.IPv4PerENI,
		PodIPsPerENI:   e.podIPsPerENI,
		EFAInterfaces:  efaInterfaces(n, s.NetworkInterfaces),
	}
	if s.BranchInterfaces != nil {
		v := *s.BranchInterfaces
		r.PodENI = &v
	}

	if s.MaxPodsExpression != "" {
		v, err := maxPodsExpression(n, s, family, windows, r.ENILimitedPods)
		if err != nil {
			return Result{}, err
		}
		s.MaxPods = &v
	}
	r.KarpenterAssumedPods = karpenterAssumedPods(n, s, family, windows, r.ENILimitedPods)

	addressable := e.usable*e.podIPsPerENI + hostNetworkPods // uncapped ENI capacity
	maxPods, formula, err := kubeletMaxPods(n, s, family, windows, e, addressable)
	if err != nil {
		return Result{}, err
	}
	r.AddressablePods = addressable
	r.PrefixFallback, r.NoTrunk = fallback, noTrunk
	r.MaxPods = maxPods
	r.Formula = formula

	r.Consistent = r.KarpenterAssumedPods == r.MaxPods
	if !r.Consistent {
		r.Reason = inconsistencyReason(s, r, e.cniReserved)
	}
	r.Warnings = append(warnings, podWarnings(s, family, windows, maxPods, addressable, e.podIPsPerENI)...)

	r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods, r.PrefixesAtMaxPods = ipConsumption(projectionInputs(n, s, r))
	return r, nil
}

// checkComputeInputs rejects settings, network data or interfaces Compute cannot work from.
func checkComputeInputs(n Network, s Settings) error {
	if errs := ValidateSettings(s); len(errs) > 0 {
		joined := make([]error, len(errs))
		for i, e := range errs {
			joined[i] = e
		}
		return errors.Join(joined...)
	}
	if err := validateNetwork(n); err != nil {
		return err
	}
	return checkInterfaces(n, s.NetworkInterfaces)
}

// hardwareSettings turns off what the type's hardware cannot do, as the VPC CNI does: prefix
// delegation on Xen (fallback) and security groups for pods without a trunk ENI (noTrunk),
// with a warning for each and for a type that reports no hypervisor.
func hardwareSettings(n Network, s Settings) (_ Settings, warnings []string, fallback, noTrunk bool) {
	if s.PrefixDelegation && !isNitro(n) {
		// The VPC CNI cannot assign prefixes on Xen and uses secondary IPs there instead.
		fallback, s.PrefixDelegation = true, false
		warnings = append(warnings, fmt.Sprintf("%s runs on the %s hypervisor, where the VPC CNI cannot assign prefixes and falls back to "+
			"secondary IPs", n.InstanceType, n.Hypervisor))
	}
	if s.SecurityGroupsForPods && n.TrunkCompatible != nil && !*n.TrunkCompatible {
		// No trunk ENI on this type: the CNI reserves none, and its pods share the node's groups.
		noTrunk, s.SecurityGroupsForPods = true, false
		warnings = append(warnings, fmt.Sprintf("%s cannot carry a trunk ENI: security groups for pods does not apply to its pods", n.InstanceType))
	}
	if s.PrefixDelegation {
		if n.Hypervisor == "" && !n.BareMetal {
			warnings = append(warnings, fmt.Sprintf("%s reports no hypervisor; assuming Nitro for prefix delegation", n.InstanceType))
		}
	}
	return s, warnings, fallback, noTrunk
}

// eniBudget is how the ENIs of a type's default network card divide up under the settings.
type eniBudget struct {
	cardENIs     int // ENIs on the default card
	efaOnly      int // efa-only interfaces configured on it
	cniReserved  int // ENIs the CNI itself takes (custom networking, the trunk)
	reserved     int // ENIs that carry no pods: the larger of RESERVED_ENIS and cniReserved
	usable       int // ENIs left for pod IPs
	podIPsPerENI int // pod addresses one usable ENI carries
}

func budgetENIs(n Network, s Settings) eniBudget {
	e := eniBudget{cardENIs: DefaultCardENIs(n), efaOnly: countEFAOnly(s.NetworkInterfaces, 0)}
	// The kubelet loses the larger of Karpenter's reserved ENIs and what the CNI
	// itself takes: with custom networking the primary ENI stays in the node
	// subnet and carries no pods, and security groups for pods turn one ENI into
	// the trunk. Taking the max (not the sum) keeps RESERVED_ENIS=1 meaning
	// "custom networking" as Karpenter's docs intend, instead of double counting.
	e.cniReserved = boolInt(s.CustomNetworking) + boolInt(s.SecurityGroupsForPods)
	e.reserved = max(s.ReservedENIs, e.cniReserved)
	e.usable = max(0, e.cardENIs-e.efaOnly-e.reserved)

	e.podIPsPerENI = n.IPv4PerENI - 1 // the ENI's primary address never goes to a pod
	if s.PrefixDelegation {
		e.podIPsPerENI *= ipsPerPrefix
	}
	return e
}

// karpenterAssumedPods is the max pods Karpenter schedules against: it knows only
// RESERVED_ENIS, not what the CNI takes.
func karpenterAssumedPods(n Network, s Settings, family string, windows bool, eniLimited int) int {
	karpenter := eniLimited
	switch {
	case s.MaxPods != nil:
		karpenter = *s.MaxPods
	case windows:
		karpenter = windowsDefaultMaxPods
	}
	return applyPodsPerCore(karpenter, n.VCPUs, family, s.PodsPerCore)
}

// kubeletMaxPods is the max pods the kubelet runs with, and the formula that explains it: a
// fixed max_pods, Windows' default, or what the usable ENIs address (capped per vCPU with
// prefixes); pods_per_core lowers each.
func kubeletMaxPods(n Network, s Settings, family string, windows bool, e eniBudget, addressable int) (int, string, error) {
	var maxPods int
	var formula string
	switch {
	case s.MaxPods != nil:
		maxPods = *s.MaxPods
		formula = fmt.Sprintf("kubelet max_pods = %d", maxPods)
		if s.MaxPodsExpression != "" {
			formula = fmt.Sprintf("kubelet maxPods expression %q = %d", s.MaxPodsExpression, maxPods)
		}
	case windows:
		maxPods = windowsDefaultMaxPods
		formula = fmt.Sprintf("Windows AMI families run %d pods", maxPods)
	default:
		if e.usable == 0 {
			return 0, "", fmt.Errorf("%w: %s has %d ENIs on its default card, %d reserved and %d efa-only; set kubelet max_pods or reserve fewer ENIs",
				ErrNoPodENI, n.InstanceType, e.cardENIs, e.reserved, e.efaOnly)
		}
		maxPods = addressable
		formula = eniFormula(e.cardENIs, e.reserved, s, e.efaOnly, n.IPv4PerENI, addressable)
		if s.PrefixDelegation {
			if ceiling := prefixCeiling(n.VCPUs); maxPods > ceiling {
				maxPods = ceiling
				formula += fmt.Sprintf(", capped at %d for %d vCPUs (%s %d)", ceiling, n.VCPUs, ceilingRelation(n.VCPUs), lowCPUThreshold)
			}
		}
	}
	if limited := applyPodsPerCore(maxPods, n.VCPUs, family, s.PodsPerCore); limited < maxPods {
		formula += fmt.Sprintf("; pods_per_core %d x %d vCPUs = %d", *s.PodsPerCore, n.VCPUs, limited)
		maxPods = limited
	}
	return maxPods, formula, nil
}

// podWarnings are the warnings on the pods the kubelet runs: more than the ENIs address, more
// than Windows' primary ENI carries, and settings that do not apply.
func podWarnings(s Settings, family string, windows bool, maxPods, addressable, podIPsPerENI int) []string {
	var warnings []string
	if s.MaxPods != nil && !windows && maxPods > addressable {
		// Windows is covered by its own primary-ENI warning below.
		warnings = append(warnings, fmt.Sprintf(
			"kubelet max pods %d is above the %d pods the ENIs can address; pods past %d will not get an IP",
			maxPods, addressable, addressable))
	}
	if windows && maxPods > podIPsPerENI {
		// The VPC resource controller gives Windows pods addresses from the
		// primary ENI only (vpc.amazonaws.com/PrivateIPv4Address).
		warnings = append(warnings, fmt.Sprintf(
			"Windows nodes take pod IPs from the primary ENI only: %d pod IPs for %d max pods", podIPsPerENI, maxPods))
	}
	if s.SecurityGroupsForPods && s.BranchInterfaces == nil {
		warnings = append(warnings, "security groups for pods is on but branch_interfaces is not set; vpc.amazonaws.com/pod-eni capacity is unknown")
	}
	if family == FamilyBottlerocket && s.PodsPerCore != nil && *s.PodsPerCore > 0 {
		warnings = append(warnings, "Bottlerocket ignores kubelet pods_per_core")
	}
	return warnings
}

// DefaultCardENIs is MaximumNetworkInterfaces of the default network card: the
// VPC CNI only attaches pod ENIs there (Karpenter's default_enis).
func DefaultCardENIs(n Network) int {
	if n.DefaultCardIndex < len(n.CardENIs) {
		return n.CardENIs[n.DefaultCardIndex]
	}
	return n.MaxENIs
}

// eniLimitedPods is Karpenter's ENILimitedPods for an already reduced ENI count.
func eniLimitedPods(enis, ipv4PerENI int) int {
	if enis <= 0 {
		return 0
	}
	return enis*(ipv4PerENI-1) + hostNetworkPods
}

// applyPodsPerCore caps pods at podsPerCore x vCPUs, as Karpenter and the
// kubelet do, for families that honour the setting.
func applyPodsPerCore(pods, vcpus int, family string, podsPerCore *int) int {
	if podsPerCore == nil || *podsPerCore <= 0 || !honoursPodsPerCore(family) {
		return pods
	}
	return min(pods, *podsPerCore*vcpus)
}

func prefixCeiling(vcpus int) int {
	if vcpus > lowCPUThreshold {
		return maxPodsCeilingHighCPU
	}
	return maxPodsCeilingLowCPU
}

func ceilingRelation(vcpus int) string {
	if vcpus > lowCPUThreshold {
		return ">"
	}
	return "<="
}

// eniFormula spells out the ENI-based max pods computation with its terms.
func eniFormula(cardENIs, reserved int, s Settings, efaOnly0, ipv4PerENI, result int) string {
	reservedTerm := fmt.Sprintf("%d reserved", reserved)
	if reserved > s.ReservedENIs {
		var why []string
		if s.CustomNetworking {
			why = append(why, "custom networking")
		}
		if s.SecurityGroupsForPods {
			why = append(why, "security groups for pods")
		}
		reservedTerm += " for " + strings.Join(why, " + ")
	}
	prefix := ""
	if s.PrefixDelegation {
		prefix = fmt.Sprintf(" x %d", ipsPerPrefix)
	}
	return fmt.Sprintf("(%d ENIs - %s - %d efa-only) x (%d IPv4 - 1)%s + 2 = %d",
		cardENIs, reservedTerm, efaOnly0, ipv4PerENI, prefix, result)
}

// inconsistencyReason names why Karpenter's pod count differs from the
// kubelet's and the setting that makes them agree.
func inconsistencyReason(s Settings, r Result, cniReserved int) string {
	if s.PrefixDelegation {
		return fmt.Sprintf("Karpenter does not model prefix delegation and assumes %d pods; set kubelet max_pods = %d",
			r.KarpenterAssumedPods, r.MaxPods)
	}
	if cniReserved > s.ReservedENIs {
		var why string
		switch {
		case s.CustomNetworking && s.SecurityGroupsForPods:
			why = "custom networking keeps the primary ENI for the node and security groups for pods take one ENI as the trunk"
		case s.CustomNetworking:
			why = "custom networking uses the primary ENI for the node"
		default:
			why = "security groups for pods take one ENI as the trunk"
		}
		return fmt.Sprintf("%s, set reserved_enis = %d (or kubelet max_pods = %d)", why, cniReserved, r.MaxPods)
	}
	return fmt.Sprintf("Karpenter assumes %d pods but the kubelet runs %d; set kubelet max_pods = %d",
		r.KarpenterAssumedPods, r.MaxPods, r.MaxPods)
}

// isNitro reports whether prefix delegation can work: Nitro, or an empty
// hypervisor (bare metal, which is Nitro hardware).
func isNitro(n Network) bool {
	return n.Hypervisor == "" || strings.EqualFold(n.Hypervisor, HypervisorNitro)
}

// efaInterfaces mirrors Karpenter's efas(): the configured efa-only entries
// when networkInterfaces is set (even empty), else the type's EFA maximum.
func efaInterfaces(n Network, ifaces []Interface) int {
	if ifaces != nil {
		return countEFAOnly(ifaces, -1)
	}
	if !n.EFASupported {
		return 0
	}
	return n.MaxEFAInterfaces
}

// countEFAOnly counts efa-only entries on card (any card when card < 0).
func countEFAOnly(ifaces []Interface, card int) int {
	count := 0
	for _, i := range ifaces {
		if i.InterfaceType == InterfaceTypeEFAOnly && (card < 0 || i.NetworkCardIndex == card) {
			count++
		}
	}
	return count
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ExpressionVars are the variables Karpenter v1.15 binds for a kubelet expression of one type.
type ExpressionVars struct {
	VCPUs, MemoryMiB, DefaultENIs, IPsPerENI, MaxPods int64
	InstanceType                                      string
}

// maxPodsExpression evaluates the CEL maxPods expression for one type with the variables
// Karpenter v1.15 binds (kubeletconfig.ResolveMaxPods): max_pods is the type's pod count without
// a maxPods setting (ENI-limited, or Windows' fixed count, capped by podsPerCore).
func maxPodsExpression(n Network, s Settings, family string, windows bool, eniLimited int) (int, error) {
	pods := eniLimited
	if windows {
		pods = windowsDefaultMaxPods
	}
	pods = applyPodsPerCore(pods, n.VCPUs, family, s.PodsPerCore)
	if s.MaxPodsEval == nil {
		return 0, fmt.Errorf("%w: %s: no evaluator for %q", ErrMaxPodsExpression, n.InstanceType, s.MaxPodsExpression)
	}
	v, err := s.MaxPodsEval(s.MaxPodsExpression, ExpressionVars{VCPUs: int64(n.VCPUs), MemoryMiB: int64(n.MemoryMiB),
		DefaultENIs: int64(DefaultCardENIs(n)), IPsPerENI: int64(n.IPv4PerENI), MaxPods: int64(pods), InstanceType: n.InstanceType})
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrMaxPodsExpression, n.InstanceType, err)
	}
	return int(v), nil
}
