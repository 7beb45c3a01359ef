package capacity

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func autoMode(prefixSize string, podSubnets bool) *AutoMode {
	return &AutoMode{IPv4PrefixSize: prefixSize, PodSubnets: podSubnets}
}

// autoWant is what an Auto Mode result must hold: hand-computed, see each case's comment.
type autoWant struct {
	addressable, maxPods, usable, podIPsPerENI int
	nodeIPs, podSubnetIPs, prefixes            int
}

func TestComputeAutoMode(t *testing.T) {
	cases := []struct {
		name    string
		net     Network
		auto    *AutoMode
		want    autoWant
		formula string
	}{
		// m5.large: 3 ENIs x (10 - 1) x 16 + 2 = 434, capped at 110. 110 pods fill 7 /28s, which
		// fit on the primary ENI's 9 slots: 1 + 7 x 16 = 113 addresses.
		{"m5.large prefixes", m5Large(), autoMode("", false), autoWant{434, 110, 3, 144, 113, 0, 7},
			"EKS Auto Mode, /28 prefixes: 3 ENIs x (10 IPv4 - 1) x 16 + 2 = 434, capped at 110"},
		{"Auto is the default", m5Large(), autoMode(AutoModePrefixAuto, false), autoWant{434, 110, 3, 144, 113, 0, 7}, ""},
		// "32": 3 x 9 + 2 = 29, under the cap. The 27 secondary addresses fill all 3 ENIs, each
		// with its primary address: 3 + 27 = 30.
		{"m5.large secondary IPs", m5Large(), autoMode(AutoModePrefix32, false), autoWant{29, 29, 3, 9, 30, 0, 0},
			"EKS Auto Mode, secondary IPs: 3 ENIs x (10 IPv4 - 1) + 2 = 29"},
		// Pod subnets leave the primary ENI to the node: (3 - 1) x 9 x 16 + 2 = 290, capped at 110;
		// the node subnet holds the node's address only, the pod subnet one ENI's primary address
		// and 7 /28s.
		{"m5.large prefixes, pod subnets", m5Large(), autoMode("", true), autoWant{290, 110, 2, 144, 1, 113, 7},
			"EKS Auto Mode, /28 prefixes: (3 ENIs - 1 primary, pod subnets) x (10 IPv4 - 1) x 16 + 2 = 290, capped at 110"},
		// (3 - 1) x 9 + 2 = 20; 18 pod addresses on 2 pod ENIs: 2 + 18 = 20 in the pod subnet.
		{"m5.large secondary IPs, pod subnets", m5Large(), autoMode(AutoModePrefix32, true), autoWant{20, 20, 2, 9, 1, 20, 0}, ""},
		// 4 x 14 + 2 = 58; 56 addresses on 4 ENIs: 4 + 56 = 60.
		{"m5.xlarge secondary IPs", m5XLarge(), autoMode(AutoModePrefix32, false), autoWant{58, 58, 4, 14, 60, 0, 0}, ""},
		// 15 x 49 + 2 = 737, capped at 110 whatever the vCPUs (the VPC CNI's calculator gives 250
		// above 30 vCPUs only with prefixes; Auto Mode caps both modes). 110 addresses on
		// ceil(110 / 49) = 3 ENIs: 3 + 110 = 113.
		{"c5.18xlarge secondary IPs", c518XLarge(), autoMode(AutoModePrefix32, false), autoWant{737, 110, 15, 49, 113, 0, 0},
			"EKS Auto Mode, secondary IPs: 15 ENIs x (50 IPv4 - 1) + 2 = 737, capped at 110"},
		// 15 x 49 x 16 + 2 = 11762, capped at 110, not the calculator's 250.
		{"c5.18xlarge prefixes", c518XLarge(), autoMode("", false), autoWant{11762, 110, 15, 784, 113, 0, 7}, ""},
		// Bare metal reports no hypervisor: Nitro, prefixes work.
		{"c5.metal prefixes", c5Metal(), autoMode("", false), autoWant{11762, 110, 15, 784, 113, 0, 7}, ""},
		// Xen takes no prefixes: secondary IPs, 2 x 9 + 2 = 20; 18 addresses on 2 ENIs: 2 + 18.
		{"m4.large falls back", m4Large(), autoMode("", false), autoWant{20, 20, 2, 9, 20, 0, 0}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compute(c.net, Settings{AutoMode: c.auto})
			if err != nil {
				t.Fatal(err)
			}
			got := autoWant{r.AddressablePods, r.MaxPods, r.UsableENIs, r.PodIPsPerENI,
				r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods, r.PrefixesAtMaxPods}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v\nformula %s", got, c.want, r.Formula)
			}
			if c.formula != "" && r.Formula != c.formula {
				t.Errorf("formula %q, want %q", r.Formula, c.formula)
			}
			// EKS runs Karpenter and sets the kubelet's max pods: one figure, nothing to reconcile.
			if !r.Consistent || r.KarpenterAssumedPods != r.MaxPods || r.Reason != "" {
				t.Errorf("not consistent: %+v", r)
			}
			if r.ENILimitedPods != eniLimitedPods(DefaultCardENIs(c.net), c.net.IPv4PerENI) {
				t.Errorf("ENILimitedPods %d", r.ENILimitedPods)
			}
		})
	}
}

// Each Auto Mode rule against what the same type gives without it, so that dropping a rule
// changes an answer here.
func TestAutoModeRulesEachMatter(t *testing.T) {
	compute := func(n Network, s Settings) Result {
		t.Helper()
		r, err := Compute(n, s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The 110 cap holds above 30 vCPUs, where the VPC CNI's calculator allows 250.
	if cni, auto := compute(c518XLarge(), Settings{PrefixDelegation: true}), compute(c518XLarge(), Settings{AutoMode: autoMode("", false)}); cni.MaxPods != 250 || auto.MaxPods != 110 {
		t.Errorf("c5.18xlarge: VPC CNI prefixes %d, Auto Mode %d; want 250 and 110", cni.MaxPods, auto.MaxPods)
	}
	// The cap holds in secondary-IP mode too, where the VPC CNI has none.
	if cni, auto := compute(c518XLarge(), Settings{}), compute(c518XLarge(), Settings{AutoMode: autoMode("32", false)}); cni.MaxPods != 737 || auto.MaxPods != 110 {
		t.Errorf("c5.18xlarge secondary IPs: VPC CNI %d, Auto Mode %d; want 737 and 110", cni.MaxPods, auto.MaxPods)
	}
	// "32" is secondary IPs, anything else prefixes.
	if a, b := compute(m5Large(), Settings{AutoMode: autoMode("32", false)}), compute(m5Large(), Settings{AutoMode: autoMode("Auto", false)}); a.MaxPods != 29 || b.MaxPods != 110 {
		t.Errorf("m5.large: \"32\" %d, \"Auto\" %d; want 29 and 110", a.MaxPods, b.MaxPods)
	}
	// Pod subnets take the primary ENI out.
	if a, b := compute(m5Large(), Settings{AutoMode: autoMode("32", false)}), compute(m5Large(), Settings{AutoMode: autoMode("32", true)}); a.MaxPods != 29 || b.MaxPods != 20 || b.UsableENIs != 2 {
		t.Errorf("m5.large pod subnets: %d without, %d (%d ENIs) with; want 29, 20 (2)", a.MaxPods, b.MaxPods, b.UsableENIs)
	}
	// Prefix mode takes at least one /28 up front, the rest as the pods need.
	one := Network{InstanceType: "x9.large", VCPUs: 2, Hypervisor: HypervisorNitro, MaxENIs: 1, CardENIs: []int{1}, IPv4PerENI: 1}
	if r := compute(one, Settings{AutoMode: autoMode("", false)}); r.MaxPods != 2 || r.PrefixesAtMaxPods != 0 || r.VPCIPsAtMaxPods != 1 {
		t.Errorf("a type with no secondary slot: %+v", r)
	}
	for pods, want := range map[int]int{0: 1, 1: 1, 16: 1, 17: 2, 110: 7} {
		if got := autoModeAddresses(m5Large(), AutoMode{}, compute(m5Large(), Settings{AutoMode: autoMode("", false)}), pods).prefixes; got != want {
			t.Errorf("%d pods: %d /28s, want %d", pods, got, want)
		}
	}
}

func TestIPsAtPodsAutoMode(t *testing.T) {
	for _, a := range []*AutoMode{autoMode("", false), autoMode("32", false), autoMode("", true), autoMode("32", true)} {
		s := Settings{AutoMode: a}
		r, err := Compute(m5Large(), s)
		if err != nil {
			t.Fatal(err)
		}
		prevNode, prevPod := 0, 0
		for pods := 0; pods <= r.MaxPods+5; pods++ {
			node, pod, err := IPsAtPods(m5Large(), s, pods)
			if err != nil {
				t.Fatal(err)
			}
			if node < prevNode || pod < prevPod {
				t.Fatalf("%+v: %d pods hold %d+%d addresses, fewer than %d+%d with one pod less", *a, pods, node, pod, prevNode, prevPod)
			}
			prevNode, prevPod = node, pod
		}
		if prevNode != r.VPCIPsAtMaxPods || prevPod != r.PodSubnetIPsAtMaxPods {
			t.Errorf("%+v: a full node holds %d+%d, Compute says %d+%d", *a, prevNode, prevPod, r.VPCIPsAtMaxPods, r.PodSubnetIPsAtMaxPods)
		}
	}
	// An empty m5.large in prefix mode holds its node address and the /28 it takes up front.
	if node, pod, err := IPsAtPods(m5Large(), Settings{AutoMode: autoMode("", false)}, 0); node != 17 || pod != 0 || err != nil {
		t.Errorf("empty node: %d, %d, %v; want 17, 0", node, pod, err)
	}
	// With pod subnets, the /28 and its ENI's primary address are in the pod subnet.
	if node, pod, err := IPsAtPods(m5Large(), Settings{AutoMode: autoMode("", true)}, 0); node != 1 || pod != 17 || err != nil {
		t.Errorf("empty node, pod subnets: %d, %d, %v; want 1, 17", node, pod, err)
	}
}

// The VPC CNI's prefix delegation reports its /28s too: m5.large at 110 pods holds 7 (113
// addresses, as ipamd's replay gives), secondary IPs none.
func TestPrefixesAtMaxPodsVPCCNI(t *testing.T) {
	for _, c := range []struct {
		s        Settings
		prefixes int
	}{{Settings{PrefixDelegation: true}, 7}, {Settings{}, 0}, {Settings{PrefixDelegation: true, CustomNetworking: true}, 7}} {
		r, err := Compute(m5Large(), c.s)
		if err != nil || r.PrefixesAtMaxPods != c.prefixes {
			t.Errorf("%+v: %d prefixes (%v), want %d", c.s, r.PrefixesAtMaxPods, err, c.prefixes)
		}
	}
}

func TestAutoModeUnsupportedTypes(t *testing.T) {
	oneVCPU := Network{InstanceType: "c6g.medium", VCPUs: 1, Hypervisor: HypervisorNitro, MaxENIs: 2, CardENIs: []int{2}, IPv4PerENI: 4}
	small := m5Large()
	small.InstanceType = "t3.small"
	nano := m5Large()
	nano.InstanceType = "t3.nano"
	for _, n := range []Network{t3Micro(), small, nano, oneVCPU} {
		_, err := Compute(n, Settings{AutoMode: autoMode("", false)})
		if !errors.Is(err, ErrAutoModeUnsupported) {
			t.Errorf("%s: %v, want ErrAutoModeUnsupported", n.InstanceType, err)
			continue
		}
		fs := ComputeFindings(n.InstanceType, Settings{AutoMode: autoMode("", false)}, err)
		if len(fs) != 1 || fs[0].Path.String() != "instance_type" || !strings.Contains(fs[0].Message, "automode-learn-instances") {
			t.Errorf("%s: findings %q", n.InstanceType, findingText(fs))
		}
		// The same types are fine on a self-managed node class.
		if _, err := Compute(n, Settings{}); err != nil {
			t.Errorf("%s without Auto Mode: %v", n.InstanceType, err)
		}
	}
	d := Dropped{}
	_, err := Compute(t3Micro(), Settings{AutoMode: autoMode("", false)})
	d.Add("t3.micro", err)
	if len(d["not available in EKS Auto Mode"]) != 1 {
		t.Errorf("dropped %v", d)
	}
}

func TestAutoModeNoPodENI(t *testing.T) {
	one := Network{InstanceType: "x9.large", VCPUs: 2, Hypervisor: HypervisorNitro, MaxENIs: 1, CardENIs: []int{1}, IPv4PerENI: 10}
	s := Settings{AutoMode: autoMode("", true)}
	_, err := Compute(one, s)
	if !errors.Is(err, ErrNoPodENI) {
		t.Fatalf("one ENI with pod subnets: %v", err)
	}
	if fs := ComputeFindings(one.InstanceType, s, err); len(fs) != 1 || fs[0].Path.String() != "auto_mode.pod_subnets" {
		t.Errorf("findings %q", findingText(fs))
	}
	if _, err := Compute(one, Settings{AutoMode: autoMode("", false)}); err != nil {
		t.Errorf("without pod subnets: %v", err)
	}
}

// Every setting an Auto Mode NodeClass has no place for is refused on its own attribute (the
// data sources' names), and only with Auto Mode.
func TestAutoModeRefusesVPCCNISettings(t *testing.T) {
	cases := []struct {
		path string
		set  func(*Settings)
	}{
		{"ami_family", func(s *Settings) { s.AMIFamily = FamilyBottlerocket }},
		{"prefix_delegation", func(s *Settings) { s.PrefixDelegation = true }},
		{"custom_networking", func(s *Settings) { s.CustomNetworking = true }},
		{"security_groups_for_pods", func(s *Settings) { s.SecurityGroupsForPods = true }},
		{"branch_interfaces", func(s *Settings) { s.BranchInterfaces = ptr(0) }},
		{"warm_eni_target", func(s *Settings) { s.Warm.ENI = ptr(0) }},
		{"warm_ip_target", func(s *Settings) { s.Warm.IP = ptr(1) }},
		{"minimum_ip_target", func(s *Settings) { s.Warm.MinimumIP = ptr(1) }},
		{"warm_prefix_target", func(s *Settings) { s.Warm.Prefix = ptr(1) }},
		{"reserved_enis", func(s *Settings) { s.ReservedENIs = 1 }},
		{"network_interfaces", func(s *Settings) { s.NetworkInterfaces = []Interface{} }},
		{"kubelet_max_pods", func(s *Settings) { s.MaxPods = ptr(110) }},
		{"kubelet_max_pods", func(s *Settings) { s.MaxPodsExpression = "110" }},
		{"kubelet_pods_per_core", func(s *Settings) { s.PodsPerCore = ptr(10) }},
		{"auto_mode.ipv4_prefix_size", func(s *Settings) { s.AutoMode.IPv4PrefixSize = "28" }},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			s := Settings{AutoMode: autoMode("", false)}
			c.set(&s)
			fs := InputFindings(s)
			var paths []string
			for _, f := range fs {
				paths = append(paths, f.Path.String())
			}
			if !slices.Equal(paths, []string{c.path}) {
				t.Fatalf("paths %q, want [%s]: %q", paths, c.path, findingText(fs))
			}
			if c.path != "auto_mode.ipv4_prefix_size" && !strings.Contains(fs[0].Message, "does not apply with auto_mode") {
				t.Errorf("message %q", fs[0].Message)
			}
			if _, err := Compute(m5Large(), s); err == nil {
				t.Errorf("Compute took the setting")
			}
			// Without Auto Mode the setting is fine (the expression only wants an evaluator).
			s.AutoMode = nil
			if fs := InputFindings(s); len(fs) != 0 {
				t.Errorf("without auto_mode: %q", findingText(fs))
			}
		})
	}
	for _, size := range []string{"", AutoModePrefixAuto, AutoModePrefix32} {
		if fs := ValidateSettings(Settings{AutoMode: autoMode(size, true)}); len(fs) != 0 {
			t.Errorf("ipv4_prefix_size %q: %q", size, findingText(fs))
		}
	}
	// A message names the page it rests on.
	fs := ValidateSettings(Settings{AutoMode: autoMode("", false), PrefixDelegation: true})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html") {
		t.Errorf("findings %q", findingText(fs))
	}
}

func TestInputCarriesAutoMode(t *testing.T) {
	in := Input{AutoMode: autoMode("32", true)}
	if s := in.Settings(); s.AutoMode == nil || *s.AutoMode != *in.AutoMode {
		t.Errorf("Settings().AutoMode = %v", s.AutoMode)
	}
	if s := (Input{}).Settings(); s.AutoMode != nil {
		t.Errorf("no auto_mode gave %v", s.AutoMode)
	}
}

func TestAutoModeIPsAtPods(t *testing.T) {
	// m5.large, prefixes: 20 pods take 2 /28s on the primary ENI (1 + 32); past max pods the
	// count stays at Compute's 113 and 7.
	for _, c := range []struct{ pods, node, pod, prefixes int }{{20, 33, 0, 2}, {110, 113, 0, 7}, {500, 113, 0, 7}, {-1, 17, 0, 1}} {
		node, pod, prefixes, err := AutoModeIPsAtPods(m5Large(), AutoMode{}, c.pods)
		if err != nil || node != c.node || pod != c.pod || prefixes != c.prefixes {
			t.Errorf("%d pods: %d, %d, %d, %v; want %d, %d, %d", c.pods, node, pod, prefixes, err, c.node, c.pod, c.prefixes)
		}
	}
	if _, _, _, err := AutoModeIPsAtPods(t3Micro(), AutoMode{}, 2); !errors.Is(err, ErrAutoModeUnsupported) {
		t.Errorf("t3.micro: %v", err)
	}
}
