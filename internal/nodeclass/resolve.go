package nodeclass

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

// PodSubnet is the custom-networking (ENIConfig) subnet chosen for one node zone.
type PodSubnet struct {
	Zone   string
	Subnet discovery.Subnet
}

// Resolved is what EC2 says the class's selectors hit.
type Resolved struct {
	VPCID          string
	Subnets        []discovery.Subnet // Karpenter's order
	SecurityGroups []discovery.SecurityGroup
	Zones          []string
	PodSubnets     []PodSubnet // by zone; custom networking only
	AMIs           AMIResolution
	// Warnings are matches that work, but not as a reviewer likely meant: public or default
	// subnets, a second subnet in a zone, node subnets that are also pod subnets.
	Warnings []FieldError
}

// SubnetIDs lists the resolved subnet ids in order.
func (r Resolved) SubnetIDs() []string {
	ids := make([]string, len(r.Subnets))
	for i, s := range r.Subnets {
		ids[i] = s.ID
	}
	return ids
}

// SecurityGroupIDs lists the resolved security group ids in order.
func (r Resolved) SecurityGroupIDs() []string {
	ids := make([]string, len(r.SecurityGroups))
	for i, g := range r.SecurityGroups {
		ids[i] = g.ID
	}
	return ids
}

// SameSelection reports whether two resolutions selected the same objects (ids, zones, names,
// pod subnets), ignoring free-IP counts, which change with every launch.
func (r Resolved) SameSelection(o Resolved) bool {
	key := func(x Resolved) string {
		var b strings.Builder
		b.WriteString(x.VPCID)
		// Subnets are ordered by free IPs, so compare them as a set.
		subnets := make([]string, len(x.Subnets))
		for i, s := range x.Subnets {
			subnets[i] = fmt.Sprintf("|s:%s@%s/%s:%q:%t:%t", s.ID, s.Zone, s.ZoneID, s.Name(), s.MapPublicIPOnLaunch, s.DefaultForAZ)
		}
		sort.Strings(subnets)
		for _, s := range subnets {
			b.WriteString(s)
		}
		for _, g := range x.SecurityGroups {
			fmt.Fprintf(&b, "|g:%s=%s", g.ID, g.Name)
		}
		for _, p := range x.PodSubnets {
			fmt.Fprintf(&b, "|p:%s@%s", p.Subnet.ID, p.Zone)
		}
		return b.String()
	}
	return key(r) == key(o)
}

// Resolve runs the selectors against EC2 and applies the rules that need their answers: some
// subnet and some security group must match, all in one VPC, and under custom networking every
// node zone needs a pod subnet. Errors carry attribute paths; err is an API failure.
func Resolve(ctx context.Context, api discovery.API, s Spec) (Resolved, []FieldError, error) {
	var r Resolved
	subnets, groups, err := resolveSubnetsAndGroups(ctx, api, s)
	if err != nil {
		return r, nil, err
	}
	r.Subnets, r.SecurityGroups, r.Zones = subnets, groups, discovery.Zones(subnets)

	errs := emptySelections(s, subnets, groups)
	vpcID, vpcErrs := oneVPC(subnets, groups)
	r.VPCID = vpcID
	errs = append(errs, vpcErrs...)

	if s.Networking.CustomNetworking && len(s.Networking.PodSubnetTerms) > 0 && r.VPCID != "" {
		pods, err := discovery.ResolveSubnets(ctx, api, s.Networking.PodSubnetTerms)
		if err != nil {
			return r, nil, err
		}
		r.PodSubnets = choosePodSubnets(pods, r.VPCID)
		errs = append(errs, missingPodSubnets(r)...)
		r.Warnings = append(r.Warnings, podSubnetOverlap(subnets, pods)...)
	}
	r.Warnings = append(SubnetFindings(attrpath.Of("subnet_selector_terms"), subnets), r.Warnings...)
	return r, errs, nil
}

// resolveSubnetsAndGroups resolves the subnet and security group terms. They are independent
// lookups: both are asked at once (one round trip of latency instead of two on every plan).
func resolveSubnetsAndGroups(ctx context.Context, api discovery.API, s Spec) ([]discovery.Subnet, []discovery.SecurityGroup, error) {
	type groupsResult struct {
		groups []discovery.SecurityGroup
		err    error
	}
	gch := make(chan groupsResult, 1)
	go func() {
		g, err := discovery.ResolveSecurityGroups(ctx, api, s.SecurityGroupTerms)
		gch <- groupsResult{g, err}
	}()
	subnets, err := discovery.ResolveSubnets(ctx, api, s.SubnetTerms)
	gr := <-gch
	if err != nil {
		return nil, nil, err
	}
	if gr.err != nil {
		return nil, nil, gr.err
	}
	return subnets, gr.groups, nil
}

// emptySelections are the errors of terms that matched nothing: Karpenter could not launch.
func emptySelections(s Spec, subnets []discovery.Subnet, groups []discovery.SecurityGroup) []FieldError {
	var errs []FieldError
	if len(subnets) == 0 {
		errs = append(errs, FieldError{Path: attrpath.Of("subnet_selector_terms"), Message: fmt.Sprintf(
			"no subnet matched the %d subnet selector terms; Karpenter could not launch a node from this class (check the tags, e.g. %s). "+
				"Subnets created in the same run must be referenced from their resources (e.g. `id = aws_subnet.private.id`, or a tag value "+
				"taken from them), not written as literals: the plan then waits for them and checks them at apply",
			len(s.SubnetTerms), describeTerms(s.SubnetTerms))})
	}
	if len(groups) == 0 {
		errs = append(errs, FieldError{Path: attrpath.Of("security_group_selector_terms"), Message: fmt.Sprintf(
			"no security group matched the %d security group selector terms", len(s.SecurityGroupTerms))})
	}
	return errs
}

// oneVPC is the VPC of the subnets ("" unless exactly one), with an error when they span several
// or when security groups lie outside it: an instance's interfaces must all be in one VPC.
func oneVPC(subnets []discovery.Subnet, groups []discovery.SecurityGroup) (string, []FieldError) {
	vpcs := discovery.VPCs(subnets)
	if len(vpcs) > 1 {
		return "", []FieldError{{Path: attrpath.Of("subnet_selector_terms"), Message: fmt.Sprintf(
			"the selected subnets span %d VPCs (%s); an instance's network interfaces must all be in one VPC: narrow the terms",
			len(vpcs), strings.Join(vpcs, ", "))}}
	}
	if len(vpcs) == 0 {
		return "", nil
	}
	vpcID := vpcs[0]
	var outside []string
	for _, g := range groups {
		if g.VPCID != vpcID {
			outside = append(outside, fmt.Sprintf("%s (%s)", g.ID, g.VPCID))
		}
	}
	if len(outside) > 0 {
		return vpcID, []FieldError{{Path: attrpath.Of("security_group_selector_terms"), Message: fmt.Sprintf(
			"security groups outside the subnets' VPC %s: %s; EC2 rejects them at launch", vpcID, strings.Join(outside, ", "))}}
	}
	return vpcID, nil
}

// missingPodSubnets is an error naming the node zones without a pod subnet: pods on nodes there
// would get no IP.
func missingPodSubnets(r Resolved) []FieldError {
	missing := ZonesWithoutPodSubnet(r)
	if len(missing) == 0 {
		return nil
	}
	return []FieldError{{Path: attrpath.Of("networking", "custom_networking", "pod_subnet_selector_terms"), Message: fmt.Sprintf(
		"no pod subnet in VPC %s for node zone(s) %s: pods on nodes there would get no IP (add an ENIConfig subnet per zone)",
		r.VPCID, strings.Join(missing, ", "))}}
}

// ZonesWithoutPodSubnet are the node zones of r that no pod subnet of r is in, in order.
func ZonesWithoutPodSubnet(r Resolved) []string {
	have := map[string]bool{}
	for _, p := range r.PodSubnets {
		have[p.Zone] = true
	}
	var missing []string
	for _, z := range r.Zones {
		if !have[z] {
			missing = append(missing, z)
		}
	}
	return missing
}

// Summaries of the resolution's warnings, one per kind, so Terraform does not fold them.
const (
	SummaryPublicSubnets            = "Public subnets selected for nodes"
	SummarySubnetsPerZone           = "More than one node subnet in a zone"
	SummaryNodeSubnetsArePodSubnets = "Node subnets are also pod subnets"
)

// SubnetFindings flags node subnets a reviewer should look at twice: public ones (nodes get
// public addresses), a VPC's default subnets, and zones where more than one subnet matched
// (Karpenter launches into the one with most free IPs, then lowest id, and uses no other). The
// node class and the subnets data source report the same findings, on the selector at path.
func SubnetFindings(path attrpath.Path, subnets []discovery.Subnet) []FieldError {
	var out []FieldError
	var public []string
	for _, s := range subnets {
		if s.MapPublicIPOnLaunch || s.DefaultForAZ {
			what := "maps public IPs on launch"
			if s.DefaultForAZ {
				what = "is the default subnet of its zone (public by default)"
			}
			public = append(public, fmt.Sprintf("%s (%s, %s) %s", describeSubnet(s), s.Zone, s.CIDRBlock, what))
		}
	}
	if len(public) > 0 {
		out = append(out, FieldError{Path: path, Summary: SummaryPublicSubnets, Message: fmt.Sprintf("the node subnet selector matches %d public subnet(s): %s. Nodes there get "+
			"public IPv4 addresses and are reachable from the internet when the route table allows it; select private subnets (e.g. a tag only "+
			"they carry)", len(public), strings.Join(public, "; "))})
	}
	byZone := map[string][]discovery.Subnet{}
	var zones []string
	for _, s := range subnets {
		if len(byZone[s.Zone]) == 0 {
			zones = append(zones, s.Zone)
		}
		byZone[s.Zone] = append(byZone[s.Zone], s)
	}
	sort.Strings(zones)
	var multi []string
	for _, z := range zones {
		ss := byZone[z]
		if len(ss) < 2 {
			continue
		}
		discovery.SortSubnets(ss)
		names := make([]string, len(ss))
		for i, s := range ss {
			names[i] = fmt.Sprintf("%s (%d free IPs)", describeSubnet(s), s.AvailableIPAddressCount)
		}
		multi = append(multi, fmt.Sprintf("%s: %s", z, strings.Join(names, ", ")))
	}
	if len(multi) > 0 {
		out = append(out, FieldError{Path: path, Summary: SummarySubnetsPerZone, Message: fmt.Sprintf("more than one subnet matched in %d zone(s) (%s); Karpenter launches "+
			"into the first of each zone, the one with the most free IPs, and uses the others only when that changes. If some are not meant "+
			"for nodes (public, pod or database subnets), narrow the terms", len(multi), strings.Join(multi, "; "))})
	}
	return out
}

// podSubnetOverlap flags node subnets that the custom-networking pod subnet terms match too: a
// pod subnet (typically a large 100.64.0.0/10 range) has the most free IPs in its zone, so
// Karpenter launches the nodes into it.
func podSubnetOverlap(nodes, pods []discovery.Subnet) []FieldError {
	isPod := map[string]bool{}
	for _, p := range pods {
		isPod[p.ID] = true
	}
	var both []string
	for _, s := range nodes {
		if isPod[s.ID] {
			both = append(both, fmt.Sprintf("%s (%s, %s)", describeSubnet(s), s.Zone, s.CIDRBlock))
		}
	}
	if len(both) == 0 {
		return nil
	}
	return []FieldError{{Path: attrpath.Of("subnet_selector_terms"), Summary: SummaryNodeSubnetsArePodSubnets, Message: fmt.Sprintf("the node subnet selector also matches %d of the "+
		"pod subnets (%s): Karpenter picks the subnet with the most free IPs in a zone, so nodes would land in the pod subnets. Give the "+
		"node and pod subnets tags of their own and select each by its own", len(both), strings.Join(both, "; "))}}
}

// describeSubnet is a subnet's id with its Name tag, when it has one.
func describeSubnet(s discovery.Subnet) string {
	if n := s.Name(); n != "" {
		return fmt.Sprintf("%s %q", s.ID, n)
	}
	return s.ID
}

// choosePodSubnets keeps the subnets of the node VPC and picks one per zone, as the VPC CNI's
// ENIConfig does per zone: here the one with most free IPs, then lowest id.
func choosePodSubnets(pods []discovery.Subnet, vpcID string) []PodSubnet {
	discovery.SortSubnets(pods)
	byZone := map[string]discovery.Subnet{}
	for _, p := range pods {
		if p.VPCID != vpcID {
			continue
		}
		if _, ok := byZone[p.Zone]; !ok {
			byZone[p.Zone] = p
		}
	}
	out := make([]PodSubnet, 0, len(byZone))
	for z, s := range byZone {
		out = append(out, PodSubnet{Zone: z, Subnet: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Zone < out[j].Zone })
	return out
}

func describeTerms(terms []discovery.SubnetTerm) string {
	var parts []string
	for _, t := range terms {
		if t.ID != "" {
			parts = append(parts, t.ID)
			continue
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
			kv = append(kv, k+"="+t.Tags[k])
		}
		parts = append(parts, "{"+strings.Join(kv, ", ")+"}")
	}
	return strings.Join(parts, " OR ")
}
