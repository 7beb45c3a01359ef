package capacity

import "testing"

// VPC IP consumption at max pods, checked through Compute.
func TestVPCIPsAtMaxPods(t *testing.T) {
	cases := []struct {
		name              string
		net               Network
		set               Settings
		maxPods, nodeIPs  int
		podSubnetIPs, eni int // eni: UsableENIs
	}{
		// 29 pods -> 27 pod IPs / 9 = 3 ENIs x 10 = 30.
		{"m5.large secondary", m5Large(), Settings{}, 29, 30, 0, 3},
		// 110 pods -> 108 pod IPs: 7 prefixes + 1 warm = 8 on 1 ENI: 1 + 8x16 = 129.
		{"m5.large prefix delegation", m5Large(), Settings{PrefixDelegation: true}, 110, 129, 0, 3},
		// With a trunk ENI: 30 + 1; the trunk leaves 2 ENIs: 20 pods -> 2 ENIs x 10 + 1 = 21.
		{"m5.large secondary SGP", m5Large(), Settings{SecurityGroupsForPods: true, ReservedENIs: 1}, 20, 21, 0, 2},
		// 110 pods with a trunk: 129 + 1.
		{"m5.large prefix delegation SGP", m5Large(), Settings{PrefixDelegation: true, SecurityGroupsForPods: true}, 110, 130, 0, 2},
		// 4 pods -> 2 pod IPs / 1 = 2 ENIs x 2 = 4.
		{"t3.micro secondary", t3Micro(), Settings{}, 4, 4, 0, 2},
		// 34 pods -> 32 pod IPs: 2 + 1 warm = 3 prefixes, only 2 fit on 2 ENIs: 2 + 32 = 34.
		{"t3.micro prefix delegation", t3Micro(), Settings{PrefixDelegation: true}, 34, 34, 0, 2},
		// Custom networking: the node subnet keeps the primary only; pod subnet 1 ENI x 2.
		{"t3.micro custom networking", t3Micro(), Settings{CustomNetworking: true}, 3, 1, 2, 1},
		// Custom networking + trunk: node subnet primary + trunk = 2; pod subnet 18/9 = 2 x 10 = 20.
		{"m5.xlarge", m5XLarge(), Settings{CustomNetworking: true, SecurityGroupsForPods: true, ReservedENIs: 2, MaxPods: ptr(20)}, 20, 2, 30, 2},
		// max_pods 2: host-network pods only; the primary ENI is still attached: 10.
		{"m5.large host network only", m5Large(), Settings{MaxPods: ptr(2)}, 2, 10, 0, 3},
		// max_pods 0 behaves the same.
		{"m5.large max_pods 0", m5Large(), Settings{MaxPods: ptr(0)}, 0, 10, 0, 3},
		// One IPv4 per ENI: no pod IPs at all, 2 host-network pods; one ENI attached.
		{"one IPv4 per ENI", Network{InstanceType: "q.small", VCPUs: 1, MaxENIs: 2, IPv4PerENI: 1}, Settings{}, 2, 1, 0, 2},
		{"one IPv4 per ENI prefix delegation", Network{InstanceType: "q.small", VCPUs: 1, MaxENIs: 2, IPv4PerENI: 1},
			Settings{PrefixDelegation: true}, 2, 1, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(tc.net, tc.set)
			if err != nil {
				t.Fatal(err)
			}
			if r.MaxPods != tc.maxPods || r.VPCIPsAtMaxPods != tc.nodeIPs || r.PodSubnetIPsAtMaxPods != tc.podSubnetIPs || r.UsableENIs != tc.eni {
				t.Errorf("max pods %d, node IPs %d, pod subnet IPs %d, usable ENIs %d; want %d, %d, %d, %d",
					r.MaxPods, r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods, r.UsableENIs,
					tc.maxPods, tc.nodeIPs, tc.podSubnetIPs, tc.eni)
			}
		})
	}
}
