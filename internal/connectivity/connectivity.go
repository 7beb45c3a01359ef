// Package connectivity checks security-group rules against the traffic a Kubernetes node needs:
// node to node, control plane to nodes, and nodes to the control plane. It is pure rule
// evaluation (no Terraform, no SDK): the caller fetches the rules and decides what a failed check
// means (a warning, an error, or nothing).
//
// The model follows how Karpenter launches nodes: every node carries every resolved security
// group, so a rule on any node group admits traffic to every node, and a rule that references any
// node group admits traffic from every node. Control-plane groups are treated the same way (the
// EKS control plane's interfaces carry all of them).
//
// Only IPv4 is evaluated. A CIDR source or destination admits a peer when it contains every
// address range the peer is known to use: for nodes, the subnets they launch into (when the
// caller passes them); for the control plane, whose addresses are unknown, only 0.0.0.0/0.
// IPv6 ranges and prefix lists never admit a peer (the contents of a prefix list are not fetched);
// a failed check says when prefix-list rules were skipped.
package connectivity

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// Check names, as they appear in a report.
const (
	CheckNodeToNode          = "node_to_node"
	CheckControlPlaneToNodes = "control_plane_to_nodes"
	CheckNodesToControlPlane = "nodes_to_control_plane"
	// CheckNodesEgress runs without control-plane groups, where nodes_to_control_plane cannot.
	CheckNodesEgress = "nodes_egress"
)

// Ports the control-plane checks require (TCP).
const (
	PortHTTPS   = 443
	PortKubelet = 10250
)

// Rule is one security-group rule, as DescribeSecurityGroupRules lists it (one peer each). Exactly one of
// CIDRv4, CIDRv6, ReferencedGroupID and PrefixListID is the other end of the rule (its source
// for ingress, its destination for egress).
type Rule struct {
	GroupID string // the group that holds the rule
	Egress  bool
	// Protocol is "-1" (all traffic), a name ("tcp", "udp", "icmp", "icmpv6") or an IP protocol
	// number ("6", "17", ...); EC2 returns either form.
	Protocol string
	// FromPort and ToPort are the inclusive port range for tcp and udp (the ICMP type and code
	// for icmp); -1 means all.
	FromPort, ToPort  int
	CIDRv4            string
	CIDRv6            string
	ReferencedGroupID string
	PrefixListID      string
}

// Peer is one end of the traffic: the groups its interfaces carry (all of them) and, when known,
// the IPv4 ranges its addresses come from.
type Peer struct {
	Groups []string
	CIDRs  []string
}

// Input is what Check evaluates.
type Input struct {
	// Nodes are the node class's resolved security groups and (optionally) the CIDRs of its
	// subnets. Without CIDRs, only group references and 0.0.0.0/0 admit node traffic.
	Nodes Peer
	// ControlPlane are the cluster's control-plane groups; with none, the control-plane checks
	// are not run.
	ControlPlane Peer
	// Rules are the rules of (at least) the node groups; rules of other groups are ignored.
	Rules []Rule
}

// Finding is the outcome of one check.
type Finding struct {
	Check string
	// GroupID is the group that holds the admitting rule (passed), or the group the missing rule
	// belongs on (failed).
	GroupID string
	Passed  bool
	// Required is the rule the check looks for, e.g. "ingress tcp 10250 from sg-0cp".
	Required string
	// Missing is the part of Required that no rule admits ("" when passed), e.g.
	// "ingress udp 53 from sg-0a".
	Missing string
	// Detail says which rules admit the traffic, or what is missing and what that breaks.
	Detail string
	// Fix is the rule to add ("" when passed).
	Fix string
}

// Report is every check that ran, in a fixed order: node to node, control plane to nodes (443,
// then 10250), nodes to control plane.
type Report struct {
	Findings []Finding
}

// Failed returns the findings that did not pass.
func (r Report) Failed() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if !f.Passed {
			out = append(out, f)
		}
	}
	return out
}

// Check runs every check that applies to the input.
func Check(in Input) Report {
	nodes := newPeer(in.Nodes)
	var rep Report
	if len(nodes.groups) == 0 {
		return rep
	}
	rep.Findings = append(rep.Findings, checkNodeToNode(nodes, in.Rules))
	cp := newPeer(in.ControlPlane)
	if len(cp.groups) == 0 {
		// The control plane's addresses are unknown: the nodes need a way out on tcp 443 at all.
		rep.Findings = append(rep.Findings, checkEgress(nodes, in.Rules))
		return rep
	}
	for _, port := range []int{PortHTTPS, PortKubelet} {
		rep.Findings = append(rep.Findings, checkPort(CheckControlPlaneToNodes, nodes, cp, false, port, in.Rules))
	}
	rep.Findings = append(rep.Findings, checkPort(CheckNodesToControlPlane, nodes, cp, true, PortHTTPS, in.Rules))
	return rep
}

// peer is a Peer prepared for matching.
type peer struct {
	groups   []string // sorted, unique
	set      map[string]bool
	prefixes []netip.Prefix // valid IPv4 CIDRs, masked; empty: unknown
}

func newPeer(p Peer) peer {
	out := peer{set: map[string]bool{}}
	for _, g := range p.Groups {
		if g != "" && !out.set[g] {
			out.set[g] = true
			out.groups = append(out.groups, g)
		}
	}
	sort.Strings(out.groups)
	for _, c := range p.CIDRs {
		if pfx, err := netip.ParsePrefix(c); err == nil && pfx.Addr().Is4() {
			out.prefixes = append(out.prefixes, pfx.Masked())
		}
	}
	sort.Slice(out.prefixes, func(i, j int) bool {
		return out.prefixes[i].Addr().Less(out.prefixes[j].Addr()) ||
			out.prefixes[i].Addr() == out.prefixes[j].Addr() && out.prefixes[i].Bits() < out.prefixes[j].Bits()
	})
	return out
}

// ranges are the address ranges evaluated one by one; an invalid prefix stands for "unknown".
func (p peer) ranges() []netip.Prefix {
	if len(p.prefixes) == 0 {
		return []netip.Prefix{{}}
	}
	return p.prefixes
}

// admits reports whether the other end of r (source or destination) admits traffic of p coming
// from (or going to) the address range rng.
func admits(r Rule, p peer, rng netip.Prefix) bool {
	if r.ReferencedGroupID != "" {
		return p.set[r.ReferencedGroupID]
	}
	if r.CIDRv4 == "" {
		return false // IPv6 ranges and prefix lists are not evaluated
	}
	c, err := netip.ParsePrefix(r.CIDRv4)
	if err != nil || !c.Addr().Is4() {
		return false
	}
	if c.Bits() == 0 {
		return true
	}
	return rng.IsValid() && c.Bits() <= rng.Bits() && c.Contains(rng.Addr())
}

// Protocol numbers.
const (
	protoAll    = -1
	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	protoICMPv6 = 58
)

// ParseProtocol maps EC2's protocol forms to an IP protocol number, -1 for all traffic.
func ParseProtocol(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "-1", "all":
		return protoAll, true
	case "tcp":
		return protoTCP, true
	case "udp":
		return protoUDP, true
	case "icmp":
		return protoICMP, true
	case "icmpv6":
		return protoICMPv6, true
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < -1 || n > 255 {
		return 0, false
	}
	return n, true
}

func protoName(n int) string {
	switch n {
	case protoAll:
		return "all traffic"
	case protoTCP:
		return "tcp"
	case protoUDP:
		return "udp"
	case protoICMP:
		return "icmp"
	case protoICMPv6:
		return "icmpv6"
	}
	return "protocol " + strconv.Itoa(n)
}

// span is an inclusive port range.
type span struct{ lo, hi int }

func (s span) String() string {
	if s.lo == s.hi {
		return strconv.Itoa(s.lo)
	}
	return fmt.Sprintf("%d-%d", s.lo, s.hi)
}

// need is traffic a check requires: a protocol and a port range.
type need struct {
	proto int
	ports span
}

func (n need) String() string { return protoName(n.proto) + " " + n.ports.String() }

// ports returns the rule's port range for protocol proto: ok is false when the rule does not
// carry that protocol. All traffic, and protocols without ports, cover every port.
func (r Rule) ports(proto int) (span, bool) {
	p, ok := ParseProtocol(r.Protocol)
	if !ok {
		return span{}, false
	}
	if p == protoAll {
		return span{0, 65535}, true
	}
	if p != proto {
		return span{}, false
	}
	if (p != protoTCP && p != protoUDP) || r.FromPort < 0 || r.ToPort < 0 {
		return span{0, 65535}, true
	}
	return span{r.FromPort, r.ToPort}, true
}

func (r Rule) allTraffic() bool {
	p, ok := ParseProtocol(r.Protocol)
	return ok && p == protoAll
}

// gaps returns the parts of want not covered by the spans.
func gaps(want span, have []span) []span {
	sort.Slice(have, func(i, j int) bool { return have[i].lo < have[j].lo })
	var out []span
	next := want.lo
	for _, h := range have {
		if h.hi < next || h.lo > want.hi {
			continue
		}
		if h.lo > next {
			out = append(out, span{next, h.lo - 1})
		}
		if h.hi+1 > next {
			next = h.hi + 1
		}
		if next > want.hi {
			break
		}
	}
	if next <= want.hi {
		out = append(out, span{next, want.hi})
	}
	return out
}

// missing returns the parts of the needs the rules do not cover, in the needs' order.
func missing(needs []need, rules []Rule) []need {
	var out []need
	for _, n := range needs {
		var have []span
		for _, r := range rules {
			if s, ok := r.ports(n.proto); ok {
				have = append(have, s)
			}
		}
		for _, g := range gaps(n.ports, have) {
			out = append(out, need{proto: n.proto, ports: g})
		}
	}
	return out
}

func joinNeeds(ns []need) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = n.String()
	}
	return strings.Join(parts, ", ")
}

// overlaps reports whether the rule carries any of the needed traffic.
func (r Rule) overlaps(needs []need) bool {
	for _, n := range needs {
		if s, ok := r.ports(n.proto); ok && s.lo <= n.ports.hi && s.hi >= n.ports.lo {
			return true
		}
	}
	return false
}

// String describes a rule, e.g. "sg-1 ingress tcp 443 from sg-2".
func (r Rule) String() string {
	dir, prep := "ingress", "from"
	if r.Egress {
		dir, prep = "egress", "to"
	}
	traffic := r.Protocol
	if p, ok := ParseProtocol(r.Protocol); ok {
		traffic = protoName(p)
		if (p == protoTCP || p == protoUDP) && r.FromPort >= 0 && r.ToPort >= 0 {
			traffic += " " + span{r.FromPort, r.ToPort}.String()
		}
	}
	other := r.ReferencedGroupID
	switch {
	case other != "" && other == r.GroupID:
		other += " (self)"
	case other != "":
	case r.CIDRv4 != "":
		other = r.CIDRv4
	case r.CIDRv6 != "":
		other = r.CIDRv6
	default:
		other = r.PrefixListID
	}
	return fmt.Sprintf("%s %s %s %s %s", r.GroupID, dir, traffic, prep, other)
}

// candidates are the rules of the node groups in one direction.
func candidates(nodes peer, rules []Rule, egress bool) []Rule {
	var out []Rule
	for _, r := range rules {
		if r.Egress == egress && nodes.set[r.GroupID] {
			out = append(out, r)
		}
	}
	return out
}

// describe lists rules as text, sorted and without duplicates.
func describe(rules []Rule) (string, string) {
	seen := map[string]bool{}
	var lines []string
	byLine := map[string]string{}
	for _, r := range rules {
		s := r.String()
		if !seen[s] {
			seen[s] = true
			lines = append(lines, s)
			byLine[s] = r.GroupID
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "", ""
	}
	return strings.Join(lines, "; "), byLine[lines[0]]
}

// skippedPrefixLists notes prefix-list rules that might have admitted the traffic.
func skippedPrefixLists(rules []Rule) string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range rules {
		if r.PrefixListID != "" && !seen[r.PrefixListID] {
			seen[r.PrefixListID] = true
			ids = append(ids, r.PrefixListID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	return fmt.Sprintf(" Rules with prefix lists (%s) were not evaluated.", strings.Join(ids, ", "))
}

// nodeToNodeNeeds is the minimum node-to-node traffic when not all traffic is admitted:
// ephemeral and service ports, and DNS.
var nodeToNodeNeeds = []need{
	{protoTCP, span{1025, 65535}},
	{protoTCP, span{53, 53}},
	{protoUDP, span{53, 53}},
}

func checkNodeToNode(nodes peer, rules []Rule) Finding {
	f := Finding{
		Check: CheckNodeToNode,
		Required: fmt.Sprintf("ingress all traffic (or at least %s) from %s",
			joinNeeds(nodeToNodeNeeds), strings.Join(nodes.groups, ", ")),
	}
	ingress := candidates(nodes, rules, false)
	var used []Rule
	type rangeGap struct {
		rng  netip.Prefix
		miss []need
	}
	var gapsByRange []rangeGap
	for _, rng := range nodes.ranges() {
		var admitting []Rule
		for _, r := range ingress {
			if admits(r, nodes, rng) && r.overlaps(nodeToNodeNeeds) {
				admitting = append(admitting, r)
			}
		}
		used = append(used, admitting...)
		all := false
		for _, r := range admitting {
			all = all || r.allTraffic()
		}
		if all {
			continue
		}
		if miss := missing(nodeToNodeNeeds, admitting); len(miss) > 0 {
			gapsByRange = append(gapsByRange, rangeGap{rng, miss})
		}
	}
	if len(gapsByRange) == 0 {
		f.Passed = true
		f.Detail, f.GroupID = describe(used)
		f.Detail = "admitted by " + f.Detail
		return f
	}

	self := nodes.groups[0]
	f.GroupID = self
	// Group the ranges by what they miss, so the common case (nothing admits any node) is one line.
	var order []string
	byMiss := map[string][]string{}
	for _, g := range gapsByRange {
		k := joinNeeds(g.miss)
		if _, ok := byMiss[k]; !ok {
			order = append(order, k)
		}
		if g.rng.IsValid() {
			byMiss[k] = append(byMiss[k], g.rng.String())
		}
	}
	groups := strings.Join(nodes.groups, ", ")
	var parts, traffic []string
	for _, k := range order {
		if len(byMiss[k]) == 0 || len(gapsByRange) == len(nodes.ranges()) && len(order) == 1 {
			parts = append(parts, fmt.Sprintf("ingress %s from %s", k, groups))
			traffic = append(traffic, k)
		} else {
			parts = append(parts, fmt.Sprintf("ingress %s from the nodes in %s", k, strings.Join(byMiss[k], ", ")))
			traffic = append(traffic, fmt.Sprintf("%s from the nodes in %s", k, strings.Join(byMiss[k], ", ")))
		}
	}
	f.Missing = strings.Join(parts, "; ")
	f.Fix = fmt.Sprintf("add an ingress rule to %s allowing all traffic (protocol -1) from source %s (a self-reference)", self, self)
	admitted := ""
	if d, _ := describe(used); d != "" {
		admitted = " Admitted so far: " + d + "."
	}
	f.Detail = fmt.Sprintf("the node security groups (%s) do not admit the nodes' own traffic (all traffic, or at least %s); "+
		"closed: %s. Pods, kubelet and DNS traffic between nodes would be dropped.%s%s",
		groups, joinNeeds(nodeToNodeNeeds), strings.Join(traffic, "; "), admitted, skippedPrefixLists(ingress))
	return f
}

// checkEgress checks that the node groups let the nodes out on tcp 443 to some destination: the
// API server, ECR and STS are reached that way (through the internet, a NAT gateway or VPC
// endpoints), and a node without it never joins. Any destination counts, since the control
// plane's and the endpoints' addresses are unknown without control-plane groups.
func checkEgress(nodes peer, rules []Rule) Finding {
	needs := []need{{protoTCP, span{PortHTTPS, PortHTTPS}}}
	groups := strings.Join(nodes.groups, ", ")
	f := Finding{Check: CheckNodesEgress, Required: fmt.Sprintf("egress tcp %d from %s to any destination", PortHTTPS, groups)}
	var admitting []Rule
	for _, r := range candidates(nodes, rules, true) {
		if r.overlaps(needs) {
			admitting = append(admitting, r)
		}
	}
	if len(admitting) > 0 {
		f.Passed = true
		f.Detail, f.GroupID = describe(admitting)
		f.Detail = "admitted by " + f.Detail
		return f
	}
	f.GroupID = nodes.groups[0]
	f.Missing = fmt.Sprintf("egress tcp %d from %s", PortHTTPS, groups)
	f.Fix = fmt.Sprintf("add an egress rule to %s allowing tcp %d to destination 0.0.0.0/0 (or to the addresses of the API server "+
		"endpoint and the VPC endpoints the nodes use)", f.GroupID, PortHTTPS)
	f.Detail = fmt.Sprintf("no egress rule on the node security groups (%s) allows tcp %d to any destination: kubelets could not reach "+
		"the Kubernetes API server, nor pull images from ECR, and nodes would never join. Name the control-plane groups "+
		"(`connectivity.control_plane_security_group_ids`) to check the way to the API server itself", groups, PortHTTPS)
	return f
}

// checkPort checks one TCP port between the nodes and the control plane: ingress on the node
// groups from the control plane, or (egress) from the node groups to the control plane.
func checkPort(name string, nodes, cp peer, egress bool, port int, rules []Rule) Finding {
	needs := []need{{protoTCP, span{port, port}}}
	dir, prep := "ingress", "from"
	if egress {
		dir, prep = "egress", "to"
	}
	cpList := strings.Join(cp.groups, ", ")
	f := Finding{Check: name, Required: fmt.Sprintf("%s tcp %d %s %s", dir, port, prep, cpList)}
	rs := candidates(nodes, rules, egress)
	var admitting []Rule
	for _, r := range rs {
		if admits(r, cp, netip.Prefix{}) && r.overlaps(needs) {
			admitting = append(admitting, r)
		}
	}
	if len(missing(needs, admitting)) == 0 {
		f.Passed = true
		f.Detail, f.GroupID = describe(admitting)
		f.Detail = "admitted by " + f.Detail
		return f
	}
	f.GroupID = nodes.groups[0]
	f.Missing = fmt.Sprintf("%s tcp %d %s %s", dir, port, prep, cpList)
	if egress {
		f.Fix = fmt.Sprintf("add an egress rule to %s allowing tcp %d to destination %s", f.GroupID, port, cp.groups[0])
		f.Detail = fmt.Sprintf("no egress rule on the node security groups (%s) allows tcp %d to the control plane (%s); "+
			"kubelets could not reach the Kubernetes API server and nodes would never join.%s",
			strings.Join(nodes.groups, ", "), port, cpList, skippedPrefixLists(rs))
		return f
	}
	f.Fix = fmt.Sprintf("add an ingress rule to %s allowing tcp %d from source %s", f.GroupID, port, cp.groups[0])
	what := "webhooks and API services on the nodes"
	if port == PortKubelet {
		what = "kubectl logs/exec and metrics through the kubelet"
	}
	f.Detail = fmt.Sprintf("no ingress rule on the node security groups (%s) admits tcp %d from the control plane (%s); "+
		"%s would time out.%s", strings.Join(nodes.groups, ", "), port, cpList, what, skippedPrefixLists(rs))
	return f
}
