package capacity

import (
	"errors"
	"testing"
)

// ipsAtCombos are fixture types crossed with the settings that change the projection; the
// combinations Compute rejects are skipped by the callers.
func ipsAtCombos() []struct {
	name string
	net  Network
	set  Settings
} {
	no := false
	t3SmallNoTrunk := t3Small()
	t3SmallNoTrunk.TrunkCompatible = &no
	nets := []Network{m5Large(), m5XLarge(), c518XLarge(), t3Micro(), t3Small(), p4de24XLarge(), m4Large(), c5Metal(), p548XLarge()}
	sets := []struct {
		name string
		set  Settings
	}{
		{"defaults", Settings{}},
		{"prefix", Settings{PrefixDelegation: true}},
		{"custom", Settings{CustomNetworking: true}},
		{"custom prefix", Settings{CustomNetworking: true, PrefixDelegation: true}},
		{"trunk", Settings{SecurityGroupsForPods: true, ReservedENIs: 1}},
		{"trunk prefix", Settings{SecurityGroupsForPods: true, PrefixDelegation: true}},
		{"max_pods 110", Settings{MaxPods: ptr(110)}},
		{"max_pods 8", Settings{MaxPods: ptr(8)}},
		{"pods_per_core 5", Settings{PodsPerCore: ptr(5)}},
		{"reserved_enis 1", Settings{ReservedENIs: 1}},
		{"warm eni 0", Settings{Warm: WarmTargets{ENI: ptr(0)}}},
		{"warm eni 2", Settings{Warm: WarmTargets{ENI: ptr(2)}}},
		{"warm ip 5 min 10", Settings{Warm: WarmTargets{IP: ptr(5), MinimumIP: ptr(10)}}},
		{"warm prefix 2", Settings{PrefixDelegation: true, Warm: WarmTargets{Prefix: ptr(2)}}},
		{"minimum ip 40 prefix", Settings{PrefixDelegation: true, Warm: WarmTargets{MinimumIP: ptr(40)}}},
		{"windows", Settings{AMIFamily: FamilyWindows2022}},
		{"windows prefix", Settings{AMIFamily: FamilyWindows2022, PrefixDelegation: true}},
		{"efa layout", Settings{NetworkInterfaces: p5EFALayout()}},
	}
	var out []struct {
		name string
		net  Network
		set  Settings
	}
	for _, n := range append(nets, t3SmallNoTrunk) {
		for _, s := range sets {
			out = append(out, struct {
				name string
				net  Network
				set  Settings
			}{n.InstanceType + " " + s.name, n, s.set})
		}
	}
	return out
}

// At max pods (and past it, clamped) the projection is Compute's; it never decreases with pods.
func TestIPsAtPodsMatchesComputeAndGrows(t *testing.T) {
	checked := 0
	for _, c := range ipsAtCombos() {
		r, err := Compute(c.net, c.set)
		if err != nil {
			if _, _, err2 := IPsAtPods(c.net, c.set, 1); err2 == nil {
				t.Errorf("%s: Compute fails (%v) but IPsAtPods does not", c.name, err)
			}
			continue
		}
		for _, p := range []int{r.MaxPods, r.MaxPods + 1, r.MaxPods + 1000} {
			node, pod, err := IPsAtPods(c.net, c.set, p)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if node != r.VPCIPsAtMaxPods || pod != r.PodSubnetIPsAtMaxPods {
				t.Errorf("%s at %d pods (max %d): %d node / %d pod subnet; Compute says %d / %d",
					c.name, p, r.MaxPods, node, pod, r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods)
			}
		}
		prevNode, prevPod := -1, -1
		for p := -3; p <= r.MaxPods; p++ {
			node, pod, err := IPsAtPods(c.net, c.set, p)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if node < prevNode || pod < prevPod {
				t.Errorf("%s: %d pods give %d / %d, fewer than %d / %d at %d pods", c.name, p, node, pod, prevNode, prevPod, p-1)
				break
			}
			prevNode, prevPod = node, pod
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d combinations checked", checked)
	}
}

// Below max pods the skip-ahead of simulateIPAMD still agrees with the pod-by-pod replay.
func TestIPsAtPodsPartialMatchesReplay(t *testing.T) {
	for _, c := range ipsAtCombos() {
		if IsWindows(c.set.AMIFamily) {
			continue // the primary ENI only; ipamd is not involved
		}
		r, err := Compute(c.net, c.set)
		if err != nil {
			continue
		}
		in := projectionInputs(c.net, c.set, r)
		for podIPs := 0; podIPs <= in.podIPs; podIPs++ {
			in.podIPs = podIPs
			ge, gu := simulateIPAMD(in, in.ipv4PerENI-1)
			we, wu := replayIPAMD(in)
			if ge != we || gu != wu {
				t.Errorf("%s, %d pods with an address: simulate %d ENIs %d units, replay %d ENIs %d units",
					c.name, podIPs, ge, gu, we, wu)
				break
			}
		}
	}
}

// TestIPsAtPodsHandWorked follows ipamd by hand with the default warm targets (WARM_ENI_TARGET 1,
// WARM_PREFIX_TARGET 1). "a" is the pods with an address: pods - 2 host-network pods. "T" is the
// addresses (or prefixes x 16) ipamd holds; it grows while fewer than a warm ENI's (or prefix's)
// worth are free and T < max pods.
func TestIPsAtPodsHandWorked(t *testing.T) {
	cases := []struct {
		name            string
		net             Network
		set             Settings
		pods            int
		node, podSubnet int
	}{
		// m5.large, 3 ENIs x 10 IPv4 (9 secondary each), 29 max pods.
		// Empty node: a=0, free 0 < 9: the primary fills, T=9: 1 ENI + 9 = 10.
		{"m5.large empty", m5Large(), Settings{}, 0, 10, 0},
		// aws-node and kube-proxy only: still a=0.
		{"m5.large host-network only", m5Large(), Settings{}, 2, 10, 0},
		// One pod with an address: a=1, free 8 < 9: the warm ENI comes, T=18: 2 ENIs x 10 = 20.
		{"m5.large one addressed pod", m5Large(), Settings{}, 3, 20, 0},
		// a=9: free 9, not low: still 20.
		{"m5.large 11 pods", m5Large(), Settings{}, 11, 20, 0},
		// a=10: free 8 < 9, T=18 < 29: third ENI, T=27: 30.
		{"m5.large 12 pods", m5Large(), Settings{}, 12, 30, 0},
		{"m5.large full", m5Large(), Settings{}, 29, 30, 0},
		{"m5.large past full", m5Large(), Settings{}, 500, 30, 0},
		// Prefix delegation, 110 max pods: a=0 one prefix (T=16): 1 + 16.
		{"prefix m5.large host-network only", m5Large(), Settings{PrefixDelegation: true}, 2, 17, 0},
		// a=1: 15 free < 16: second prefix: 1 + 32.
		{"prefix m5.large one addressed pod", m5Large(), Settings{PrefixDelegation: true}, 3, 33, 0},
		// a=16: 16 free: still 1 + 32; a=17: 15 free: third prefix: 1 + 48.
		{"prefix m5.large 18 pods", m5Large(), Settings{PrefixDelegation: true}, 18, 33, 0},
		{"prefix m5.large 19 pods", m5Large(), Settings{PrefixDelegation: true}, 19, 49, 0},
		// Custom networking: the primary keeps 1 node-subnet address; pod ENIs start at none.
		// a=0: one pod ENI filled (1 + 9) in the pod subnet; a=1: the second one, 2 x 10.
		{"custom m5.large empty", m5Large(), Settings{CustomNetworking: true}, 0, 1, 10},
		{"custom m5.large one addressed pod", m5Large(), Settings{CustomNetworking: true}, 3, 1, 20},
		// Security groups for pods: 2 pod ENIs and the trunk's address. a=0: 10 + 1; a=1: 20 + 1.
		{"trunk m5.large empty", m5Large(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 0, 11, 0},
		{"trunk m5.large one addressed pod", m5Large(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 3, 21, 0},
		// c5.18xlarge 15 x 50 (49 secondary), 737 max pods: a=49: 49 free: 2 ENIs; a=50: 3 ENIs.
		{"c5.18xlarge 51 pods", c518XLarge(), Settings{}, 51, 100, 0},
		{"c5.18xlarge 52 pods", c518XLarge(), Settings{}, 52, 150, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node, pod, err := IPsAtPods(tc.net, tc.set, tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			if node != tc.node || pod != tc.podSubnet {
				t.Errorf("%d pods: node subnet %d, pod subnet %d; want %d, %d", tc.pods, node, pod, tc.node, tc.podSubnet)
			}
		})
	}
}

func TestIPsAtPodsErrors(t *testing.T) {
	bad := m5Large()
	bad.IPv4PerENI = -1
	if _, _, err := IPsAtPods(bad, Settings{}, 3); !errors.Is(err, ErrInvalidNetwork) {
		t.Errorf("negative IPv4 per ENI: %v, want ErrInvalidNetwork", err)
	}
	if _, _, err := IPsAtPods(m5Large(), Settings{ReservedENIs: 3}, 3); !errors.Is(err, ErrNoPodENI) {
		t.Errorf("every ENI reserved: %v, want ErrNoPodENI", err)
	}
}
