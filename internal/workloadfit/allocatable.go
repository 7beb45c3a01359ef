package workloadfit

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Karpenter's defaults for an instance type's capacity and overhead (karpenter-provider-aws,
// pkg/providers/instancetype/types.go and pkg/operator/options).
const (
	// VMMemoryOverheadPercent is Karpenter's VM_MEMORY_OVERHEAD_PERCENT default: the share of
	// EC2's memory it takes the hypervisor and firmware to keep.
	VMMemoryOverheadPercent = 0.075
	// graviton64MiB is the CMA memory arm64 (Graviton) types reserve, taken before the overhead.
	graviton64MiB = 64
	// Default kube-reserved memory: 11 MiB per pod plus 255 MiB.
	kubeReservedMiBPerPod = 11
	kubeReservedBaseMiB   = 255
	// Default eviction-hard memory.available.
	evictionMemoryMiB = 100

	mebibyte = 1 << 20
)

// kubeReservedCPUTiers is the default kube-reserved cpu: a share of each core range, in
// hundredths of a percent (600 = 6%) so that the sum is integer millicores, each tier truncated.
var kubeReservedCPUTiers = []struct {
	fromMilli, toMilli, perTenThousand int64
}{
	{0, 1000, 600},            // 6% of the first core
	{1000, 2000, 100},         // 1% of the second
	{2000, 4000, 50},          // 0.5% of cores 3 and 4
	{4000, math.MaxInt64, 25}, // 0.25% of every core above 4
}

// Kubelet are the node class kubelet settings that change an instance type's allocatable. A nil
// or empty map keeps Karpenter's defaults. Keys read: "cpu" and "memory" of KubeReserved and
// SystemReserved, "memory.available" of EvictionHard (a quantity or a percentage of memory
// capacity); other keys (ephemeral-storage, pid, nodefs.*, imagefs.*) bound no pods here and are
// ignored.
type Kubelet struct {
	KubeReserved   map[string]string
	SystemReserved map[string]string
	EvictionHard   map[string]string
}

// Resources are cpu, memory and pod counts of one node.
type Resources struct {
	CPUMilli    int64
	MemoryBytes int64
	Pods        int64
}

// Allocation is Karpenter's view of one instance type: capacity, the three overheads it
// subtracts, and what is left for pods.
type Allocation struct {
	Capacity       Resources // cpu: vCPUs; memory: EC2's less the VM overhead; pods: max pods
	KubeReserved   Resources
	SystemReserved Resources
	EvictionHard   Resources // memory only
	Allocatable    Resources // capacity less the overheads, never negative
}

// ErrInvalidQuantity is wrapped by every error about a resource quantity or percentage.
var ErrInvalidQuantity = errors.New("invalid quantity")

// overrides are the parsed Kubelet maps; nil fields keep the defaults.
type overrides struct {
	kubeCPU, kubeMemory     *int64 // millicores, bytes
	systemCPU, systemMemory *int64
	evictBytes              *int64   // memory.available as a quantity
	evictPercent            *big.Rat // memory.available as a percentage, 0 when "100%"
}

// Allocatable returns Karpenter's capacity, overhead and allocatable for instance type t with
// kubelet settings k:
//
//	capacity    cpu = vCPUs x 1000m; memory = EC2 MiB (less 64 on arm64) less
//	            ceil(that x 0.075); pods = max pods
//	kube        cpu by tiers of cores (6% of the first, 1% of the second, 0.5% of the 3rd and
//	            4th, 0.25% above); memory 11 MiB x pods + 255 MiB (pods: t.KubeReservedPods,
//	            else max pods); either replaced by kube_reserved
//	system      none, or system_reserved
//	eviction    memory 100Mi, or eviction_hard memory.available (a percentage is of memory
//	            capacity, rounded up to a byte; "100%" disables it)
//	allocatable capacity - kube - system - eviction, at least 0
func Allocatable(t Type, k Kubelet) (Allocation, error) {
	o, err := parseKubelet(k)
	if err != nil {
		return Allocation{}, err
	}
	return allocatable(t, o)
}

func allocatable(t Type, o overrides) (Allocation, error) {
	if t.VCPUs < 1 || t.MemoryMiB < 1 || t.MaxPods < 0 || t.KubeReservedPods < 0 {
		return Allocation{}, fmt.Errorf("instance type %q: vCPUs %d and memory %d MiB must be at least 1, max pods %d and kube-reserved pods %d not negative",
			t.Name, t.VCPUs, t.MemoryMiB, t.MaxPods, t.KubeReservedPods)
	}
	memMiB := int64(t.MemoryMiB)
	if t.Arm64 {
		memMiB -= graviton64MiB
	}
	// Karpenter rounds the overhead up to a whole MiB; float64 keeps its rounding exactly.
	memMiB -= int64(math.Ceil(float64(memMiB) * VMMemoryOverheadPercent))
	var a Allocation
	a.Capacity = Resources{CPUMilli: int64(t.VCPUs) * 1000, MemoryBytes: max(memMiB, 0) * mebibyte, Pods: int64(t.MaxPods)}

	reservedPods := int64(t.MaxPods)
	if t.KubeReservedPods > 0 {
		reservedPods = int64(t.KubeReservedPods)
	}
	a.KubeReserved = Resources{
		CPUMilli:    pick(o.kubeCPU, kubeReservedCPU(a.Capacity.CPUMilli)),
		MemoryBytes: pick(o.kubeMemory, (kubeReservedMiBPerPod*reservedPods+kubeReservedBaseMiB)*mebibyte),
	}
	a.SystemReserved = Resources{CPUMilli: pick(o.systemCPU, 0), MemoryBytes: pick(o.systemMemory, 0)}
	evict := int64(evictionMemoryMiB * mebibyte)
	switch {
	case o.evictBytes != nil:
		evict = *o.evictBytes
	case o.evictPercent != nil:
		share := new(big.Rat).Mul(big.NewRat(a.Capacity.MemoryBytes, 100), o.evictPercent)
		evict = ceilRat(share)
	}
	a.EvictionHard = Resources{MemoryBytes: evict}
	a.Allocatable = Resources{
		CPUMilli:    max(0, a.Capacity.CPUMilli-a.KubeReserved.CPUMilli-a.SystemReserved.CPUMilli),
		MemoryBytes: max(0, a.Capacity.MemoryBytes-a.KubeReserved.MemoryBytes-a.SystemReserved.MemoryBytes-a.EvictionHard.MemoryBytes),
		Pods:        a.Capacity.Pods,
	}
	return a, nil
}

func pick(override *int64, def int64) int64 {
	if override != nil {
		return *override
	}
	return def
}

// kubeReservedCPU is Karpenter's default kube-reserved cpu for a node of cpuMilli millicores.
func kubeReservedCPU(cpuMilli int64) int64 {
	var total int64
	for _, tier := range kubeReservedCPUTiers {
		if cpuMilli <= tier.fromMilli {
			break
		}
		span := min(cpuMilli, tier.toMilli) - tier.fromMilli
		total += span * tier.perTenThousand / 10000
	}
	return total
}

func parseKubelet(k Kubelet) (overrides, error) {
	var o overrides
	var errs []error
	read := func(field string, m map[string]string, key string, milli bool) *int64 {
		v, ok := m[key]
		if !ok {
			return nil
		}
		var n int64
		var err error
		if milli {
			n, err = parseCPUMilli(v)
		} else {
			n, err = parseBytes(v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("kubelet %s[%q]: %w", field, key, err))
			return nil
		}
		return &n
	}
	o.kubeCPU = read("kube_reserved", k.KubeReserved, "cpu", true)
	o.kubeMemory = read("kube_reserved", k.KubeReserved, "memory", false)
	o.systemCPU = read("system_reserved", k.SystemReserved, "cpu", true)
	o.systemMemory = read("system_reserved", k.SystemReserved, "memory", false)
	if v, ok := k.EvictionHard["memory.available"]; ok {
		if pct, isPct := strings.CutSuffix(strings.TrimSpace(v), "%"); isPct {
			p, err := parsePercent(pct)
			if err != nil {
				errs = append(errs, fmt.Errorf("kubelet eviction_hard[%q]: %q: %w", "memory.available", v, err))
			} else {
				o.evictPercent = p
			}
		} else {
			o.evictBytes = read("eviction_hard", k.EvictionHard, "memory.available", false)
		}
	}
	return o, errors.Join(errs...)
}

// parsePercent reads the number of a percentage: 0 to 100, where 100 means disabled (0).
func parsePercent(s string) (*big.Rat, error) {
	if !isDecimal(s) {
		return nil, fmt.Errorf("%w: not a percentage such as 5%% or 7.5%%", ErrInvalidQuantity)
	}
	p, ok := new(big.Rat).SetString(s)
	if !ok || p.Cmp(big.NewRat(100, 1)) > 0 {
		return nil, fmt.Errorf("%w: a percentage must be between 0%% and 100%%", ErrInvalidQuantity)
	}
	if p.Cmp(big.NewRat(100, 1)) == 0 {
		p.SetInt64(0) // the kubelet takes 100% as "no threshold"
	}
	return p, nil
}

// parseCPUMilli reads a cpu quantity ("2", "0.5", "250m") in millicores, rounded up as
// Kubernetes does.
func parseCPUMilli(s string) (int64, error) {
	q, err := parseQuantity(s)
	if err != nil {
		return 0, err
	}
	return ceilRat(q.Mul(q, big.NewRat(1000, 1))), nil
}

// parseBytes reads a memory quantity ("512Mi", "1Gi", "1G", "1e9") in bytes, rounded up.
func parseBytes(s string) (int64, error) {
	q, err := parseQuantity(s)
	if err != nil {
		return 0, err
	}
	return ceilRat(q), nil
}

// suffixScale maps a Kubernetes quantity suffix to its multiplier: binary (Ki..Ei) or decimal
// (n, u, m, k, M..E).
var suffixScale = map[string]*big.Rat{
	"":   big.NewRat(1, 1),
	"n":  big.NewRat(1, 1_000_000_000),
	"u":  big.NewRat(1, 1_000_000),
	"m":  big.NewRat(1, 1000),
	"k":  big.NewRat(1000, 1),
	"M":  big.NewRat(1_000_000, 1),
	"G":  big.NewRat(1_000_000_000, 1),
	"T":  big.NewRat(1_000_000_000_000, 1),
	"P":  big.NewRat(1_000_000_000_000_000, 1),
	"E":  big.NewRat(1_000_000_000_000_000_000, 1),
	"Ki": big.NewRat(1<<10, 1),
	"Mi": big.NewRat(1<<20, 1),
	"Gi": big.NewRat(1<<30, 1),
	"Ti": big.NewRat(1<<40, 1),
	"Pi": big.NewRat(1<<50, 1),
	"Ei": big.NewRat(1<<60, 1),
}

// maxQuantity bounds parsed quantities (in base units: 4 PiB, 2^52 cores) so that bytes and
// millicores, and sums of a few of them, fit int64.
var maxQuantity = big.NewRat(1<<52, 1)

// parseQuantity reads a non-negative Kubernetes quantity: a decimal number ("1", "0.5", ".5"),
// then either a suffix or a decimal exponent ("1e3", "5E-1").
func parseQuantity(s string) (*big.Rat, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "+")
	end := 0
	for end < len(t) && (t[end] >= '0' && t[end] <= '9' || t[end] == '.') {
		end++
	}
	num, rest := t[:end], t[end:]
	bad := fmt.Errorf("%w: %q is not a non-negative quantity such as 250m, 2, 512Mi or 1Gi", ErrInvalidQuantity, s)
	if !isDecimal(num) {
		return nil, bad
	}
	q, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, bad
	}
	if scale, ok := suffixScale[rest]; ok {
		q.Mul(q, scale)
	} else {
		exp, ok := exponent(rest)
		if !ok {
			return nil, bad
		}
		ten := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
		if exp < 0 {
			ten.Inv(ten)
		}
		q.Mul(q, ten)
	}
	if q.Cmp(maxQuantity) > 0 {
		return nil, fmt.Errorf("%w: %q is too large", ErrInvalidQuantity, s)
	}
	return q, nil
}

// isDecimal reports whether s is digits with at most one '.', and at least one digit.
func isDecimal(s string) bool {
	digits, dots := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	return digits > 0 && dots <= 1
}

// exponent reads "e3", "E-2", "e+1" (at most two digits).
func exponent(s string) (int, bool) {
	if len(s) < 2 || (s[0] != 'e' && s[0] != 'E') {
		return 0, false
	}
	s = s[1:]
	sign := 1
	switch s[0] {
	case '-':
		sign, s = -1, s[1:]
	case '+':
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 2 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return sign * n, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ceilRat rounds a non-negative rational up to an integer.
func ceilRat(q *big.Rat) int64 {
	n, d := q.Num(), q.Denom()
	quo, rem := new(big.Int).QuoRem(n, d, new(big.Int))
	if rem.Sign() > 0 {
		quo.Add(quo, big.NewInt(1))
	}
	return quo.Int64()
}
