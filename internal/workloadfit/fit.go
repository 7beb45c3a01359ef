// Package workloadfit answers, at plan time, whether a workload fits a node pool: which
// instance type of the pool it would run on, how many nodes that takes, whether the pool's
// subnets have the addresses those nodes hold, and whether the pool's limits allow them.
//
// The rule, for a workload of Replicas pods that each request CPU and Memory:
//
//  1. Each candidate type's allocatable is Karpenter's (see Allocatable). A node holds
//     min(floor(allocatable cpu / pod cpu), floor(allocatable memory / pod memory),
//     max pods - DaemonSetPods, MaxPodsPerNode when set) pods; a type that holds none, or that
//     is offered in no zone with a subnet of the pool, is out.
//  2. The type with the most pods per dollar (pods per node / hourly price) is chosen; types
//     without a price rank after priced ones, in the pool's launch order; ties go to the lower
//     price, then the name.
//  3. Nodes = ceil(Replicas / pods per node): full nodes, the last one holding the rest.
//  4. Nodes go round-robin over the type's zones (those with a subnet of the pool) in zone
//     name order: the even spread a zone topology spread constraint with maxSkew 1 gives.
//  5. A node running p pods (DaemonSetPods included) holds IPsAt(p) addresses in the node
//     subnet (and the pod subnet with custom networking); each zone's sum is checked against
//     its free addresses.
//  6. Nodes x (vCPUs, memory capacity) and the node count are checked against the pool's
//     limits, assuming the pool has no nodes yet. Like Karpenter, limits count capacity:
//     memory after the VM overhead, before kube-reserved.
//
// Where this differs from Karpenter's scheduler: Karpenter packs a batch of pending pods onto
// new NodeClaims, each keeping every instance type that can still hold its pods, and lets EC2
// Fleet launch the cheapest of those; nodes of several types and sizes result, and
// consolidation later replaces them with cheaper ones. This package picks one type, the
// cheapest per pod, as a steady-state estimate for a uniform workload. Karpenter bin-packs
// without regard to zones unless a topology spread constraint asks for a spread; step 4
// assumes one. DaemonSetPods only takes pod slots and addresses here: the daemonsets' own
// cpu and memory requests, which Karpenter subtracts from every node, are not modelled. And
// Karpenter itself does not check that a workload's addresses fit the subnets.
package workloadfit

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Bounds: the resource that limits a type's pods per node.
const (
	BoundCPU            = "cpu"
	BoundMemory         = "memory"
	BoundMaxPods        = "max pods"
	BoundMaxPodsPerNode = "max_pods_per_node"
)

// Workload is one deployment's shape.
type Workload struct {
	CPU            string // cpu request of one pod, a Kubernetes quantity ("500m"); "" = none
	Memory         string // memory request of one pod ("1Gi"); "" = none
	Replicas       int
	MaxPodsPerNode int // 0: no cap (otherwise e.g. a hostname spread or anti-affinity)
	// DaemonSetPods are the pods every node runs besides the workload. IPsAt takes the first two
	// pods of a node to be aws-node and kube-proxy (host network, no address), so on EKS count
	// those two here as well.
	DaemonSetPods int
	// Extended are extended resources one pod requests ("example.com/device" → "1"): a node
	// holds as many pods as its Type.Extended capacity allows, none without the resource.
	Extended map[string]string
}

// Type is a candidate instance type as the pool's plan knows it.
type Type struct {
	Name         string
	VCPUs        int
	MemoryMiB    int // EC2's MemoryInfo.SizeInMiB
	MaxPods      int // what Karpenter schedules against
	Price        float64
	CapacityType string   // of the cheapest allowed offering ("spot", "on-demand")
	Zones        []string // zones it is offered in; nil: every zone of Input.Zones
	// IPsAt gives the node-subnet and pod-subnet addresses a node running pods pods holds
	// (capacity.IPsAtPods); nil: addresses are not checked.
	IPsAt func(pods int) (nodeSubnet, podSubnet int)
	// Arm64: Graviton types lose 64 MiB of CMA memory before Karpenter's VM overhead.
	Arm64 bool
	// Extended is the type's extended-resource capacity (what NodeOverlays add), as quantities.
	Extended map[string]string
	// KubeReservedPods is the pod count default kube-reserved memory scales with; 0: MaxPods.
	// Karpenter uses the ENI-limited pod count (no reserved ENIs) on AL2 and AL2023 and max pods
	// on Bottlerocket and Windows.
	KubeReservedPods int
	// Kubelet, when set, replaces Input.Kubelet for this type (reserved resources that Karpenter
	// v1.15 expressions resolve per type).
	Kubelet *Kubelet
}

// Zone is one zone of the pool's subnets.
type Zone struct {
	Name             string
	FreeIPs          int // free addresses of the pool's subnets in the zone; -1: unknown, not checked
	PodSubnetFreeIPs int // free addresses of the ENIConfig subnet; -1 without custom networking
}

// Limits are the pool's spec.limits; -1 for a limit that is not set (see NoLimits).
type Limits struct {
	CPUMilli  int64
	MemoryMiB int64
	Nodes     int64
}

// NoLimits is a pool without limits.
func NoLimits() Limits { return Limits{CPUMilli: -1, MemoryMiB: -1, Nodes: -1} }

// Input is one question: does Workload fit the pool of these types, zones and limits?
type Input struct {
	Workload Workload
	Types    []Type // the pool's candidates in its launch order (cheapest first)
	Zones    []Zone
	Limits   Limits
	Kubelet  Kubelet
}

// Candidate is a type that holds at least one pod, with its standing.
type Candidate struct {
	Name        string
	PodsPerNode int
	BoundBy     string
	Price       float64
}

// ZoneRow is the chosen type's share of one zone.
type ZoneRow struct {
	Zone             string
	Nodes            int
	Pods             int // workload pods, daemonsets not counted
	NodeSubnetIPs    int // -1 when the type has no IPsAt
	FreeIPs          int
	PodSubnetIPs     int
	PodSubnetFreeIPs int
	Fits             bool
}

// Check is one constraint and how the workload stands against it.
type Check struct {
	Name      string // "IPs in zone a", "pod-subnet IPs in zone a", "limits: cpu", "limits: memory", "limits: nodes"
	Needed    int64  // addresses, or nodes for limits
	Available int64  // free addresses, or the nodes the limit allows
	Fits      bool
	Text      string
}

// Result is the answer for the chosen type.
type Result struct {
	Type         string
	CapacityType string
	Price        float64 // USD/h of one node; 0: unknown
	Allocation   Allocation
	PodsPerNode  int
	BoundBy      string // BoundCPU, BoundMemory, BoundMaxPods or BoundMaxPodsPerNode
	Nodes        int
	HourlyCost   float64 // Nodes x Price
	Zones        []ZoneRow
	Checks       []Check     // limits first, then zones by name
	Candidates   []Candidate // every type that holds a pod, best first
	Fits         bool
	// Binding is the check that fails worst, or when all fit the one with the least headroom;
	// empty when nothing was checked.
	Binding string
	Summary string
}

// Fit applies the package rule to in.
func Fit(in Input) (Result, error) {
	w := in.Workload
	podCPU, podMem, err := podRequests(w)
	if err != nil {
		return Result{}, err
	}
	if len(in.Types) == 0 {
		return Result{}, errors.New("the node pool has no candidate instance types")
	}
	o, err := parseKubelet(in.Kubelet)
	if err != nil {
		return Result{}, err
	}
	zones, err := zonesByName(in.Zones)
	if err != nil {
		return Result{}, err
	}
	sc, err := scoreTypes(in, o, podCPU, podMem, zones)
	if err != nil {
		return Result{}, err
	}
	if len(sc.fits) == 0 {
		return Result{}, sc.noFitError(in.Zones, w, podCPU, podMem)
	}
	fits := sc.fits
	sort.SliceStable(fits, func(i, j int) bool { return better(fits[i].Candidate, fits[i].order, fits[j].Candidate, fits[j].order) })

	r := resultFor(fits, in.Limits, zones, w)
	r.Summary = summary(w, r)
	return r, nil
}

// podRequests parses the workload's per-pod cpu (millicores) and memory (bytes) and checks its
// counts.
func podRequests(w Workload) (cpuMilli, memBytes int64, err error) {
	cpuMilli, err = optionalQuantity(w.CPU, parseCPUMilli)
	if err != nil {
		return 0, 0, fmt.Errorf("workload cpu: %w", err)
	}
	memBytes, err = optionalQuantity(w.Memory, parseBytes)
	if err != nil {
		return 0, 0, fmt.Errorf("workload memory: %w", err)
	}
	if w.Replicas < 0 || w.MaxPodsPerNode < 0 || w.DaemonSetPods < 0 {
		return 0, 0, fmt.Errorf("workload replicas %d, max pods per node %d and daemonset pods %d must not be negative",
			w.Replicas, w.MaxPodsPerNode, w.DaemonSetPods)
	}
	return cpuMilli, memBytes, nil
}

// zonesByName indexes the pool's zones; a zone listed twice is an error.
func zonesByName(list []Zone) (map[string]Zone, error) {
	zones := map[string]Zone{}
	for _, z := range list {
		if _, dup := zones[z.Name]; dup {
			return nil, fmt.Errorf("zone %q is listed twice", z.Name)
		}
		zones[z.Name] = z
	}
	return zones, nil
}

// scored is one candidate type with what Fit worked out for it.
type scored struct {
	Candidate
	order int // index in Input.Types: the pool's launch order
	t     Type
	alloc Allocation
	zones []string
}

// typeScores sorts the candidate types into those that fit, those that hold no pod, and the
// names of those offered in none of the pool's zones.
type typeScores struct {
	fits, tooSmall []scored
	zoneless       []string
	// withoutExtended are the too-small types that hold no pod for want of an extended resource.
	withoutExtended []string
}

func scoreTypes(in Input, o overrides, podCPU, podMem int64, zones map[string]Zone) (typeScores, error) {
	var sc typeScores
	for i, t := range in.Types {
		to := o
		if t.Kubelet != nil {
			var err error
			if to, err = parseKubelet(*t.Kubelet); err != nil {
				return typeScores{}, fmt.Errorf("%s: %w", t.Name, err)
			}
		}
		a, err := allocatable(t, to)
		if err != nil {
			return typeScores{}, err
		}
		pods, bound := podsPerNode(a.Allocatable, podCPU, podMem, in.Workload)
		if n, name, err := extendedPods(t, in.Workload); err != nil {
			return typeScores{}, err
		} else if name != "" && n < pods {
			pods, bound = n, name
		}
		s := scored{Candidate: Candidate{Name: t.Name, PodsPerNode: pods, BoundBy: bound, Price: t.Price},
			order: i, t: t, alloc: a, zones: typeZones(t, in.Zones, zones)}
		switch {
		case pods <= 0:
			sc.tooSmall = append(sc.tooSmall, s)
			if _, ok := in.Workload.Extended[bound]; ok {
				sc.withoutExtended = append(sc.withoutExtended, t.Name)
			}
		case len(in.Zones) > 0 && len(s.zones) == 0:
			sc.zoneless = append(sc.zoneless, t.Name)
		default:
			sc.fits = append(sc.fits, s)
		}
	}
	return sc, nil
}

// noFitError says why no type fits: the largest type's allocatable when none holds a pod, else
// the types the pool's zones miss.
func (sc typeScores) noFitError(poolZones []Zone, w Workload, podCPU, podMem int64) error {
	if n := len(sc.withoutExtended); n > 0 && n == len(sc.tooSmall) {
		return fmt.Errorf("no candidate type has the extended resources a pod requests (%s), e.g. %s: a type gets them from a "+
			"NodeOverlay's capacity (the pool's node_overlays)", extendedList(w.Extended), sc.withoutExtended[0])
	}
	if len(sc.tooSmall) > 0 {
		largest := sc.tooSmall[0]
		for _, s := range sc.tooSmall[1:] {
			if larger(s.t, largest.t) {
				largest = s
			}
		}
		al := largest.alloc.Allocatable
		return fmt.Errorf("no candidate type holds one pod of %s cpu / %s memory: the largest, %s, has %s cpu, %s memory and %d pods allocatable (%d after %d daemonset pods)",
			fmtMilli(podCPU), fmtBytes(podMem), largest.t.Name, fmtMilli(al.CPUMilli), fmtBytes(al.MemoryBytes),
			al.Pods, max(al.Pods-int64(w.DaemonSetPods), 0), w.DaemonSetPods)
	}
	return fmt.Errorf("no candidate type is offered in a zone of the pool's subnets (%s): %s",
		strings.Join(sortedZoneNames(poolZones), ", "), strings.Join(sc.zoneless, ", "))
}

// resultFor is the answer for the best of fits (sorted, best first): its nodes, their spread
// over the zones and the checks of limits and addresses; Summary is left to the caller.
func resultFor(fits []scored, limits Limits, zones map[string]Zone, w Workload) Result {
	best := fits[0]
	r := Result{
		Type: best.t.Name, CapacityType: best.t.CapacityType, Price: best.t.Price, Allocation: best.alloc,
		PodsPerNode: best.PodsPerNode, BoundBy: best.BoundBy,
		Nodes: ceilDiv(w.Replicas, best.PodsPerNode),
	}
	r.HourlyCost = float64(r.Nodes) * best.t.Price
	for _, s := range fits {
		r.Candidates = append(r.Candidates, s.Candidate)
	}
	r.Checks = limitChecks(limits, best.t, best.alloc, r.Nodes)
	var zoneChecks []Check
	r.Zones, zoneChecks = spread(best.t, best.zones, zones, w, best.PodsPerNode, r.Nodes)
	r.Checks = append(r.Checks, zoneChecks...)
	r.Fits, r.Binding = binding(r.Checks)
	return r
}

// binding reports whether every check fits, and the text of the check that fails worst, or with
// all fitting the one with the least headroom ("" without checks).
func binding(checks []Check) (fits bool, text string) {
	fits = true
	worst := -1
	worstRatio := -1.0
	for i, c := range checks {
		fits = fits && c.Fits
		if ratio := useRatio(c); ratio > worstRatio {
			worst, worstRatio = i, ratio
		}
	}
	if worst >= 0 {
		text = checks[worst].Text
	}
	return fits, text
}

func optionalQuantity(s string, parse func(string) (int64, error)) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	return parse(s)
}

// podsPerNode is step 1 of the rule: the pods a node of allocatable a holds, and what bounds it
// (on a tie the first of cpu, memory, max pods, max_pods_per_node).
func podsPerNode(a Resources, podCPU, podMem int64, w Workload) (int, string) {
	pods, bound := int64(math.MaxInt64), ""
	consider := func(n int64, name string) {
		if n < pods {
			pods, bound = n, name
		}
	}
	if podCPU > 0 {
		consider(a.CPUMilli/podCPU, BoundCPU)
	}
	if podMem > 0 {
		consider(a.MemoryBytes/podMem, BoundMemory)
	}
	consider(a.Pods-int64(w.DaemonSetPods), BoundMaxPods)
	if w.MaxPodsPerNode > 0 {
		consider(int64(w.MaxPodsPerNode), BoundMaxPodsPerNode)
	}
	return int(max(pods, 0)), bound
}

// extendedPods bounds a node's pods by the extended resources a pod requests: the fewest pods
// any of them allows on t, and that resource ("" when the workload requests none).
func extendedPods(t Type, w Workload) (int, string, error) {
	pods, bound := math.MaxInt, ""
	for _, name := range slices.Sorted(maps.Keys(w.Extended)) {
		req, err := resource.ParseQuantity(w.Extended[name])
		if err != nil || req.Sign() <= 0 {
			return 0, "", fmt.Errorf("workload resources[%q] = %q is not a positive quantity", name, w.Extended[name])
		}
		have := int64(0)
		if q, ok := t.Extended[name]; ok {
			c, err := resource.ParseQuantity(q)
			if err != nil {
				return 0, "", fmt.Errorf("%s: capacity %q = %q is not a quantity", t.Name, name, q)
			}
			have = c.MilliValue()
		}
		if n := int(have / req.MilliValue()); n < pods {
			pods, bound = n, name
		}
	}
	return pods, bound, nil
}

func extendedList(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+" "+m[k])
	}
	return strings.Join(parts, ", ")
}

// typeZones are the zones of t that have a subnet of the pool, by name; t.Zones when the pool
// lists none.
func typeZones(t Type, poolZones []Zone, byName map[string]Zone) []string {
	var out []string
	switch {
	case len(poolZones) == 0:
		out = append(out, t.Zones...)
	case t.Zones == nil:
		out = sortedZoneNames(poolZones)
	default:
		for _, z := range t.Zones {
			if _, ok := byName[z]; ok && !contains(out, z) {
				out = append(out, z)
			}
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func sortedZoneNames(zones []Zone) []string {
	names := make([]string, 0, len(zones))
	for _, z := range zones {
		names = append(names, z.Name)
	}
	sort.Strings(names)
	return names
}

// larger orders types by vCPUs, then memory, then max pods.
func larger(a, b Type) bool {
	if a.VCPUs != b.VCPUs {
		return a.VCPUs > b.VCPUs
	}
	if a.MemoryMiB != b.MemoryMiB {
		return a.MemoryMiB > b.MemoryMiB
	}
	return a.MaxPods > b.MaxPods
}

// better is step 2 of the rule: most pods per dollar; unpriced types after priced ones in
// launch order; ties by lower price, then name.
func better(a Candidate, aOrder int, b Candidate, bOrder int) bool {
	aPriced, bPriced := a.Price > 0, b.Price > 0
	if aPriced != bPriced {
		return aPriced
	}
	if !aPriced {
		return aOrder < bOrder
	}
	// Pods per dollar, compared cross-multiplied with a tolerance for the prices' rounding.
	lhs, rhs := float64(a.PodsPerNode)*b.Price, float64(b.PodsPerNode)*a.Price
	if math.Abs(lhs-rhs) > 1e-9*math.Max(lhs, rhs) {
		return lhs > rhs
	}
	if a.Price != b.Price {
		return a.Price < b.Price
	}
	return a.Name < b.Name
}

func ceilDiv(a, b int) int {
	return (a + b - 1) / b
}

// limitChecks are step 6: the nodes each limit allows against the nodes needed.
func limitChecks(l Limits, t Type, a Allocation, nodes int) []Check {
	var out []Check
	add := func(name, limit string, allowed int64) {
		c := Check{Name: "limits: " + name, Needed: int64(nodes), Available: allowed, Fits: int64(nodes) <= allowed}
		c.Text = fmt.Sprintf("limits: %s %s allows %s nodes of %s, %s needed", name, limit, group(allowed), t.Name, group(int64(nodes)))
		if c.Fits {
			c.Text += fmt.Sprintf(" (%s to spare)", group(allowed-int64(nodes)))
		}
		out = append(out, c)
	}
	if l.Nodes >= 0 {
		add("nodes", group(l.Nodes), l.Nodes)
	}
	if l.CPUMilli >= 0 {
		add("cpu", fmtMilli(l.CPUMilli), l.CPUMilli/a.Capacity.CPUMilli)
	}
	if l.MemoryMiB >= 0 {
		perNode := a.Capacity.MemoryBytes / mebibyte
		allowed := int64(math.MaxInt64)
		if perNode > 0 {
			allowed = l.MemoryMiB / perNode
		}
		add("memory", fmtBytes(l.MemoryMiB*mebibyte), allowed)
	}
	return out
}

// spread is steps 4 and 5: node k goes to zone k mod len(zones), holding podsPerNode pods but
// the last one, which holds the rest; each zone's addresses are summed from t.IPsAt.
func spread(t Type, names []string, byName map[string]Zone, w Workload, podsPerNode, nodes int) ([]ZoneRow, []Check) {
	if len(names) == 0 {
		return nil, nil
	}
	lastPods := w.Replicas - (nodes-1)*podsPerNode
	lastZone := (nodes - 1) % len(names)
	type ips struct{ node, pod int }
	memo := map[int]ips{}
	at := func(pods int) ips {
		if v, ok := memo[pods]; ok {
			return v
		}
		n, p := t.IPsAt(pods + w.DaemonSetPods)
		memo[pods] = ips{n, p}
		return memo[pods]
	}
	var rows []ZoneRow
	var checks []Check
	for i, name := range names {
		z, known := byName[name]
		if !known {
			z = Zone{Name: name, FreeIPs: -1, PodSubnetFreeIPs: -1}
		}
		row := ZoneRow{Zone: name, Nodes: nodes / len(names), FreeIPs: z.FreeIPs, PodSubnetFreeIPs: z.PodSubnetFreeIPs, Fits: true}
		if i < nodes%len(names) {
			row.Nodes++
		}
		full := row.Nodes
		partial := nodes > 0 && i == lastZone && lastPods != podsPerNode
		if partial {
			full--
		}
		row.Pods = full*podsPerNode + boolInt(partial)*lastPods
		if t.IPsAt == nil {
			row.NodeSubnetIPs, row.PodSubnetIPs = -1, -1
			rows = append(rows, row)
			continue
		}
		if full > 0 {
			v := at(podsPerNode)
			row.NodeSubnetIPs += full * v.node
			row.PodSubnetIPs += full * v.pod
		}
		if partial {
			v := at(lastPods)
			row.NodeSubnetIPs += v.node
			row.PodSubnetIPs += v.pod
		}
		if z.FreeIPs >= 0 {
			c := ipCheck("IPs in zone "+name, row.NodeSubnetIPs, z.FreeIPs)
			row.Fits = row.Fits && c.Fits
			checks = append(checks, c)
		}
		if z.PodSubnetFreeIPs >= 0 {
			c := ipCheck("pod-subnet IPs in zone "+name, row.PodSubnetIPs, z.PodSubnetFreeIPs)
			row.Fits = row.Fits && c.Fits
			checks = append(checks, c)
		}
		rows = append(rows, row)
	}
	return rows, checks
}

func ipCheck(name string, needed, free int) Check {
	c := Check{Name: name, Needed: int64(needed), Available: int64(free), Fits: needed <= free}
	c.Text = fmt.Sprintf("%s: needs %s, %s free", name, group(int64(needed)), group(int64(free)))
	if c.Fits {
		c.Text += fmt.Sprintf(" (%s to spare)", group(int64(free-needed)))
	}
	return c
}

// useRatio is how much of a constraint the workload takes: above 1 when it does not fit.
func useRatio(c Check) float64 {
	switch {
	case c.Needed == 0:
		return 0
	case c.Available <= 0:
		return math.Inf(1)
	}
	return float64(c.Needed) / float64(c.Available)
}

func summary(w Workload, r Result) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s pods of %s/%s → %s × %s (", group(int64(w.Replicas)), orZero(w.CPU), orZero(w.Memory), group(int64(r.Nodes)), r.Type)
	if r.CapacityType != "" {
		sb.WriteString(r.CapacityType + ", ")
	}
	fmt.Fprintf(&sb, "%d pods each, bound by %s), ", r.PodsPerNode, r.BoundBy)
	if r.Price > 0 {
		sb.WriteString(fmtUSD(r.HourlyCost) + " USD/h")
	} else {
		sb.WriteString("price unknown")
	}
	failing := 0
	for _, c := range r.Checks {
		if !c.Fits {
			failing++
		}
	}
	switch {
	case len(r.Checks) == 0:
		sb.WriteString("; fits (no subnet or limit to check)")
	case r.Fits:
		sb.WriteString("; fits, tightest: " + r.Binding)
	default:
		sb.WriteString("; does not fit: " + r.Binding)
		if failing > 1 {
			fmt.Fprintf(&sb, " (and %d more)", failing-1)
		}
	}
	return sb.String()
}

func orZero(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "0"
	}
	return s
}

func fmtUSD(v float64) string {
	if v >= 1 || v == 0 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// group writes n with thousands separators: 2100 -> "2,100".
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var sb strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if neg {
		return "-" + sb.String()
	}
	return sb.String()
}

// fmtMilli writes millicores as cores when whole ("4"), else with the m suffix ("3920m").
func fmtMilli(m int64) string {
	if m%1000 == 0 {
		return group(m / 1000)
	}
	return strconv.FormatInt(m, 10) + "m"
}

// fmtBytes writes bytes in the largest binary unit that divides them, else in MiB with a
// fraction.
func fmtBytes(b int64) string {
	switch {
	case b == 0:
		return "0"
	case b%(1<<30) == 0:
		return strconv.FormatInt(b>>30, 10) + "Gi"
	case b%mebibyte == 0:
		return strconv.FormatInt(b/mebibyte, 10) + "Mi"
	}
	return strconv.FormatFloat(float64(b)/mebibyte, 'f', 1, 64) + "Mi"
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// DefaultDaemonSetPods are aws-node and kube-proxy, which every EKS node runs.
const DefaultDaemonSetPods = 2

// Request is one `workloads` entry of a node pool as its schema shapes it (tfsdk tags).
type Request struct {
	CPU            string `tfsdk:"cpu"`
	Memory         string `tfsdk:"memory"`
	Replicas       int    `tfsdk:"replicas"`
	MaxPodsPerNode int    `tfsdk:"max_pods_per_node"`
	DaemonSetPods  *int   `tfsdk:"daemonset_pods"` // nil: DefaultDaemonSetPods
	// Resources are extended resources one pod requests.
	Resources map[string]string `tfsdk:"resources"`
}

// Requests are the workloads to fit, by name; nil without any.
func Requests(in map[string]Request) map[string]Workload {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]Workload, len(in))
	for name, w := range in {
		ds := DefaultDaemonSetPods
		if w.DaemonSetPods != nil {
			ds = *w.DaemonSetPods
		}
		out[name] = Workload{CPU: w.CPU, Memory: w.Memory, Replicas: w.Replicas, MaxPodsPerNode: w.MaxPodsPerNode, DaemonSetPods: ds,
			Extended: w.Resources}
	}
	return out
}
