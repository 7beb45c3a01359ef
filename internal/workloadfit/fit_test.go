package workloadfit

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// ipsAt is the projection the provider builds: capacity.IPsAtPods for n under s.
func ipsAt(t *testing.T, n capacity.Network, s capacity.Settings) func(int) (int, int) {
	t.Helper()
	if _, _, err := capacity.IPsAtPods(n, s, 0); err != nil {
		t.Fatal(err)
	}
	return func(pods int) (int, int) {
		node, pod, err := capacity.IPsAtPods(n, s, pods)
		if err != nil {
			panic(err)
		}
		return node, pod
	}
}

// m5.large: 3 ENIs x 10 IPv4. With the default warm ENI, a node whose pods (host-network
// aws-node and kube-proxy first) give a addressed pods holds 10 addresses at a=0, 20 at
// a=1..9, 30 from a=10.
var m5LargeNet = capacity.Network{InstanceType: "m5.large", VCPUs: 2, Hypervisor: "nitro", MaxENIs: 3, IPv4PerENI: 10}

// c5.xlarge: 4 ENIs x 15 IPv4: 15 at a=0, 30 at a=1..14, 45 at a=15..28, 60 from a=29.
var c5XLargeNet = capacity.Network{InstanceType: "c5.xlarge", VCPUs: 4, Hypervisor: "nitro", MaxENIs: 4, IPv4PerENI: 15}

func zones(free ...int) []Zone {
	var out []Zone
	for i, f := range free {
		out = append(out, Zone{Name: "ap-southeast-1" + string(rune('a'+i)), FreeIPs: f, PodSubnetFreeIPs: -1})
	}
	return out
}

func TestFitFitsWithTightestZone(t *testing.T) {
	c5 := c5XLarge()
	c5.IPsAt = ipsAt(t, c5XLargeNet, capacity.Settings{})
	r, err := Fit(Input{
		Workload: Workload{CPU: "500m", Memory: "512Mi", Replicas: 300, DaemonSetPods: 2},
		Types:    []Type{c5},
		Zones:    zones(4091, 4091, 4091),
		Limits:   NoLimits(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// c5.xlarge allocatable 3920m / 6584 MiB / 58 pods: cpu 3920/500 = 7, memory 6584/512 = 12,
	// pods 58 - 2 = 56: 7 pods, bound by cpu. Nodes ceil(300/7) = 43: 42 of 7 and one of 6.
	// Zones round-robin: 15, 14, 14; node 42 (the one of 6) lands in zone a (42 mod 3 = 0).
	// Every node runs 9 or 8 pods with 2 host-network: a = 7 or 6: 2 ENIs, 30 addresses.
	// a: 15 x 30 = 450; b, c: 14 x 30 = 420. Cost 43 x 0.17 = 7.31.
	if r.Type != "c5.xlarge" || r.PodsPerNode != 7 || r.BoundBy != BoundCPU || r.Nodes != 43 || !r.Fits {
		t.Fatalf("got %s, %d pods (%s), %d nodes, fits %v", r.Type, r.PodsPerNode, r.BoundBy, r.Nodes, r.Fits)
	}
	want := []ZoneRow{
		{Zone: "ap-southeast-1a", Nodes: 15, Pods: 14*7 + 6, NodeSubnetIPs: 450, FreeIPs: 4091, PodSubnetFreeIPs: -1, Fits: true},
		{Zone: "ap-southeast-1b", Nodes: 14, Pods: 98, NodeSubnetIPs: 420, FreeIPs: 4091, PodSubnetFreeIPs: -1, Fits: true},
		{Zone: "ap-southeast-1c", Nodes: 14, Pods: 98, NodeSubnetIPs: 420, FreeIPs: 4091, PodSubnetFreeIPs: -1, Fits: true},
	}
	if !reflect.DeepEqual(r.Zones, want) {
		t.Errorf("zones\n%+v\nwant\n%+v", r.Zones, want)
	}
	if math.Abs(r.HourlyCost-7.31) > 1e-9 {
		t.Errorf("cost %v, want 7.31", r.HourlyCost)
	}
	wantSummary := "300 pods of 500m/512Mi → 43 × c5.xlarge (on-demand, 7 pods each, bound by cpu), 7.31 USD/h; " +
		"fits, tightest: IPs in zone ap-southeast-1a: needs 450, 4,091 free (3,641 to spare)"
	if r.Summary != wantSummary {
		t.Errorf("summary\n%s\nwant\n%s", r.Summary, wantSummary)
	}
}

// The most pods per dollar wins, which is neither the first (cheapest) nor the largest type.
func TestFitChoosesPodsPerDollar(t *testing.T) {
	r, err := Fit(Input{
		Workload: Workload{CPU: "500m", Memory: "512Mi", Replicas: 100},
		// Launch order, cheapest first.
		Types:  []Type{m5Large(), c5XLarge(), m5XLarge()},
		Limits: NoLimits(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// m5.large: cpu 1930/500 = 3, memory 6903/512 = 13: 3 pods / 0.096 = 31.25 per USD.
	// c5.xlarge: cpu 3920/500 = 7, memory 6584/512 = 12: 7 / 0.17 = 41.18 per USD.
	// m5.xlarge: cpu 7, memory 14162/512 = 27: 7 / 0.192 = 36.46 per USD.
	want := []Candidate{
		{Name: "c5.xlarge", PodsPerNode: 7, BoundBy: BoundCPU, Price: 0.17},
		{Name: "m5.xlarge", PodsPerNode: 7, BoundBy: BoundCPU, Price: 0.192},
		{Name: "m5.large", PodsPerNode: 3, BoundBy: BoundCPU, Price: 0.096},
	}
	if !reflect.DeepEqual(r.Candidates, want) {
		t.Errorf("candidates %+v; want %+v", r.Candidates, want)
	}
	// ceil(100/7) = 15 nodes; nothing to check.
	if r.Type != "c5.xlarge" || r.Nodes != 15 || !r.Fits || r.Binding != "" || r.Zones != nil {
		t.Errorf("got %s x %d, fits %v, binding %q, zones %v", r.Type, r.Nodes, r.Fits, r.Binding, r.Zones)
	}
	if !strings.HasSuffix(r.Summary, "2.55 USD/h; fits (no subnet or limit to check)") {
		t.Errorf("summary %q", r.Summary)
	}
}

func TestFitRanking(t *testing.T) {
	// Equal pods per dollar: 3 / 0.096 = 31.25 = 6 / 0.192. The cheaper wins.
	double := Type{Name: "a.double", VCPUs: 4, MemoryMiB: 8192, MaxPods: 58, Price: 0.192}
	r, err := Fit(Input{Workload: Workload{CPU: "600m", Replicas: 10}, Types: []Type{double, m5Large()}, Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	// m5.large 1930/600 = 3; a.double 3920/600 = 6.
	if r.Type != "m5.large" || r.Candidates[1].Name != "a.double" || r.Candidates[1].PodsPerNode != 6 {
		t.Errorf("equal pods per dollar: %+v", r.Candidates)
	}
	// Equal price and pods: by name.
	twin := m5Large()
	twin.Name = "m5a.large"
	r, err = Fit(Input{Workload: Workload{CPU: "600m", Replicas: 10}, Types: []Type{twin, m5Large()}, Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != "m5.large" {
		t.Errorf("equal price and pods: %s", r.Type)
	}
	// Unpriced types rank after priced ones, between themselves in launch order.
	big1, big2 := m5XLarge(), c5XLarge()
	big1.Price, big2.Price = 0, 0
	r, err = Fit(Input{Workload: Workload{CPU: "600m", Replicas: 10}, Types: []Type{big1, big2, m5Large()}, Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range r.Candidates {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "m5.large,m5.xlarge,c5.xlarge" {
		t.Errorf("order %s", got)
	}
	r, err = Fit(Input{Workload: Workload{CPU: "600m", Replicas: 10}, Types: []Type{big1, big2}, Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != "m5.xlarge" || r.HourlyCost != 0 || !strings.Contains(r.Summary, "price unknown") {
		t.Errorf("unpriced: %s, %v, %q", r.Type, r.HourlyCost, r.Summary)
	}
}

func TestFitIPBoundInSmallSubnets(t *testing.T) {
	m5 := m5Large()
	m5.IPsAt = ipsAt(t, m5LargeNet, capacity.Settings{})
	r, err := Fit(Input{
		Workload: Workload{CPU: "100m", Memory: "128Mi", Replicas: 500, DaemonSetPods: 2},
		Types:    []Type{m5},
		Zones:    zones(251, 4091, 251), // two /24s and a /20
		Limits:   NoLimits(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// m5.large: cpu 1930/100 = 19, memory 6903/128 = 53, pods 29 - 2 = 27: 19, cpu.
	// Nodes ceil(500/19) = 27: 26 of 19 and one of 6 (node 26, zone c). 9 nodes per zone.
	// 21 pods (a = 19) hold 30 addresses; 8 pods (a = 6) hold 20.
	// a: 9 x 30 = 270 > 251; b: 270 of 4091; c: 8 x 30 + 20 = 260 > 251.
	if r.PodsPerNode != 19 || r.Nodes != 27 || r.Fits {
		t.Fatalf("%d pods per node, %d nodes, fits %v", r.PodsPerNode, r.Nodes, r.Fits)
	}
	got := []int{r.Zones[0].NodeSubnetIPs, r.Zones[1].NodeSubnetIPs, r.Zones[2].NodeSubnetIPs}
	if !reflect.DeepEqual(got, []int{270, 270, 260}) || r.Zones[0].Fits || !r.Zones[1].Fits || r.Zones[2].Fits {
		t.Errorf("zone IPs %v, rows %+v", got, r.Zones)
	}
	if r.Zones[2].Pods != 8*19+6 {
		t.Errorf("zone c pods %d, want 158", r.Zones[2].Pods)
	}
	// The worst: 270/251 in zone a (c is 260/251).
	if r.Binding != "IPs in zone ap-southeast-1a: needs 270, 251 free" {
		t.Errorf("binding %q", r.Binding)
	}
	if !strings.HasSuffix(r.Summary, "does not fit: IPs in zone ap-southeast-1a: needs 270, 251 free (and 1 more)") {
		t.Errorf("summary %q", r.Summary)
	}
}

// With custom networking the pod subnet is checked too; unknown free counts are not.
func TestFitPodSubnet(t *testing.T) {
	m5 := m5Large()
	m5.MaxPods = 20 // reserved_enis 1: (3 - 1) x 9 + 2
	m5.IPsAt = ipsAt(t, m5LargeNet, capacity.Settings{CustomNetworking: true, ReservedENIs: 1})
	r, err := Fit(Input{
		Workload: Workload{CPU: "100m", Memory: "128Mi", Replicas: 40, DaemonSetPods: 2},
		Types:    []Type{m5},
		Zones: []Zone{
			{Name: "z-b", FreeIPs: -1, PodSubnetFreeIPs: 100},
			{Name: "z-a", FreeIPs: 251, PodSubnetFreeIPs: 30},
		},
		Limits: NoLimits(),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Allocatable: kube memory 11 x 20 + 255 = 475 MiB: 7577 - 575 = 7002 MiB; cpu 19,
	// memory 54, pods 20 - 2 = 18: 18, max pods. Nodes ceil(40/18) = 3: 18, 18, 4.
	// Nodes 0 and 2 in z-a, node 1 in z-b. Each node: 1 node-subnet address (the primary);
	// pod subnet: 2 pod ENIs, a = 18 or 4 -> both filled: 20.
	// z-a: node subnet 2 of 251, pod subnet 40 > 30; z-b: pod subnet 20 of 100, node subnet unknown.
	if r.PodsPerNode != 18 || r.BoundBy != BoundMaxPods || r.Nodes != 3 {
		t.Fatalf("%d pods (%s), %d nodes", r.PodsPerNode, r.BoundBy, r.Nodes)
	}
	want := []ZoneRow{
		{Zone: "z-a", Nodes: 2, Pods: 22, NodeSubnetIPs: 2, FreeIPs: 251, PodSubnetIPs: 40, PodSubnetFreeIPs: 30, Fits: false},
		{Zone: "z-b", Nodes: 1, Pods: 18, NodeSubnetIPs: 1, FreeIPs: -1, PodSubnetIPs: 20, PodSubnetFreeIPs: 100, Fits: true},
	}
	if !reflect.DeepEqual(r.Zones, want) {
		t.Errorf("zones\n%+v\nwant\n%+v", r.Zones, want)
	}
	if len(r.Checks) != 3 || r.Fits || r.Binding != "pod-subnet IPs in zone z-a: needs 40, 30 free" {
		t.Errorf("checks %+v, binding %q", r.Checks, r.Binding)
	}
}

func TestFitLimitBound(t *testing.T) {
	r, err := Fit(Input{
		Workload: Workload{CPU: "500m", Memory: "512Mi", Replicas: 300},
		Types:    []Type{c5XLarge()},
		Limits:   Limits{CPUMilli: 100_000, MemoryMiB: 1000 * 1024, Nodes: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	// 7 pods per node, ceil(300/7) = 43 nodes. cpu 100 / 4 = 25 nodes; memory 1,024,000 MiB /
	// 7577 MiB capacity = 135 nodes.
	if r.Nodes != 43 || r.Fits || r.Binding != "limits: cpu 100 allows 25 nodes of c5.xlarge, 43 needed" {
		t.Errorf("%d nodes, fits %v, binding %q", r.Nodes, r.Fits, r.Binding)
	}
	wantChecks := []Check{
		{Name: "limits: cpu", Needed: 43, Available: 25, Fits: false, Text: "limits: cpu 100 allows 25 nodes of c5.xlarge, 43 needed"},
		{Name: "limits: memory", Needed: 43, Available: 135, Fits: true, Text: "limits: memory 1000Gi allows 135 nodes of c5.xlarge, 43 needed (92 to spare)"},
	}
	if !reflect.DeepEqual(r.Checks, wantChecks) {
		t.Errorf("checks\n%+v\nwant\n%+v", r.Checks, wantChecks)
	}
	// A node limit of 43 fits exactly: it is the tightest (43/43) with nothing to spare.
	r, err = Fit(Input{
		Workload: Workload{CPU: "500m", Memory: "512Mi", Replicas: 300},
		Types:    []Type{c5XLarge()},
		Limits:   Limits{CPUMilli: 1_000_000, MemoryMiB: -1, Nodes: 43},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Fits || r.Binding != "limits: nodes 43 allows 43 nodes of c5.xlarge, 43 needed (0 to spare)" {
		t.Errorf("fits %v, binding %q", r.Fits, r.Binding)
	}
	// Zero-value Limits are limits of 0: nothing may launch.
	r, err = Fit(Input{Workload: Workload{CPU: "500m", Replicas: 1}, Types: []Type{c5XLarge()}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Fits || len(r.Checks) != 3 {
		t.Errorf("zero limits: fits %v, checks %+v", r.Fits, r.Checks)
	}
}

func TestFitPodsPerNodeBounds(t *testing.T) {
	cases := []struct {
		name  string
		w     Workload
		k     Kubelet
		typ   Type
		pods  int
		bound string
		nodes int
	}{
		// m5.large: cpu 1930/50 = 38, memory 6903/64 = 107, pods 29: 29, max pods; ceil(100/29) = 4.
		{"max pods", Workload{CPU: "50m", Memory: "64Mi", Replicas: 100}, Kubelet{}, m5Large(), 29, BoundMaxPods, 4},
		// Daemonsets take 3 pod slots: 26; ceil(100/26) = 4.
		{"daemonset pods", Workload{CPU: "50m", Memory: "64Mi", Replicas: 100, DaemonSetPods: 3}, Kubelet{}, m5Large(), 26, BoundMaxPods, 4},
		// A cap of 3 per node: ceil(100/3) = 34.
		{"max pods per node", Workload{CPU: "50m", Memory: "64Mi", Replicas: 100, MaxPodsPerNode: 3}, Kubelet{}, m5Large(), 3, BoundMaxPodsPerNode, 34},
		// A cap above the other bounds changes nothing.
		{"loose max pods per node", Workload{CPU: "50m", Memory: "64Mi", Replicas: 100, MaxPodsPerNode: 40}, Kubelet{}, m5Large(), 29, BoundMaxPods, 4},
		// memory 6903/1024 = 6 (cpu 1930/250 = 7): 6, memory; ceil(100/6) = 17.
		{"memory", Workload{CPU: "250m", Memory: "1Gi", Replicas: 100}, Kubelet{}, m5Large(), 6, BoundMemory, 17},
		// No requests: only pods bound.
		{"no requests", Workload{Replicas: 58}, Kubelet{}, m5Large(), 29, BoundMaxPods, 2},
		// Tie between cpu (1930/965 = 2) and memory (6903/3451 = 2): cpu is named.
		{"tie", Workload{CPU: "965m", Memory: "3451Mi", Replicas: 4}, Kubelet{}, m5Large(), 2, BoundCPU, 2},
		// kube_reserved cpu 930m leaves 1070m: 1070/500 = 2 instead of 3.
		{"kubelet override", Workload{CPU: "500m", Replicas: 10}, Kubelet{KubeReserved: map[string]string{"cpu": "930m"}}, m5Large(), 2, BoundCPU, 5},
		// Zero replicas: no node.
		{"zero replicas", Workload{CPU: "500m", Replicas: 0}, Kubelet{}, m5Large(), 3, BoundCPU, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Fit(Input{Workload: tc.w, Types: []Type{tc.typ}, Kubelet: tc.k, Limits: NoLimits()})
			if err != nil {
				t.Fatal(err)
			}
			if r.PodsPerNode != tc.pods || r.BoundBy != tc.bound || r.Nodes != tc.nodes {
				t.Errorf("%d pods (%s), %d nodes; want %d (%s), %d", r.PodsPerNode, r.BoundBy, r.Nodes, tc.pods, tc.bound, tc.nodes)
			}
		})
	}
}

// DaemonSetPods count in the addresses a node holds: 2 host-network daemonsets and 1 more.
func TestFitDaemonSetPodsInIPs(t *testing.T) {
	m5 := m5Large()
	m5.IPsAt = ipsAt(t, m5LargeNet, capacity.Settings{})
	for _, tc := range []struct {
		ds, ips int
	}{
		// 9 workload pods + 2 = 11: a = 9: 20 addresses.
		{2, 20},
		// 9 + 3 = 12: a = 10: the third ENI: 30.
		{3, 30},
	} {
		r, err := Fit(Input{Workload: Workload{CPU: "200m", Replicas: 9, DaemonSetPods: tc.ds}, Types: []Type{m5},
			Zones: zones(251), Limits: NoLimits()})
		if err != nil {
			t.Fatal(err)
		}
		// 1930/200 = 9 per node: one node.
		if r.Nodes != 1 || r.Zones[0].NodeSubnetIPs != tc.ips {
			t.Errorf("%d daemonset pods: %d nodes, %d IPs; want 1, %d", tc.ds, r.Nodes, r.Zones[0].NodeSubnetIPs, tc.ips)
		}
	}
}

func TestFitZones(t *testing.T) {
	// c5.xlarge is offered only where the pool has no subnet: out; m5.large runs in its two zones.
	c5 := c5XLarge()
	c5.Zones = []string{"ap-southeast-1c"}
	m5 := m5Large()
	m5.Zones = []string{"ap-southeast-1b", "ap-southeast-1a", "ap-southeast-1c"}
	m5.IPsAt = func(pods int) (int, int) { return pods, 0 } // one address per pod, for the arithmetic
	r, err := Fit(Input{Workload: Workload{CPU: "500m", Replicas: 10}, Types: []Type{c5, m5}, Zones: zones(251, 251), Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	// m5.large 3 pods per node, 4 nodes: a gets nodes 0, 2 (3 + 3), b nodes 1, 3 (3 + 1).
	if r.Type != "m5.large" || len(r.Candidates) != 1 || len(r.Zones) != 2 {
		t.Fatalf("%s, candidates %+v, zones %+v", r.Type, r.Candidates, r.Zones)
	}
	if r.Zones[0].Nodes != 2 || r.Zones[0].Pods != 6 || r.Zones[0].NodeSubnetIPs != 6 ||
		r.Zones[1].Nodes != 2 || r.Zones[1].Pods != 4 || r.Zones[1].NodeSubnetIPs != 4 {
		t.Errorf("zones %+v", r.Zones)
	}
	// Offered nowhere with a subnet: an error naming the zones and types.
	_, err = Fit(Input{Workload: Workload{CPU: "500m", Replicas: 10}, Types: []Type{c5}, Zones: zones(251, 251), Limits: NoLimits()})
	if err == nil || !strings.Contains(err.Error(), "ap-southeast-1a, ap-southeast-1b") || !strings.Contains(err.Error(), "c5.xlarge") {
		t.Errorf("no zone: %v", err)
	}
	// A type without IPsAt: rows without addresses, nothing checked.
	r, err = Fit(Input{Workload: Workload{CPU: "500m", Replicas: 10}, Types: []Type{m5Large()}, Zones: zones(1), Limits: NoLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if r.Zones[0].NodeSubnetIPs != -1 || len(r.Checks) != 0 || !r.Fits {
		t.Errorf("no IPsAt: %+v, checks %+v", r.Zones, r.Checks)
	}
}

func TestFitErrors(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string
	}{
		{"no type holds a pod", Input{Workload: Workload{CPU: "4", Memory: "1Gi", Replicas: 1}, Types: []Type{m5Large(), c5XLarge()}},
			// The largest is c5.xlarge (4 vCPUs): 3920m allocatable against 4 cores.
			[]string{"4 cpu / 1Gi memory", "the largest, c5.xlarge, has 3920m cpu, 6584Mi memory and 58 pods allocatable"}},
		{"daemonsets fill the node", Input{Workload: Workload{CPU: "100m", Replicas: 1, DaemonSetPods: 29}, Types: []Type{m5Large()}},
			[]string{"m5.large", "29 pods allocatable (0 after 29 daemonset pods)"}},
		{"bad cpu", Input{Workload: Workload{CPU: "half", Replicas: 1}, Types: []Type{m5Large()}}, []string{"workload cpu", `"half"`}},
		{"bad memory", Input{Workload: Workload{Memory: "1Zi", Replicas: 1}, Types: []Type{m5Large()}}, []string{"workload memory", `"1Zi"`}},
		{"bad kubelet", Input{Workload: Workload{Replicas: 1}, Types: []Type{m5Large()}, Kubelet: Kubelet{EvictionHard: map[string]string{"memory.available": "x"}}},
			[]string{`eviction_hard["memory.available"]`}},
		{"negative replicas", Input{Workload: Workload{Replicas: -1}, Types: []Type{m5Large()}}, []string{"replicas -1"}},
		{"no types", Input{Workload: Workload{Replicas: 1}}, []string{"no candidate instance types"}},
		{"duplicate zone", Input{Workload: Workload{Replicas: 1}, Types: []Type{m5Large()}, Zones: []Zone{{Name: "a"}, {Name: "a"}}}, []string{`zone "a"`}},
		{"broken type", Input{Workload: Workload{Replicas: 1}, Types: []Type{{Name: "t.zero", MemoryMiB: 1}}}, []string{"t.zero"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fit(tc.in)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestGroup(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2100: "2,100", 1234567: "1,234,567", -4091: "-4,091"} {
		if got := group(in); got != want {
			t.Errorf("group(%d) = %q, want %q", in, got, want)
		}
	}
}
