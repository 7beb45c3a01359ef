package capacity

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
)

// want holds hand-computed numbers; see each case's comment for the arithmetic.
type want struct {
	eniLimited, maxPods, karpenter int
	consistent                     bool
	usable, podIPsPerENI, efa      int
	vpcIPs, podSubnetIPs           int
}

type computeCase struct {
	name       string
	net        Network
	set        Settings
	want       want
	formula    string   // exact Formula when set
	formulaHas []string // substrings of Formula
	reasonHas  string   // substring of Reason
	warnHas    []string // substrings that must each appear in some warning
	noWarnings bool
	podENI     *int
}

func runComputeCases(t *testing.T, cases []computeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(tc.net, tc.set)
			if err != nil {
				t.Fatalf("Compute: %v", err)
			}
			got := want{
				eniLimited: r.ENILimitedPods, maxPods: r.MaxPods, karpenter: r.KarpenterAssumedPods,
				consistent: r.Consistent, usable: r.UsableENIs, podIPsPerENI: r.PodIPsPerENI, efa: r.EFAInterfaces,
				vpcIPs: r.VPCIPsAtMaxPods, podSubnetIPs: r.PodSubnetIPsAtMaxPods,
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v\nformula: %s", got, tc.want, r.Formula)
			}
			if r.IPv4PerENI != tc.net.IPv4PerENI {
				t.Errorf("IPv4PerENI = %d, want %d", r.IPv4PerENI, tc.net.IPv4PerENI)
			}
			if tc.formula != "" && r.Formula != tc.formula {
				t.Errorf("Formula = %q, want %q", r.Formula, tc.formula)
			}
			for _, s := range tc.formulaHas {
				if !strings.Contains(r.Formula, s) {
					t.Errorf("Formula %q lacks %q", r.Formula, s)
				}
			}
			if strings.Contains(r.Formula, "\n") {
				t.Errorf("Formula spans lines: %q", r.Formula)
			}
			switch {
			case r.Consistent && r.Reason != "":
				t.Errorf("consistent result has Reason %q", r.Reason)
			case !r.Consistent && r.Reason == "":
				t.Errorf("inconsistent result has no Reason")
			case tc.reasonHas != "" && !strings.Contains(r.Reason, tc.reasonHas):
				t.Errorf("Reason %q lacks %q", r.Reason, tc.reasonHas)
			}
			for _, s := range tc.warnHas {
				if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, s) }) {
					t.Errorf("no warning contains %q: %q", s, r.Warnings)
				}
			}
			if tc.noWarnings && len(r.Warnings) > 0 {
				t.Errorf("unexpected warnings: %q", r.Warnings)
			}
			switch {
			case tc.podENI == nil && r.PodENI != nil:
				t.Errorf("PodENI = %d, want nil", *r.PodENI)
			case tc.podENI != nil && (r.PodENI == nil || *r.PodENI != *tc.podENI):
				t.Errorf("PodENI = %v, want %d", r.PodENI, *tc.podENI)
			}
		})
	}
}

// Karpenter reference §3.3: defaults (no reserved ENIs, no maxPods, no
// networkInterfaces) and RESERVED_ENIS=1. Secondary-IP VPC usage is whole ENIs
// x IPv4 per ENI: ipamd keeps one ENI of free addresses warm (WARM_ENI_TARGET 1)
// until its pool holds max pods addresses, and RESERVED_ENIS is Karpenter's alone.
func TestComputeKarpenterWorkedNumbers(t *testing.T) {
	none := Settings{}
	res1 := Settings{ReservedENIs: 1}
	runComputeCases(t, []computeCase{
		// 3x9+2 = 29; 27 pod IPs / 9 = 3 ENIs x 10 = 30 IPs.
		{name: "m5.large", net: m5Large(), set: none, noWarnings: true,
			want:    want{29, 29, 29, true, 3, 9, 0, 30, 0},
			formula: "(3 ENIs - 0 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 29"},
		// 4x14+2 = 58; 56/14 = 4 ENIs x 15 = 60.
		{name: "m5.xlarge", net: m5XLarge(), set: none, noWarnings: true,
			want: want{58, 58, 58, true, 4, 14, 0, 60, 0}},
		// 15x49+2 = 737, no cap; 735/49 = 15 ENIs x 50 = 750.
		{name: "c5.18xlarge", net: c518XLarge(), set: none, noWarnings: true,
			want:    want{737, 737, 737, true, 15, 49, 0, 750, 0},
			formula: "(15 ENIs - 0 reserved - 0 efa-only) x (50 IPv4 - 1) + 2 = 737"},
		// 2x1+2 = 4; 2/1 = 2 ENIs x 2 = 4.
		{name: "t3.micro", net: t3Micro(), set: none, noWarnings: true,
			want: want{4, 4, 4, true, 2, 1, 0, 4, 0}},
		// Default card only: 2x49+2 = 100; efa = MaximumEfaInterfaces 32; 98/49 = 2 ENIs x 50.
		{name: "p5.48xlarge", net: p548XLarge(), set: none, noWarnings: true,
			want:    want{100, 100, 100, true, 2, 49, 32, 100, 0},
			formula: "(2 ENIs - 0 reserved - 0 efa-only) x (50 IPv4 - 1) + 2 = 100"},

		// RESERVED_ENIS=1: one ENI fewer for both Karpenter and the kubelet.
		// 2x9+2 = 20; 18 pod IPs fill 2 ENIs, whose 18 addresses are under 20 max pods, so
		// ipamd attaches the third as its warm ENI: 3 x 10.
		{name: "m5.large reserved 1", net: m5Large(), set: res1, noWarnings: true,
			want:    want{20, 20, 20, true, 2, 9, 0, 30, 0},
			formula: "(3 ENIs - 1 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 20"},
		// 3x14+2 = 44; 42 addresses on 3 ENIs < 44: the fourth is attached, 4 x 15.
		{name: "m5.xlarge reserved 1", net: m5XLarge(), set: res1,
			want: want{44, 44, 44, true, 3, 14, 0, 60, 0}},
		// 14x49+2 = 688; 686 addresses on 14 ENIs < 688: 15 x 50.
		{name: "c5.18xlarge reserved 1", net: c518XLarge(), set: res1,
			want: want{688, 688, 688, true, 14, 49, 0, 750, 0}},
		// 1x1+2 = 3; 1 address < 3: 2 ENIs x 2.
		{name: "t3.micro reserved 1", net: t3Micro(), set: res1,
			want: want{3, 3, 3, true, 1, 1, 0, 4, 0}},
		// 1x49+2 = 51; 49 < 51: both default-card ENIs, 2 x 50.
		{name: "p5.48xlarge reserved 1", net: p548XLarge(), set: res1,
			want: want{51, 51, 51, true, 1, 49, 32, 100, 0}},

		// §3.3 EFA layout: 32 efa-only entries, one of them on card 0:
		// (2-0-1)x49+2 = 51 for both; efa = 32; 49/49 = 1 ENI x 50.
		{name: "p5.48xlarge efa-only layout", net: p548XLarge(),
			set: Settings{NetworkInterfaces: p5EFALayout()}, noWarnings: true,
			want:    want{51, 51, 51, true, 1, 49, 32, 50, 0},
			formula: "(2 ENIs - 0 reserved - 1 efa-only) x (50 IPv4 - 1) + 2 = 51"},
	})
}

// Karpenter reference §4 (EKS max-pods calculator). Custom networking takes
// the primary ENI away from pods; its node subnet then holds one address, and
// the pod subnet holds the pod ENIs. Karpenter, unaware, keeps the §3.3 value.
func TestComputeCalculatorCustomNetworking(t *testing.T) {
	cn := Settings{CustomNetworking: true}
	const reason = "custom networking uses the primary ENI for the node, set reserved_enis = 1"
	runComputeCases(t, []computeCase{
		// 2x9+2 = 20; pod subnet 18/9 = 2 ENIs x 10.
		{name: "m5.large", net: m5Large(), set: cn, reasonHas: reason,
			want:    want{29, 20, 29, false, 2, 9, 0, 1, 20},
			formula: "(3 ENIs - 1 reserved for custom networking - 0 efa-only) x (10 IPv4 - 1) + 2 = 20"},
		// 3x14+2 = 44; 42/14 = 3 ENIs x 15.
		{name: "m5.xlarge", net: m5XLarge(), set: cn, reasonHas: reason,
			want: want{58, 44, 58, false, 3, 14, 0, 1, 45}},
		// 14x49+2 = 688 (the calculator's 250 cap is for prefix delegation here); 686/49 = 14 x 50.
		{name: "c5.18xlarge", net: c518XLarge(), set: cn, reasonHas: reason,
			want: want{737, 688, 737, false, 14, 49, 0, 1, 700}},
		// 1x1+2 = 3; 1/1 = 1 ENI x 2.
		{name: "t3.micro", net: t3Micro(), set: cn, reasonHas: reason,
			want: want{4, 3, 4, false, 1, 1, 0, 1, 2}},
		// 1x49+2 = 51; 49/49 = 1 ENI x 50.
		{name: "p5.48xlarge", net: p548XLarge(), set: cn, reasonHas: reason,
			want: want{100, 51, 100, false, 1, 49, 32, 1, 50}},
		// RESERVED_ENIS=1 makes Karpenter agree: 20 both.
		{name: "m5.large reserved 1", net: m5Large(), set: Settings{CustomNetworking: true, ReservedENIs: 1},
			noWarnings: true, want: want{20, 20, 20, true, 2, 9, 0, 1, 20},
			formula: "(3 ENIs - 1 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 20"},
		// Reserving more than custom networking needs still counts for max pods: 1x9+2 = 11; but
		// ipamd, unaware of it, attaches a second pod ENI while its 9 addresses are under 11: 2 x 10.
		{name: "m5.large reserved 2", net: m5Large(), set: Settings{CustomNetworking: true, ReservedENIs: 2},
			want: want{11, 11, 11, true, 1, 9, 0, 1, 20}},
	})
}

// Prefix delegation: usable x (IPv4-1) x 16 + 2, capped at 110 (<= 30 vCPUs)
// or 250. Pod IPs at max pods: ipamd keeps one prefix warm (WARM_PREFIX_TARGET 1)
// until its prefixes hold max pods addresses; node IPs = ENI primaries + prefixes x 16.
func TestComputeCalculatorPrefixDelegation(t *testing.T) {
	pd := Settings{PrefixDelegation: true}
	pdcn := Settings{PrefixDelegation: true, CustomNetworking: true}
	runComputeCases(t, []computeCase{
		// 3x9x16+2 = 434 -> 110; 108 pod IPs: the 81st pod leaves 15 free of 96, the pool grows
		// to 7 prefixes = 112 >= 110 and stops: 1 + 112 = 113.
		{name: "m5.large", net: m5Large(), set: pd, reasonHas: "set kubelet max_pods = 110",
			want:    want{29, 110, 29, false, 3, 144, 0, 113, 0},
			formula: "(3 ENIs - 0 reserved - 0 efa-only) x (10 IPv4 - 1) x 16 + 2 = 434, capped at 110 for 2 vCPUs (<= 30)"},
		// 4x14x16+2 = 898 -> 110; 7 prefixes on 1 ENI = 113.
		{name: "m5.xlarge", net: m5XLarge(), set: pd, reasonHas: "set kubelet max_pods = 110",
			want: want{58, 110, 58, false, 4, 224, 0, 113, 0}, formulaHas: []string{"= 898", "capped at 110"}},
		// 15x49x16+2 = 11762 -> 250; 248 pod IPs: the pool stops at 16 prefixes = 256 >= 250, on
		// 1 ENI: 1 + 256 = 257.
		{name: "c5.18xlarge", net: c518XLarge(), set: pd, reasonHas: "set kubelet max_pods = 250",
			want: want{737, 250, 737, false, 15, 784, 0, 257, 0}, formulaHas: []string{"= 11762", "capped at 250 for 72 vCPUs (> 30)"}},
		// 2x1x16+2 = 34, under the cap; 32 pod IPs: 2+1 = 3 prefixes but 2 ENIs hold
		// only 2 (one slot each): 2 + 32 = 34.
		{name: "t3.micro", net: t3Micro(), set: pd, reasonHas: "set kubelet max_pods = 34",
			want:    want{4, 34, 4, false, 2, 16, 0, 34, 0},
			formula: "(2 ENIs - 0 reserved - 0 efa-only) x (2 IPv4 - 1) x 16 + 2 = 34"},
		// 2x49x16+2 = 1570 -> 250; 16 prefixes on 1 ENI = 257.
		{name: "p5.48xlarge", net: p548XLarge(), set: pd, reasonHas: "set kubelet max_pods = 250",
			want: want{100, 250, 100, false, 2, 784, 32, 257, 0}, formulaHas: []string{"= 1570"}},

		// With custom networking: one ENI fewer, pod ENIs in the pod subnet.
		// 2x9x16+2 = 290 -> 110; pod subnet 1 + 7 x 16 = 113.
		{name: "m5.large custom networking", net: m5Large(), set: pdcn, reasonHas: "prefix delegation",
			want: want{29, 110, 29, false, 2, 144, 0, 1, 113}, formulaHas: []string{"= 290", "capped at 110"}},
		// 3x14x16+2 = 674 -> 110.
		{name: "m5.xlarge custom networking", net: m5XLarge(), set: pdcn, reasonHas: "set kubelet max_pods = 110",
			want: want{58, 110, 58, false, 3, 224, 0, 1, 113}, formulaHas: []string{"= 674"}},
		// 14x49x16+2 = 10978 -> 250.
		{name: "c5.18xlarge custom networking", net: c518XLarge(), set: pdcn, reasonHas: "set kubelet max_pods = 250",
			want: want{737, 250, 737, false, 14, 784, 0, 1, 257}, formulaHas: []string{"= 10978"}},
		// 1x1x16+2 = 18; 16 pod IPs: 1+1 = 2 prefixes, the one pod ENI holds 1: 1 + 16 = 17.
		{name: "t3.micro custom networking", net: t3Micro(), set: pdcn, reasonHas: "set kubelet max_pods = 18",
			want: want{4, 18, 4, false, 1, 16, 0, 1, 17}, formulaHas: []string{"= 18"}},
		// 1x49x16+2 = 786 -> 250.
		{name: "p5.48xlarge custom networking", net: p548XLarge(), set: pdcn, reasonHas: "set kubelet max_pods = 250",
			want: want{100, 250, 100, false, 1, 784, 32, 1, 257}, formulaHas: []string{"= 786"}},

		// Setting max_pods as the reason says makes them agree, with no warning (434 addressable).
		{name: "m5.large with max_pods 110", net: m5Large(),
			set: Settings{PrefixDelegation: true, MaxPods: ptr(110)}, noWarnings: true,
			want: want{29, 110, 110, true, 3, 144, 0, 113, 0}, formula: "kubelet max_pods = 110"},
		// Bare metal with no hypervisor is Nitro: 15x49x16+2 -> 250.
		{name: "c5.metal", net: c5Metal(), set: pd, noWarnings: true,
			want: want{737, 250, 737, false, 15, 784, 0, 257, 0}},
	})
}

func TestComputeFamiliesAndKubelet(t *testing.T) {
	runComputeCases(t, []computeCase{
		// Windows: 110 for both; ENI-limited still reported. Pod IPs come from the
		// primary ENI only: 1 ENI x 10 IPs, and a warning (9 pod IPs < 110).
		{name: "Windows2022 m5.large", net: m5Large(), set: Settings{AMIFamily: FamilyWindows2022},
			want: want{29, 110, 110, true, 3, 9, 0, 10, 0}, formula: "Windows AMI families run 110 pods",
			warnHas: []string{"primary ENI only: 9 pod IPs for 110 max pods"}},
		// Windows with prefixes: 144 pod IPs on the primary ENI cover 110; 8 prefixes -> 129.
		{name: "Windows2019 m5.large prefix delegation", net: m5Large(),
			set: Settings{AMIFamily: FamilyWindows2019, PrefixDelegation: true}, noWarnings: true,
			want: want{29, 110, 110, true, 3, 144, 0, 129, 0}},
		// Windows needs no ENI left: 110 even with every ENI reserved.
		{name: "Windows2025 t3.micro all reserved", net: t3Micro(), set: Settings{AMIFamily: FamilyWindows2025, ReservedENIs: 2},
			want: want{0, 110, 110, true, 0, 1, 0, 2, 0}},
		// Bottlerocket ignores pods_per_core: 29 both, with a warning.
		{name: "Bottlerocket pods_per_core", net: m5Large(), set: Settings{AMIFamily: FamilyBottlerocket, PodsPerCore: ptr(5)},
			want: want{29, 29, 29, true, 3, 9, 0, 30, 0}, warnHas: []string{"Bottlerocket ignores"}},
		// AL2023: min(5x2, 29) = 10 both; the primary's 9 addresses are under 10 max pods, so
		// the first pod brings the warm ENI: 2 x 10.
		{name: "AL2023 pods_per_core", net: m5Large(), set: Settings{AMIFamily: FamilyAL2023, PodsPerCore: ptr(5)},
			noWarnings: true, want: want{29, 10, 10, true, 3, 9, 0, 20, 0},
			formula: "(3 ENIs - 0 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 29; pods_per_core 5 x 2 vCPUs = 10"},
		// Empty family means AL2023.
		{name: "default family pods_per_core", net: m5Large(), set: Settings{PodsPerCore: ptr(5)},
			want: want{29, 10, 10, true, 3, 9, 0, 20, 0}},
		// pods_per_core above the ENI limit changes nothing: min(50x2, 29) = 29.
		{name: "AL2 pods_per_core above limit", net: m5Large(), set: Settings{AMIFamily: FamilyAL2, PodsPerCore: ptr(50)},
			want: want{29, 29, 29, true, 3, 9, 0, 30, 0}, formula: "(3 ENIs - 0 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 29"},
		// pods_per_core 0 is off.
		{name: "pods_per_core 0", net: m5Large(), set: Settings{PodsPerCore: ptr(0)},
			want: want{29, 29, 29, true, 3, 9, 0, 30, 0}},
		// Prefix delegation + pods_per_core: min(10x2, 110) = 20 = min(20, 29): consistent.
		// 18 pod IPs: the first pod brings the warm prefix, 32 >= 20 stops the pool: 1 + 32 = 33.
		{name: "Custom prefix delegation pods_per_core", net: m5Large(),
			set:  Settings{AMIFamily: FamilyCustom, PrefixDelegation: true, PodsPerCore: ptr(10)},
			want: want{29, 20, 20, true, 3, 144, 0, 33, 0}},
		// kubelet max_pods above ENI capacity: 50 both, warning names 50 and 29.
		// 48 pod IPs need 6 ENIs, capped at 3 x 10 = 30.
		{name: "max_pods above ENI capacity", net: m5Large(), set: Settings{MaxPods: ptr(50)},
			want: want{29, 50, 50, true, 3, 9, 0, 30, 0}, formula: "kubelet max_pods = 50",
			warnHas: []string{"max pods 50 is above the 29 pods"}},
		// kubelet max_pods below capacity: no warning; 18 pod IPs on 2 ENIs leave none free and
		// 18 < 20, so ipamd attaches the third: 3 x 10.
		{name: "max_pods below ENI capacity", net: m5Large(), set: Settings{MaxPods: ptr(20)}, noWarnings: true,
			want: want{29, 20, 20, true, 3, 9, 0, 30, 0}},
		// The warning looks at the value after pods_per_core: min(10x2, 50) = 20 fits in 29.
		{name: "max_pods above capacity cut by pods_per_core", net: m5Large(), set: Settings{MaxPods: ptr(50), PodsPerCore: ptr(10)},
			noWarnings: true, want: want{29, 20, 20, true, 3, 9, 0, 30, 0}},
		// max_pods with pods_per_core: min(3x2, 20) = 6 both.
		{name: "max_pods and pods_per_core", net: m5Large(), set: Settings{MaxPods: ptr(20), PodsPerCore: ptr(3)},
			want: want{29, 6, 6, true, 3, 9, 0, 10, 0}, formula: "kubelet max_pods = 20; pods_per_core 3 x 2 vCPUs = 6"},
		// All ENIs reserved but max_pods given: Karpenter ENI limit 0, both run 4;
		// 0 usable ENIs address only 2 pods in Karpenter's count. ipamd does not know
		// RESERVED_ENIS and attaches both ENIs while under 4 addresses: 2 x 2.
		{name: "max_pods with no usable ENI", net: t3Micro(), set: Settings{ReservedENIs: 2, MaxPods: ptr(4)},
			want: want{0, 4, 4, true, 0, 1, 0, 4, 0}, warnHas: []string{"max pods 4 is above the 2 pods"}},
	})
}

func TestComputeSecurityGroupsForPods(t *testing.T) {
	runComputeCases(t, []computeCase{
		// Trunk takes an ENI: 2x9+2 = 20, Karpenter 29; 2 ENIs x 10 + 1 trunk = 21.
		{name: "m5.large without branch count", net: m5Large(), set: Settings{SecurityGroupsForPods: true},
			reasonHas: "security groups for pods take one ENI as the trunk, set reserved_enis = 1",
			want:      want{29, 20, 29, false, 2, 9, 0, 21, 0},
			formula:   "(3 ENIs - 1 reserved for security groups for pods - 0 efa-only) x (10 IPv4 - 1) + 2 = 20",
			warnHas:   []string{"pod-eni capacity is unknown"}},
		{name: "m5.large reserved 1 with branch count", net: m5Large(),
			set:  Settings{SecurityGroupsForPods: true, ReservedENIs: 1, BranchInterfaces: ptr(9)},
			want: want{20, 20, 20, true, 2, 9, 0, 21, 0}, noWarnings: true, podENI: ptr(9)},
		// Custom networking + trunk: 4-2 = 2 ENIs: 2x14+2 = 30 vs 58. Node subnet:
		// primary + trunk = 2; pod subnet 28/14 = 2 ENIs x 15 = 30.
		{name: "m5.xlarge custom networking", net: m5XLarge(),
			set:       Settings{SecurityGroupsForPods: true, CustomNetworking: true, BranchInterfaces: ptr(18)},
			reasonHas: "set reserved_enis = 2 (or kubelet max_pods = 30)", noWarnings: true, podENI: ptr(18),
			want:       want{58, 30, 58, false, 2, 14, 0, 2, 30},
			formulaHas: []string{"2 reserved for custom networking + security groups for pods"}},
		// Branch count is passed through even without SGP.
		{name: "branch count without SGP", net: m5Large(), set: Settings{BranchInterfaces: ptr(0)},
			want: want{29, 29, 29, true, 3, 9, 0, 30, 0}, podENI: ptr(0)},
	})
}

func TestComputeCardsAndInterfaces(t *testing.T) {
	runComputeCases(t, []computeCase{
		// Only the default card counts: card 1 has 4 ENIs: 4x9+2 = 38.
		{name: "default card 1", net: Network{InstanceType: "x.large", VCPUs: 8, Hypervisor: HypervisorNitro,
			MaxENIs: 6, DefaultCardIndex: 1, CardENIs: []int{2, 4}, IPv4PerENI: 10},
			want: want{38, 38, 38, true, 4, 9, 0, 40, 0}},
		// No per-card data: the default card has MaxENIs = 3: 29.
		{name: "no card data", net: Network{InstanceType: "y.large", VCPUs: 2, Hypervisor: HypervisorNitro,
			MaxENIs: 3, IPv4PerENI: 10},
			want: want{29, 29, 29, true, 3, 9, 0, 30, 0}},
		// efa-only off card 0 takes no pod ENI: 100 pods, efa = 1.
		{name: "p5 efa-only on card 1", net: p548XLarge(), set: Settings{NetworkInterfaces: []Interface{
			{0, 0, InterfaceTypeInterface}, {1, 0, InterfaceTypeEFAOnly}}},
			want: want{100, 100, 100, true, 2, 49, 1, 100, 0}},
		// networkInterfaces set but empty: efa counts entries, so 0.
		{name: "p5 empty interface list", net: p548XLarge(), set: Settings{NetworkInterfaces: []Interface{}},
			want: want{100, 100, 100, true, 2, 49, 0, 100, 0}},
		// efa-only on card 0 plus RESERVED_ENIS=1 leaves nothing for Karpenter, but
		// max_pods is set; only the primary ENI is counted: 1 x 50.
		{name: "p5 efa layout reserved 1 max_pods", net: p548XLarge(),
			set:  Settings{NetworkInterfaces: p5EFALayout(), ReservedENIs: 1, MaxPods: ptr(100)},
			want: want{0, 100, 100, true, 0, 49, 32, 50, 0}, warnHas: []string{"above the 2 pods"}},
		// EFA supported but not configured: efa = MaximumEfaInterfaces; unsupported: 0.
		{name: "EFA not supported", net: func() Network { n := p548XLarge(); n.EFASupported = false; return n }(),
			want: want{100, 100, 100, true, 2, 49, 0, 100, 0}},
		// Xen without prefix delegation is fine: 2x9+2 = 20.
		{name: "m4.large xen", net: m4Large(), noWarnings: true,
			want: want{20, 20, 20, true, 2, 9, 0, 20, 0}},
	})
}

func TestComputeErrors(t *testing.T) {
	p5FewEFA := p548XLarge()
	p5FewEFA.MaxEFAInterfaces = 16
	cases := []struct {
		name    string
		net     Network
		set     Settings
		is      error
		field   string   // FieldError expected when set
		message []string // substrings of the error text
	}{
		{name: "unknown family", net: m5Large(), set: Settings{AMIFamily: "Ubuntu"},
			field: "ami_family", message: []string{"Ubuntu"}},
		{name: "negative reserved", net: m5Large(), set: Settings{ReservedENIs: -1}, field: "reserved_enis"},
		{name: "every ENI reserved", net: t3Micro(), set: Settings{ReservedENIs: 2},
			is: ErrNoPodENI, message: []string{"t3.micro", "max_pods"}},
		{name: "custom networking and SGP on t3.micro", net: t3Micro(),
			set: Settings{CustomNetworking: true, SecurityGroupsForPods: true}, is: ErrNoPodENI},
		{name: "efa-only without EFA", net: m5Large(), set: Settings{NetworkInterfaces: []Interface{
			{0, 0, InterfaceTypeInterface}, {0, 1, InterfaceTypeEFAOnly}}}, is: ErrIncompatible, message: []string{"EFA"}},
		{name: "too many efa-only", net: p5FewEFA, set: Settings{NetworkInterfaces: p5EFALayout()},
			is: ErrIncompatible, message: []string{"maximum of 16"}},
		{name: "missing network card", net: m5Large(), set: Settings{NetworkInterfaces: []Interface{
			{0, 0, InterfaceTypeInterface}, {1, 0, InterfaceTypeInterface}}}, is: ErrIncompatible, message: []string{"card 1"}},
		{name: "device past card ENIs", net: m5Large(), set: Settings{NetworkInterfaces: []Interface{
			{0, 0, InterfaceTypeInterface}, {0, 3, InterfaceTypeInterface}}}, is: ErrIncompatible, message: []string{"device 3"}},
		{name: "no IPv4 data", net: Network{InstanceType: "z.large", VCPUs: 2, MaxENIs: 3}, is: ErrInvalidNetwork},
		{name: "no vCPU data", net: Network{InstanceType: "z.large", MaxENIs: 3, IPv4PerENI: 10}, is: ErrInvalidNetwork},
		{name: "negative card ENIs", net: Network{InstanceType: "z.large", VCPUs: 2, CardENIs: []int{-1}, IPv4PerENI: 10},
			is: ErrInvalidNetwork},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compute(tc.net, tc.set)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %q", err, tc.is)
			}
			if tc.field != "" {
				var fe attrpath.Finding
				if !errors.As(err, &fe) || fe.Path.Steps()[0].Name != tc.field {
					t.Errorf("error %q: want a finding on %q, got %+v", err, tc.field, fe)
				}
			}
			for _, s := range tc.message {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestComputeDoesNotAliasInput(t *testing.T) {
	branch := 9
	r, err := Compute(m5Large(), Settings{BranchInterfaces: &branch})
	if err != nil {
		t.Fatal(err)
	}
	branch = 1
	if *r.PodENI != 9 {
		t.Errorf("PodENI follows the caller's variable: %d", *r.PodENI)
	}
}

func TestFamilies(t *testing.T) {
	got := Families()
	want := []string{"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"}
	if !slices.Equal(got, want) {
		t.Fatalf("Families() = %q", got)
	}
	got[0] = "changed"
	if Families()[0] != "AL2" {
		t.Error("Families() shares its backing array")
	}
	for _, f := range want {
		if !IsFamily(f) {
			t.Errorf("IsFamily(%q) = false", f)
		}
		if IsWindows(f) != strings.HasPrefix(f, "Windows") {
			t.Errorf("IsWindows(%q) = %v", f, IsWindows(f))
		}
	}
	for _, f := range []string{"", "al2023", "Windows", "Ubuntu"} {
		if IsFamily(f) || IsWindows(f) {
			t.Errorf("%q accepted", f)
		}
	}
	if ResolveFamily("") != FamilyAL2023 || ResolveFamily(FamilyAL2) != FamilyAL2 {
		t.Error("ResolveFamily")
	}
}

// Prefix delegation on a Xen type is the VPC CNI's fallback to secondary IPs, not a type that
// cannot launch: the counts are the secondary-IP ones, flagged, and Karpenter agrees.
func TestXenPrefixDelegationFallsBack(t *testing.T) {
	r, err := Compute(m4Large(), Settings{PrefixDelegation: true})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Compute(m4Large(), Settings{})
	if !r.PrefixFallback || r.MaxPods != plain.MaxPods || r.VPCIPsAtMaxPods != plain.VPCIPsAtMaxPods || !r.Consistent ||
		len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "falls back to secondary IPs") {
		t.Errorf("fallback %+v, secondary IPs %+v", r, plain)
	}
	if r, _ := Compute(m5Large(), Settings{PrefixDelegation: true}); r.PrefixFallback || r.MaxPods != 110 {
		t.Errorf("nitro: %+v", r)
	}
}

// Security groups for pods reserve the trunk ENI only on types that can carry one (t3.micro
// cannot, m5.large can): no trunk, no lost ENI, and Karpenter agrees.
func TestSecurityGroupsForPodsNeedATrunkCompatibleType(t *testing.T) {
	no, yes := false, true
	micro, large := t3Micro(), m5Large()
	micro.TrunkCompatible, large.TrunkCompatible = &no, &yes
	sgp := Settings{SecurityGroupsForPods: true}
	r, err := Compute(micro, sgp)
	if err != nil {
		t.Fatal(err)
	}
	if !r.NoTrunk || r.MaxPods != 4 || !r.Consistent {
		t.Errorf("t3.micro: %+v, want 4 pods, no trunk, consistent", r)
	}
	r, err = Compute(large, sgp)
	if err != nil {
		t.Fatal(err)
	}
	if r.NoTrunk || r.MaxPods != 20 || r.Consistent {
		t.Errorf("m5.large: %+v, want 20 pods (one ENI is the trunk) and Karpenter's 29 apart", r)
	}
	large.TrunkCompatible = nil // unknown: as before, the trunk is counted
	if r, _ := Compute(large, sgp); r.MaxPods != 20 {
		t.Errorf("unknown trunking: %+v", r)
	}
}

// Karpenter launches no type without ENA support with spec.networkInterfaces.
func TestInterfacesNeedENA(t *testing.T) {
	n := m5Large()
	n.ENAUnsupported = true
	ifs := []Interface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: InterfaceTypeInterface}}
	if _, err := Compute(n, Settings{NetworkInterfaces: ifs}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "ENA") {
		t.Errorf("err = %v, want ErrIncompatible naming ENA", err)
	}
	if _, err := Compute(n, Settings{}); err != nil {
		t.Errorf("without network_interfaces: %v", err)
	}
}
