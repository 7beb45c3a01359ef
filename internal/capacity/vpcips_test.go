package capacity

import (
	"fmt"
	"testing"
)

func t3Small() Network {
	no := false
	return Network{InstanceType: "t3.small", VCPUs: 2, Hypervisor: HypervisorNitro,
		MaxENIs: 3, CardENIs: []int{3}, IPv4PerENI: 4, IPv6PerENI: 4, TrunkCompatible: &no}
}

// p4de24XLarge has four network cards of 15 ENIs; pods use the default card's.
func p4de24XLarge() Network {
	return Network{InstanceType: "p4de.24xlarge", VCPUs: 96, Hypervisor: HypervisorNitro,
		MaxENIs: 60, CardENIs: []int{15, 15, 15, 15}, IPv4PerENI: 50, IPv6PerENI: 50}
}

// TestIPProjectionHandWorked checks the IP projection against ipamd's behaviour worked by hand
// for each mode, with the VPC CNI's defaults (WARM_ENI_TARGET 1, WARM_PREFIX_TARGET 1) unless a
// case sets targets. "T" is the addresses (secondary IPs, or prefixes x 16) ipamd holds, "a"
// the pods with an address. ipamd grows its pool while it is low and T < max pods.
func TestIPProjectionHandWorked(t *testing.T) {
	warm := func(eni, ip, minIP, prefix *int) WarmTargets {
		return WarmTargets{ENI: eni, IP: ip, MinimumIP: minIP, Prefix: prefix}
	}
	cases := []struct {
		name            string
		net             Network
		set             Settings
		maxPods         int
		node, podSubnet int
	}{
		// Secondary IPs, at the ENI limit: every ENI fills.
		// m5.large 3 x 10: 29 pods, 27 addresses = 3 ENIs x 10.
		{"secondary m5.large", m5Large(), Settings{}, 29, 30, 0},
		// t3.small 3 x 4: 11 pods; at a=7 2 free < 3 but no ENI is left: 3 x 4.
		{"secondary t3.small", t3Small(), Settings{}, 11, 12, 0},
		{"secondary c5.18xlarge", c518XLarge(), Settings{}, 737, 750, 0},
		// p4de.24xlarge: only card 0's 15 ENIs carry pods: 15 x 49 + 2 = 737.
		{"secondary p4de.24xlarge", p4de24XLarge(), Settings{}, 737, 750, 0},

		// Secondary IPs below the ENI limit: the warm ENI counts until T >= max pods.
		// max_pods 20: a=0 T=9, a=1 T=18, a=10 (8 free < 9, 18 < 20) T=27 >= 20: 3 x 10.
		{"secondary m5.large max_pods 20", m5Large(), Settings{MaxPods: ptr(20)}, 20, 30, 0},
		// max_pods 11: a=0 T=9, a=1 T=18 >= 11: 2 x 10.
		{"secondary m5.large max_pods 11", m5Large(), Settings{MaxPods: ptr(11)}, 11, 20, 0},
		// max_pods 8: a=0 T=9 >= 8, the warm ENI never comes: 1 x 10.
		{"secondary m5.large max_pods 8", m5Large(), Settings{MaxPods: ptr(8)}, 8, 10, 0},
		// pods_per_core 5: 10 max pods; a=1 brings the second ENI (9 < 10): 2 x 10.
		{"secondary m5.large pods_per_core 5", m5Large(), Settings{PodsPerCore: ptr(5)}, 10, 20, 0},
		// t3.small max_pods 5: a=0 T=3, a=1 T=6 >= 5: 2 x 4.
		{"secondary t3.small max_pods 5", t3Small(), Settings{MaxPods: ptr(5)}, 5, 8, 0},
		// c5.18xlarge max_pods 110: a=0 T=49, a=1 T=98, a=50 T=147 >= 110: 3 x 50.
		{"secondary c5.18xlarge max_pods 110", c518XLarge(), Settings{MaxPods: ptr(110)}, 110, 150, 0},
		// pods_per_core 1: 72 max pods; a=1 T=98 >= 72: 2 x 50.
		{"secondary c5.18xlarge pods_per_core 1", c518XLarge(), Settings{PodsPerCore: ptr(1)}, 72, 100, 0},
		{"secondary p4de.24xlarge max_pods 110", p4de24XLarge(), Settings{MaxPods: ptr(110)}, 110, 150, 0},
		// RESERVED_ENIS is Karpenter's: 20 max pods, and ipamd still attaches the third ENI.
		{"secondary m5.large reserved_enis 1", m5Large(), Settings{ReservedENIs: 1}, 20, 30, 0},

		// Prefix delegation: one prefix warm until the prefixes hold max pods addresses.
		// m5.large 110: at a=81 (15 free < 16, T=96 < 110) T=112 >= 110: 7 prefixes: 1 + 112.
		{"prefix m5.large", m5Large(), Settings{PrefixDelegation: true}, 110, 113, 0},
		// t3.small 3 x 3 x 16 + 2 = 146 -> 110: the same 7 prefixes, 3 per ENI: 3 ENIs: 3 + 112.
		{"prefix t3.small", t3Small(), Settings{PrefixDelegation: true}, 110, 115, 0},
		// c5.18xlarge 250: a=225 T=240 -> 256 >= 250: 16 prefixes on one ENI: 1 + 256.
		{"prefix c5.18xlarge", c518XLarge(), Settings{PrefixDelegation: true}, 250, 257, 0},
		{"prefix p4de.24xlarge", p4de24XLarge(), Settings{PrefixDelegation: true}, 250, 257, 0},
		// Below the limit: max_pods 30: a=0 T=16, a=1 T=32 >= 30: 1 + 32.
		{"prefix m5.large max_pods 30", m5Large(), Settings{PrefixDelegation: true, MaxPods: ptr(30)}, 30, 33, 0},
		// t3.small max_pods 20: a=1 T=32 >= 20: 2 prefixes on the primary: 1 + 32.
		{"prefix t3.small max_pods 20", t3Small(), Settings{PrefixDelegation: true, MaxPods: ptr(20)}, 20, 33, 0},
		// WARM_PREFIX_TARGET 2 changes nothing at max pods: T = 16 x (ceil(a/16) + 2) until >= 110.
		{"prefix m5.large warm prefix 2", m5Large(), Settings{PrefixDelegation: true, Warm: warm(nil, nil, nil, ptr(2))}, 110, 113, 0},
		// MINIMUM_IP_TARGET 200: ceil(200/16) = 13 prefixes at start, already >= 110: 1 + 208.
		{"prefix c5.18xlarge minimum 200 max_pods 110", c518XLarge(),
			Settings{PrefixDelegation: true, MaxPods: ptr(110), Warm: warm(nil, nil, ptr(200), nil)}, 110, 209, 0},

		// Custom networking: pod ENIs, primaries included, in the pod subnet; the primary ENI keeps
		// only its own address in the node subnet.
		// m5.large: 2 pod ENIs, 20 max pods; 18 < 20 but no ENI left: 2 x 10.
		{"custom m5.large", m5Large(), Settings{CustomNetworking: true}, 20, 1, 20},
		// t3.small: 2 x 3 + 2 = 8; a=0 T=3, a=1 T=6, then no ENI: 2 x 4.
		{"custom t3.small", t3Small(), Settings{CustomNetworking: true}, 8, 1, 8},
		{"custom c5.18xlarge", c518XLarge(), Settings{CustomNetworking: true}, 688, 1, 700},
		{"custom p4de.24xlarge", p4de24XLarge(), Settings{CustomNetworking: true}, 688, 1, 700},
		// With prefixes: 7 prefixes on one pod ENI: 1 + 112.
		{"custom prefix m5.large", m5Large(), Settings{CustomNetworking: true, PrefixDelegation: true}, 110, 1, 113},
		// custom networking below the limit: max_pods 11: a=0 T=9, a=1 T=18 >= 11: 2 x 10.
		{"custom m5.large max_pods 11", m5Large(), Settings{CustomNetworking: true, MaxPods: ptr(11)}, 11, 1, 20},

		// Security groups for pods: the trunk takes an ENI and its address.
		// m5.large: 2 pod ENIs, 20 max pods (reserved 1): 2 x 10 + trunk.
		{"trunk m5.large", m5Large(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 20, 21, 0},
		// t3.small cannot carry a trunk: nothing reserved, as without security groups for pods.
		{"trunk t3.small", t3Small(), Settings{SecurityGroupsForPods: true}, 11, 12, 0},
		{"trunk c5.18xlarge", c518XLarge(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 688, 701, 0},
		{"trunk p4de.24xlarge", p4de24XLarge(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 688, 701, 0},
		// Prefixes with a trunk: 7 prefixes + primary + trunk.
		{"trunk prefix m5.large", m5Large(), Settings{SecurityGroupsForPods: true, PrefixDelegation: true}, 110, 114, 0},

		// WARM_IP_TARGET / MINIMUM_IP_TARGET: the pool grows by what it is short of.
		// WARM_IP 5, MINIMUM 10, max_pods 20: T = max(a + 5, 10) until T >= 20 at a=15:
		// 9 + 9 + 2 addresses on 3 ENIs: 3 + 20.
		{"warm ip m5.large max_pods 20", m5Large(), Settings{MaxPods: ptr(20), Warm: warm(nil, ptr(5), ptr(10), nil)}, 20, 23, 0},
		// WARM_IP 2 on t3.small: T = a + 2 until the 3 ENIs are full (9 < 11): 3 x 4.
		{"warm ip t3.small", t3Small(), Settings{Warm: warm(nil, ptr(2), nil, nil)}, 11, 12, 0},
		// WARM_IP 2, max_pods 11: T = a + 2 until 11 at a=9: 9 + 2 on 2 ENIs: 2 + 11.
		{"warm ip m5.large max_pods 11", m5Large(), Settings{MaxPods: ptr(11), Warm: warm(nil, ptr(2), nil, nil)}, 11, 13, 0},
		// MINIMUM_IP 30 alone on c5.18xlarge with max_pods 20: 30 at start, >= 20: 1 + 30.
		{"minimum ip c5.18xlarge max_pods 20", c518XLarge(), Settings{MaxPods: ptr(20), Warm: warm(nil, nil, ptr(30), nil)}, 20, 31, 0},
		// WARM_ENI_TARGET 0: grows only when nothing is free; m5.large max_pods 11: a=9 T=18: 2 x 10.
		{"warm eni 0 m5.large max_pods 11", m5Large(), Settings{MaxPods: ptr(11), Warm: warm(ptr(0), nil, nil, nil)}, 11, 20, 0},
		// WARM_ENI_TARGET 2, c5.18xlarge max_pods 110: a=0 T=49, 98 (2 ENIs of warm needs 98 free)
		// T=147 >= 110 stops at 3 ENIs.
		{"warm eni 2 c5.18xlarge max_pods 110", c518XLarge(), Settings{MaxPods: ptr(110), Warm: warm(ptr(2), nil, nil, nil)}, 110, 150, 0},

		// Edge cases: max_pods 0 and 2 leave the pool empty (T=0 >= 0) or at one ENI.
		{"m5.large max_pods 0", m5Large(), Settings{MaxPods: ptr(0)}, 0, 1, 0},
		{"m5.large max_pods 2", m5Large(), Settings{MaxPods: ptr(2)}, 2, 10, 0},
		{"one IPv4 per ENI", Network{InstanceType: "q.small", VCPUs: 1, MaxENIs: 2, IPv4PerENI: 1}, Settings{}, 2, 1, 0},
		{"one IPv4 per ENI prefix delegation", Network{InstanceType: "q.small", VCPUs: 1, MaxENIs: 2, IPv4PerENI: 1},
			Settings{PrefixDelegation: true}, 2, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(tc.net, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxPods != tc.maxPods || r.VPCIPsAtMaxPods != tc.node || r.PodSubnetIPsAtMaxPods != tc.podSubnet {
				t.Errorf("max pods %d, node subnet %d, pod subnet %d; want %d, %d, %d",
					r.MaxPods, r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods, tc.maxPods, tc.node, tc.podSubnet)
			}
		})
	}
}

// replayIPAMD is the projection done the slow way: one pod at a time, the pool reconciled after
// each, every ENI scanned for room. It checks the skip-ahead of simulateIPAMD.
func replayIPAMD(in ipInputs) (enis, units int) {
	slots := in.ipv4PerENI - 1
	if slots <= 0 || in.podENIs <= 0 {
		return boolInt(!in.customNetworking), 0
	}
	eni, ip, minIP, prefix := in.warm.values()
	per := 1
	if in.prefixDelegation {
		per = ipsPerPrefix
	}
	var filled []int // units per pod ENI
	if !in.customNetworking {
		filled = []int{0}
	}
	total := func() int {
		n := 0
		for _, f := range filled {
			n += f
		}
		return n * per
	}
	add := func(n int) bool {
		for i := range filled {
			if filled[i] < slots {
				filled[i] += min(n, slots-filled[i])
				return true
			}
		}
		if len(filled) >= in.podENIs {
			return false
		}
		filled = append(filled, min(n, slots))
		return true
	}
	for a := 0; a <= min(in.podIPs, in.podENIs*slots*per); a++ {
		for {
			tot := total()
			if tot >= in.maxPods {
				break
			}
			free := tot - a
			var need int
			switch {
			case ip > 0 || minIP > 0:
				need = max(ip-free, minIP-tot, 0)
				if in.prefixDelegation {
					need = prefixesFor(need)
				}
			case in.prefixDelegation:
				if free < prefix*ipsPerPrefix || (prefix == 0 && free == 0) {
					freePrefixes := tot/ipsPerPrefix - prefixesFor(a)
					need = max(1, prefix-freePrefixes)
				}
			default:
				if free < eni*slots || (eni == 0 && free == 0) {
					need = slots
				}
			}
			if need == 0 || !add(need) {
				break
			}
		}
	}
	for _, f := range filled {
		units += f
	}
	return len(filled), units
}

func TestSimulateIPAMDMatchesReplay(t *testing.T) {
	nets := []Network{m5Large(), m5XLarge(), c518XLarge(), t3Micro(), t3Small(), p4de24XLarge()}
	targets := []WarmTargets{
		{}, {ENI: ptr(0)}, {ENI: ptr(2)}, {ENI: ptr(3), Prefix: ptr(0)}, {Prefix: ptr(3)},
		{IP: ptr(1)}, {IP: ptr(5), MinimumIP: ptr(10)}, {MinimumIP: ptr(40)}, {IP: ptr(20), MinimumIP: ptr(0)},
	}
	checked := 0
	for _, n := range nets {
		slots := n.IPv4PerENI - 1
		for _, pd := range []bool{false, true} {
			for _, cn := range []bool{false, true} {
				for _, w := range targets {
					for maxPods := 0; maxPods <= 260; maxPods += 7 {
						podENIs := DefaultCardENIs(n) - boolInt(cn)
						in := ipInputs{maxPods: maxPods, podIPs: max(0, maxPods-hostNetworkPods), podENIs: podENIs,
							ipv4PerENI: n.IPv4PerENI, prefixDelegation: pd, customNetworking: cn, warm: w}
						ge, gu := simulateIPAMD(in, slots)
						we, wu := replayIPAMD(in)
						if ge != we || gu != wu {
							t.Errorf("%s pd=%v cn=%v %s max pods %d: simulate %d ENIs %d units, replay %d ENIs %d units",
								n.InstanceType, pd, cn, fmtWarm(w), maxPods, ge, gu, we, wu)
						}
						checked++
					}
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d combinations checked", checked)
	}
}

func fmtWarm(w WarmTargets) string {
	e, i, m, p := w.values()
	return fmt.Sprintf("warm eni %d ip %d min %d prefix %d", e, i, m, p)
}
