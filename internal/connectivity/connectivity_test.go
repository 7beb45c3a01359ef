package connectivity

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

const (
	sgA  = "sg-0aaa"
	sgB  = "sg-0bbb"
	sgCP = "sg-0c0c"
	sgX  = "sg-0xxx" // neither a node nor a control-plane group
)

func ingress(group, proto string, from, to int, other string) Rule {
	return rule(group, false, proto, from, to, other)
}

func egress(group, proto string, from, to int, other string) Rule {
	return rule(group, true, proto, from, to, other)
}

func rule(group string, eg bool, proto string, from, to int, other string) Rule {
	r := Rule{GroupID: group, Egress: eg, Protocol: proto, FromPort: from, ToPort: to}
	switch {
	case strings.HasPrefix(other, "sg-"):
		r.ReferencedGroupID = other
	case strings.HasPrefix(other, "pl-"):
		r.PrefixListID = other
	case strings.Contains(other, ":"):
		r.CIDRv6 = other
	default:
		r.CIDRv4 = other
	}
	return r
}

var defaultEgress = egress(sgA, "-1", -1, -1, "0.0.0.0/0")

func TestNodeToNode(t *testing.T) {
	subnets := []string{"10.1.0.0/24", "10.1.1.0/25"}
	cases := []struct {
		name    string
		groups  []string
		cidrs   []string
		rules   []Rule
		pass    bool
		missing string // substring of Missing when failing
		detail  string // substring of Detail
	}{
		{name: "self-reference all traffic", groups: []string{sgA}, rules: []Rule{ingress(sgA, "-1", -1, -1, sgA)},
			pass: true, detail: "sg-0aaa ingress all traffic from sg-0aaa (self)"},
		{name: "no rules", groups: []string{sgA}, rules: nil,
			missing: "tcp 1025-65535, tcp 53, udp 53"},
		{name: "only the default egress", groups: []string{sgA}, rules: []Rule{defaultEgress},
			missing: "tcp 1025-65535, tcp 53, udp 53"},
		{name: "egress self-reference is not ingress", groups: []string{sgA}, rules: []Rule{egress(sgA, "-1", -1, -1, sgA)},
			missing: "tcp 1025-65535"},
		{name: "rule on one group from another resolved group", groups: []string{sgA, sgB}, rules: []Rule{ingress(sgB, "-1", -1, -1, sgA)},
			pass: true, detail: "sg-0bbb ingress all traffic from sg-0aaa"},
		{name: "rule on a group that is not resolved", groups: []string{sgA}, rules: []Rule{ingress(sgX, "-1", -1, -1, sgA)},
			missing: "tcp 1025-65535"},
		{name: "source is the control plane, not a node", groups: []string{sgA}, rules: []Rule{ingress(sgA, "-1", -1, -1, sgCP)},
			missing: "tcp 1025-65535"},
		{name: "minimum set by name", groups: []string{sgA}, rules: []Rule{
			ingress(sgA, "tcp", 1025, 65535, sgA), ingress(sgA, "tcp", 53, 53, sgA), ingress(sgA, "udp", 53, 53, sgA)}, pass: true},
		{name: "minimum set by protocol number", groups: []string{sgA}, rules: []Rule{
			ingress(sgA, "6", 1025, 65535, sgA), ingress(sgA, "6", 53, 53, sgA), ingress(sgA, "17", 53, 53, sgA)}, pass: true},
		{name: "minimum set split over rules and groups", groups: []string{sgA, sgB}, rules: []Rule{
			ingress(sgA, "tcp", 1025, 30000, sgB), ingress(sgB, "tcp", 30001, 65535, sgA), ingress(sgA, "tcp", 0, 1024, sgA),
			ingress(sgB, "udp", 0, 65535, sgB)}, pass: true},
		{name: "all tcp and udp ports", groups: []string{sgA}, rules: []Rule{ingress(sgA, "tcp", 0, 65535, sgA), ingress(sgA, "udp", 0, 65535, sgA)}, pass: true},
		{name: "udp 53 missing", groups: []string{sgA}, rules: []Rule{ingress(sgA, "tcp", 0, 65535, sgA)},
			missing: "udp 53", detail: "Admitted so far: sg-0aaa ingress tcp 0-65535 from sg-0aaa (self)"},
		{name: "port gap in the ephemeral range", groups: []string{sgA}, rules: []Rule{
			ingress(sgA, "tcp", 1025, 30000, sgA), ingress(sgA, "tcp", 30002, 65535, sgA), ingress(sgA, "tcp", 53, 53, sgA), ingress(sgA, "udp", 53, 53, sgA)},
			missing: "tcp 30001"},
		{name: "icmp does not count", groups: []string{sgA}, rules: []Rule{ingress(sgA, "icmp", -1, -1, sgA)},
			missing: "tcp 1025-65535, tcp 53, udp 53"},
		{name: "other protocol number does not count", groups: []string{sgA}, rules: []Rule{ingress(sgA, "47", -1, -1, sgA)},
			missing: "tcp 1025-65535"},
		{name: "0.0.0.0/0 admits every node", groups: []string{sgA}, rules: []Rule{ingress(sgA, "-1", -1, -1, "0.0.0.0/0")}, pass: true},
		{name: "VPC CIDR without known subnets does not count", groups: []string{sgA}, rules: []Rule{ingress(sgA, "-1", -1, -1, "10.1.0.0/16")},
			missing: "tcp 1025-65535"},
		{name: "VPC CIDR containing every subnet", groups: []string{sgA}, cidrs: subnets, rules: []Rule{ingress(sgA, "-1", -1, -1, "10.1.0.0/16")}, pass: true},
		{name: "one CIDR rule per subnet", groups: []string{sgA}, cidrs: subnets, rules: []Rule{
			ingress(sgA, "-1", -1, -1, "10.1.0.0/24"), ingress(sgA, "-1", -1, -1, "10.1.1.0/24")}, pass: true},
		{name: "CIDR covering one subnet only", groups: []string{sgA}, cidrs: subnets, rules: []Rule{ingress(sgA, "-1", -1, -1, "10.1.0.0/24")},
			missing: "ingress tcp 1025-65535, tcp 53, udp 53 from the nodes in 10.1.1.0/25"},
		{name: "CIDR and self-reference combine", groups: []string{sgA}, cidrs: subnets, rules: []Rule{
			ingress(sgA, "tcp", 0, 65535, "10.1.0.0/16"), ingress(sgA, "udp", 53, 53, sgA)}, pass: true},
		{name: "a subnet inside the rule but wider than it", groups: []string{sgA}, cidrs: []string{"10.1.0.0/23"}, rules: []Rule{ingress(sgA, "-1", -1, -1, "10.1.0.0/24")},
			missing: "tcp 1025-65535"},
		{name: "IPv6 any does not admit IPv4 nodes", groups: []string{sgA}, cidrs: subnets, rules: []Rule{ingress(sgA, "-1", -1, -1, "::/0")},
			missing: "tcp 1025-65535"},
		{name: "prefix lists are not evaluated", groups: []string{sgA}, rules: []Rule{ingress(sgA, "-1", -1, -1, "pl-0123")},
			missing: "tcp 1025-65535", detail: "Rules with prefix lists (pl-0123) were not evaluated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := Check(Input{Nodes: Peer{Groups: c.groups, CIDRs: c.cidrs}, Rules: c.rules})
			if len(rep.Findings) != 2 || rep.Findings[1].Check != CheckNodesEgress {
				t.Fatalf("want the node-to-node and egress checks without control-plane groups, got %+v", rep.Findings)
			}
			f := rep.Findings[0]
			if f.Check != CheckNodeToNode || f.Passed != c.pass {
				t.Fatalf("passed = %v, want %v: %+v", f.Passed, c.pass, f)
			}
			if !strings.Contains(f.Missing, c.missing) || (c.pass && f.Missing != "") {
				t.Errorf("missing = %q, want %q", f.Missing, c.missing)
			}
			if !strings.Contains(f.Detail, c.detail) {
				t.Errorf("detail = %q, want it to contain %q", f.Detail, c.detail)
			}
			if c.pass && f.Fix != "" || !c.pass && !strings.Contains(f.Fix, "self-reference") {
				t.Errorf("fix = %q", f.Fix)
			}
			if f.GroupID == "" {
				t.Errorf("no group id: %+v", f)
			}
		})
	}
}

func TestNodeToNodeGroupIDs(t *testing.T) {
	// Failing: the first node group, where the self-reference would go; it is named in all texts.
	f := Check(Input{Nodes: Peer{Groups: []string{sgB, sgA, sgA}}}).Findings[0]
	if f.GroupID != sgA || !strings.Contains(f.Fix, "to sg-0aaa") || !strings.Contains(f.Fix, "source sg-0aaa") {
		t.Errorf("failing finding: %+v", f)
	}
	if !strings.Contains(f.Required, "from sg-0aaa, sg-0bbb") || !strings.Contains(f.Detail, "(sg-0aaa, sg-0bbb)") {
		t.Errorf("failing finding does not list the sorted node groups: %+v", f)
	}
	if want := "ingress tcp 1025-65535, tcp 53, udp 53 from sg-0aaa, sg-0bbb"; f.Missing != want {
		t.Errorf("missing = %q, want %q", f.Missing, want)
	}
	// Passing: the group that holds the admitting rule.
	f = Check(Input{Nodes: Peer{Groups: []string{sgA, sgB}}, Rules: []Rule{ingress(sgB, "-1", -1, -1, sgB)}}).Findings[0]
	if !f.Passed || f.GroupID != sgB {
		t.Errorf("passing finding: %+v", f)
	}
}

func TestControlPlane(t *testing.T) {
	nodes := Peer{Groups: []string{sgA, sgB}, CIDRs: []string{"10.1.0.0/24"}}
	cp := Peer{Groups: []string{sgCP}}
	self := ingress(sgA, "-1", -1, -1, sgA)
	cases := []struct {
		name                 string
		rules                []Rule
		pass443, pass10250   bool
		passEgress           bool
		wantMissing, wantFix []string
	}{
		{name: "nothing but the default egress", rules: []Rule{self, defaultEgress}, passEgress: true,
			wantMissing: []string{"tcp 443 from sg-0c0c", "tcp 10250 from sg-0c0c"},
			wantFix:     []string{"add an ingress rule to sg-0aaa allowing tcp 443 from source sg-0c0c", "tcp 10250 from source sg-0c0c"}},
		{name: "443 only", rules: []Rule{self, defaultEgress, ingress(sgB, "tcp", 443, 443, sgCP)}, pass443: true, passEgress: true,
			wantMissing: []string{"tcp 10250 from sg-0c0c"}},
		{name: "both ports as numbers on different groups", rules: []Rule{ingress(sgB, "6", 443, 443, sgCP), ingress(sgA, "6", 10250, 10250, sgCP), defaultEgress},
			pass443: true, pass10250: true, passEgress: true},
		{name: "a port range", rules: []Rule{ingress(sgA, "tcp", 0, 65535, sgCP), defaultEgress}, pass443: true, pass10250: true, passEgress: true},
		{name: "all traffic", rules: []Rule{ingress(sgA, "-1", -1, -1, sgCP), defaultEgress}, pass443: true, pass10250: true, passEgress: true},
		{name: "udp is not tcp", rules: []Rule{ingress(sgA, "udp", 0, 65535, sgCP), defaultEgress}, passEgress: true},
		{name: "a range that misses 10250", rules: []Rule{ingress(sgA, "tcp", 443, 10249, sgCP), defaultEgress}, pass443: true, passEgress: true,
			wantMissing: []string{"tcp 10250 from sg-0c0c"}},
		{name: "from a node group, not the control plane", rules: []Rule{ingress(sgA, "tcp", 0, 65535, sgB), defaultEgress}, passEgress: true},
		{name: "0.0.0.0/0 admits the control plane", rules: []Rule{ingress(sgA, "tcp", 0, 65535, "0.0.0.0/0"), defaultEgress},
			pass443: true, pass10250: true, passEgress: true},
		{name: "the VPC CIDR does not (control-plane addresses are unknown)", rules: []Rule{ingress(sgA, "tcp", 0, 65535, "10.0.0.0/8"), defaultEgress},
			passEgress: true},
		{name: "rule on the control-plane group is not on the nodes", rules: []Rule{ingress(sgCP, "-1", -1, -1, sgCP), defaultEgress}, passEgress: true},
		{name: "no egress at all", rules: []Rule{ingress(sgA, "-1", -1, -1, sgCP)}, pass443: true, pass10250: true,
			wantMissing: []string{"tcp 443 to sg-0c0c"}, wantFix: []string{"add an egress rule to sg-0aaa allowing tcp 443 to destination sg-0c0c"}},
		{name: "egress to the control-plane group on 443", rules: []Rule{egress(sgB, "tcp", 443, 443, sgCP)}, passEgress: true},
		{name: "egress to the control plane on another port", rules: []Rule{egress(sgB, "tcp", 80, 80, sgCP)}},
		{name: "egress to a private CIDR", rules: []Rule{egress(sgA, "-1", -1, -1, "10.0.0.0/8")}},
		{name: "egress to IPv6 any", rules: []Rule{egress(sgA, "-1", -1, -1, "::/0")}},
		{name: "egress on a group that is not a node group", rules: []Rule{egress(sgX, "-1", -1, -1, "0.0.0.0/0")}},
		{name: "ingress does not open egress", rules: []Rule{ingress(sgA, "tcp", 443, 443, "0.0.0.0/0")}, pass443: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := Check(Input{Nodes: nodes, ControlPlane: cp, Rules: c.rules})
			if len(rep.Findings) != 4 {
				t.Fatalf("want 4 findings, got %+v", rep.Findings)
			}
			got := []bool{rep.Findings[1].Passed, rep.Findings[2].Passed, rep.Findings[3].Passed}
			want := []bool{c.pass443, c.pass10250, c.passEgress}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("443/10250/egress passed = %v, want %v: %+v", got, want, rep.Findings[1:])
			}
			var missing, fixes []string
			for _, f := range rep.Failed() {
				missing = append(missing, f.Missing)
				fixes = append(fixes, f.Fix)
			}
			for _, w := range c.wantMissing {
				if !containsSub(missing, w) {
					t.Errorf("missing %q not in %q", w, missing)
				}
			}
			for _, w := range c.wantFix {
				if !containsSub(fixes, w) {
					t.Errorf("fix %q not in %q", w, fixes)
				}
			}
		})
	}
}

func containsSub(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func TestReportOrderAndNames(t *testing.T) {
	rep := Check(Input{Nodes: Peer{Groups: []string{sgA}}, ControlPlane: Peer{Groups: []string{sgCP}}})
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Check+": "+f.Required)
	}
	want := []string{
		"node_to_node: ingress all traffic (or at least tcp 1025-65535, tcp 53, udp 53) from sg-0aaa",
		"control_plane_to_nodes: ingress tcp 443 from sg-0c0c",
		"control_plane_to_nodes: ingress tcp 10250 from sg-0c0c",
		"nodes_to_control_plane: egress tcp 443 to sg-0c0c",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(rep.Failed()) != 4 {
		t.Errorf("every check should fail with no rules: %+v", rep.Failed())
	}
	for _, f := range rep.Failed() {
		if f.GroupID != sgA || f.Missing == "" || f.Fix == "" || !strings.Contains(f.Detail, sgA) {
			t.Errorf("incomplete finding: %+v", f)
		}
	}
	if kubelet := rep.Findings[2]; !strings.Contains(kubelet.Detail, "kubelet") {
		t.Errorf("the 10250 finding should say what breaks: %q", kubelet.Detail)
	}
}

func TestNoGroups(t *testing.T) {
	if rep := Check(Input{ControlPlane: Peer{Groups: []string{sgCP}}}); len(rep.Findings) != 0 {
		t.Errorf("no node groups: want no findings, got %+v", rep.Findings)
	}
}

// The EKS cluster security group is often both a node group and the control-plane group: its
// self-referencing all-traffic rule then satisfies every check.
func TestClusterSecurityGroupOnNodes(t *testing.T) {
	rep := Check(Input{
		Nodes:        Peer{Groups: []string{sgA, sgCP}},
		ControlPlane: Peer{Groups: []string{sgCP}},
		Rules:        []Rule{ingress(sgCP, "-1", -1, -1, sgCP), egress(sgCP, "-1", -1, -1, "0.0.0.0/0")},
	})
	if f := rep.Failed(); len(f) != 0 {
		t.Errorf("want every check to pass, failed: %+v", f)
	}
}

func TestDeterministic(t *testing.T) {
	rules := []Rule{
		ingress(sgA, "tcp", 1025, 65535, sgA), ingress(sgB, "tcp", 53, 53, sgB), ingress(sgA, "udp", 53, 53, "10.1.0.0/16"),
		ingress(sgB, "tcp", 443, 443, sgCP), ingress(sgA, "tcp", 443, 443, sgCP), egress(sgA, "-1", -1, -1, "0.0.0.0/0"),
		egress(sgB, "-1", -1, -1, "0.0.0.0/0"), ingress(sgA, "-1", -1, -1, "pl-1"),
	}
	input := func(rs []Rule) Input {
		return Input{Nodes: Peer{Groups: []string{sgB, sgA}, CIDRs: []string{"10.1.2.0/24", "10.1.1.0/24"}},
			ControlPlane: Peer{Groups: []string{sgCP}}, Rules: rs}
	}
	want := Check(input(rules))
	for i := 0; i < 20; i++ {
		shuffled := append([]Rule(nil), rules...)
		rand.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if got := Check(input(shuffled)); !reflect.DeepEqual(got, want) {
			t.Fatalf("report depends on rule order:\n%+v\n%+v", got, want)
		}
	}
	if !want.Findings[0].Passed || !strings.Contains(want.Findings[0].Detail, "sg-0aaa ingress udp 53 from 10.1.0.0/16") {
		t.Errorf("node to node: %+v", want.Findings[0])
	}
}

func TestGaps(t *testing.T) {
	w := span{1025, 65535}
	cases := []struct {
		have []span
		want []span
	}{
		{nil, []span{w}},
		{[]span{{0, 65535}}, nil},
		{[]span{{1025, 65535}}, nil},
		{[]span{{1024, 2000}, {2001, 70000}}, nil},
		{[]span{{1025, 2000}, {2002, 65535}}, []span{{2001, 2001}}},
		{[]span{{3000, 4000}, {1000, 1500}}, []span{{1501, 2999}, {4001, 65535}}},
		{[]span{{1000, 5000}, {2000, 3000}}, []span{{5001, 65535}}}, // nested spans
		{[]span{{0, 100}, {70000, 80000}}, []span{w}},               // outside the wanted range
		{[]span{{65535, 65535}}, []span{{1025, 65534}}},
	}
	for _, c := range cases {
		if got := gaps(w, append([]span(nil), c.have...)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("gaps(%v, %v) = %v, want %v", w, c.have, got, c.want)
		}
	}
}

func TestParseProtocol(t *testing.T) {
	cases := map[string]int{"-1": -1, "all": -1, "tcp": 6, "TCP": 6, "6": 6, "udp": 17, "17": 17, "icmp": 1, "1": 1, "icmpv6": 58, "58": 58, "47": 47}
	for in, want := range cases {
		if got, ok := ParseProtocol(in); !ok || got != want {
			t.Errorf("ParseProtocol(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "gre", "256", "-2"} {
		if _, ok := ParseProtocol(bad); ok {
			t.Errorf("ParseProtocol(%q) should fail", bad)
		}
	}
	// An unknown protocol string never admits anything.
	f := Check(Input{Nodes: Peer{Groups: []string{sgA}}, Rules: []Rule{ingress(sgA, "bogus", -1, -1, sgA)}}).Findings[0]
	if f.Passed {
		t.Errorf("unknown protocol admitted traffic: %+v", f)
	}
}

func TestRuleString(t *testing.T) {
	cases := map[string]Rule{
		"sg-0aaa ingress all traffic from sg-0aaa (self)": ingress(sgA, "-1", -1, -1, sgA),
		"sg-0aaa ingress tcp 443 from sg-0c0c":            ingress(sgA, "6", 443, 443, sgCP),
		"sg-0aaa ingress udp 1025-65535 from 10.0.0.0/16": ingress(sgA, "udp", 1025, 65535, "10.0.0.0/16"),
		"sg-0aaa egress all traffic to 0.0.0.0/0":         defaultEgress,
		"sg-0aaa egress icmpv6 to ::/0":                   egress(sgA, "icmpv6", -1, -1, "::/0"),
		"sg-0aaa ingress protocol 47 from pl-9":           ingress(sgA, "47", -1, -1, "pl-9"),
	}
	for want, r := range cases {
		if got := r.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// Subnets that miss different traffic are listed apart, in address order.
func TestNodeToNodeMissingPerSubnet(t *testing.T) {
	f := Check(Input{
		Nodes: Peer{Groups: []string{sgA}, CIDRs: []string{"10.1.2.0/24", "10.1.1.0/25", "10.1.0.0/24"}},
		Rules: []Rule{
			ingress(sgA, "tcp", 0, 1024, sgA),
			ingress(sgA, "-1", -1, -1, "10.1.0.0/24"),
			ingress(sgA, "udp", 53, 53, "10.1.2.0/24"),
		},
	}).Findings[0]
	want := "ingress tcp 1025-65535, udp 53 from the nodes in 10.1.1.0/25; ingress tcp 1025-65535 from the nodes in 10.1.2.0/24"
	if f.Passed || f.Missing != want {
		t.Errorf("missing = %q, want %q", f.Missing, want)
	}
	if !strings.Contains(f.Detail, "closed: tcp 1025-65535, udp 53 from the nodes in 10.1.1.0/25; tcp 1025-65535 from the nodes in 10.1.2.0/24. ") {
		t.Errorf("detail = %q", f.Detail)
	}
}

// Without control-plane groups the nodes need a way out on tcp 443 to some destination: any
// egress rule that covers it will do (0.0.0.0/0, the VPC's CIDR towards VPC endpoints, a group).
func TestNodesEgress(t *testing.T) {
	egress := func(proto string, from, to int, dst string) Rule {
		r := Rule{GroupID: sgA, Egress: true, Protocol: proto, FromPort: from, ToPort: to}
		switch {
		case strings.HasPrefix(dst, "sg-"):
			r.ReferencedGroupID = dst
		case strings.HasPrefix(dst, "pl-"):
			r.PrefixListID = dst
		default:
			r.CIDRv4 = dst
		}
		return r
	}
	for _, c := range []struct {
		name  string
		rules []Rule
		pass  bool
	}{
		{"the default egress", []Rule{egress("-1", -1, -1, "0.0.0.0/0")}, true},
		{"tcp 443 to the VPC (VPC endpoints)", []Rule{egress("tcp", 443, 443, "10.0.0.0/16")}, true},
		{"tcp 443 to a prefix list", []Rule{egress("tcp", 443, 443, "pl-0123")}, true},
		{"egress removed", nil, false},
		{"only udp 53 out", []Rule{egress("udp", 53, 53, "0.0.0.0/0")}, false},
		{"an ingress rule is not a way out", []Rule{ingress(sgA, "-1", -1, -1, "0.0.0.0/0")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := Check(Input{Nodes: Peer{Groups: []string{sgA}}, Rules: c.rules}).Findings[1]
			if f.Check != CheckNodesEgress || f.Passed != c.pass {
				t.Fatalf("%+v, want passed %v", f, c.pass)
			}
			if !c.pass && (f.GroupID != sgA || !strings.Contains(f.Fix, "egress rule to "+sgA+" allowing tcp 443") ||
				!strings.Contains(f.Detail, "nodes would never join")) {
				t.Errorf("incomplete finding: %+v", f)
			}
		})
	}
	// With control-plane groups nodes_to_control_plane checks the way out instead.
	rep := Check(Input{Nodes: Peer{Groups: []string{sgA}}, ControlPlane: Peer{Groups: []string{sgCP}}})
	for _, f := range rep.Findings {
		if f.Check == CheckNodesEgress {
			t.Errorf("nodes_egress ran beside nodes_to_control_plane: %+v", f)
		}
	}
}
