package planner

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/prefixblocks"
)

// Summaries of the /28 check of prefix-delegation pools.
const (
	SummaryFragmentedSubnets = "Too few free /28 blocks for prefix delegation"
	SummaryNoPrefixBlocks    = "Cannot read the subnets' free /28 blocks"
)

// zoneBlocks is one zone's side of the /28 check.
type zoneBlocks struct {
	zone, subnet, hungriest string
	perNode                 int // /28 prefixes a full node of the hungriest type holds
	roomByIPs               int // the zone's nodes by free IPs
	free                    prefixblocks.Free
}

// prefixBlockWarnings check, for a pool whose class has the VPC CNI's prefix delegation, that the
// subnets it launches in hold the aligned /28 blocks its nodes need: free IPs scattered over
// every block leave none, and the node then cannot get its prefix (aws/amazon-vpc-cni-k8s#2749).
// The nodes counted are replicas, else what the limits allow, else what the free IPs address,
// never more than the free IPs address (capacityWarnings tells that shortfall); each zone's
// node subnet (the pod subnet with custom networking, where the pod ENIs and their prefixes live)
// is read once through ports.SubnetBlocks.
func prefixBlockWarnings(ctx context.Context, ports PoolPorts, in PoolInput, p launchplan.Plan) []attrpath.Finding {
	if ports.SubnetBlocks == nil || !prefixMode(in.Class) {
		return nil
	}
	var path attrpath.Path
	var want int
	var what string
	switch {
	case in.Replicas != nil:
		path, want, what = attrpath.Of("replicas"), *in.Replicas, fmt.Sprintf("replicas (%s)", nodesOf(*in.Replicas))
	case p.NodesByLimits >= 0:
		path, want, what = pathLimits, p.NodesByLimits, fmt.Sprintf("the %s the limits allow", nodesOf(p.NodesByLimits))
	default:
		path, want, what = attrpath.Of("node_class"), p.NodesByIPs, fmt.Sprintf("the %s the free IPs address (no limits)", nodesOf(p.NodesByIPs))
	}
	want = min(want, p.NodesByIPs)
	if want <= 0 {
		return nil
	}
	zones := blockZones(in, p)
	if len(zones) == 0 {
		return nil
	}
	errs := make([]error, len(zones))
	var wg sync.WaitGroup
	for i := range zones {
		wg.Go(func() {
			z := &zones[i]
			var s prefixblocks.Subnet
			if s, errs[i] = ports.SubnetBlocks(ctx, z.subnet); errs[i] == nil {
				z.free, errs[i] = prefixblocks.Compute(s)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return []attrpath.Finding{{Summary: SummaryNoPrefixBlocks, Path: path,
				Message: "the class has prefix delegation, and whether its subnets hold enough free, aligned /28 blocks for the pool's nodes " +
					"is not checked (the provider's role needs ec2:DescribeNetworkInterfaces and ec2:GetSubnetCidrReservations): " + err.Error()}}
		}
	}
	room := 0
	for _, z := range zones {
		room += min(z.roomByIPs, z.free.Count()/z.perNode)
	}
	if want <= room {
		return nil
	}
	var short []string
	for _, z := range zones {
		nodes := min(want, z.roomByIPs)
		if need := nodes * z.perNode; z.free.Count() < need {
			short = append(short, fmt.Sprintf("%s (%s) has %d free /28 blocks of %d, %d needed for %s (a full %s node holds %d prefixes; "+
				"the longest free run is %d blocks)", z.subnet, z.zone, z.free.Count(), z.free.Blocks, need, nodesOf(nodes), z.hungriest, z.perNode, z.free.LargestRun))
		}
	}
	return []attrpath.Finding{{Summary: SummaryFragmentedSubnets, Path: path,
		Message: fmt.Sprintf("the class has prefix delegation, which gives each node whole aligned /28 prefixes, and the subnets hold too "+
			"few free /28 blocks for %s, though they have the free IPs: %s. The subnets hold room for %d of %s; %s. AWS's fix is a subnet CIDR reservation of type prefix over free, "+
			"/28-aligned room (aws ec2 create-subnet-cidr-reservation --reservation-type prefix), which keeps single addresses out of it; "+
			"or add subnets with free /28 blocks to the class, or %s",
			what, strings.Join(short, "; "), room, nodesOf(want), shortOfPrefix(in.Class), lowerWhat(path))}}
}

// prefixMode reports whether the class gives nodes /28 prefixes: VPC CNI prefix delegation, or
// EKS Auto Mode unless its ipv4PrefixSize is "32".
func prefixMode(c launchplan.Class) bool {
	if c.AutoMode != nil {
		return c.AutoMode.IPv4PrefixSize != capacity.AutoModePrefix32
	}
	return c.CNI.PrefixDelegation
}

// shortOfPrefix says what becomes of a node short of a prefix.
func shortOfPrefix(c launchplan.Class) string {
	if c.AutoMode != nil {
		return "EKS Auto Mode then gives a node secondary IPs instead, with another pod count " +
			"(https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html)"
	}
	return "a node short of a prefix gets no pod addresses (aws/amazon-vpc-cni-k8s#2749)"
}

func nodesOf(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

func lowerWhat(path attrpath.Path) string {
	switch path.String() {
	case "replicas":
		return "lower replicas"
	case "limits":
		return "lower the limits"
	}
	return "bound the pool's nodes with limits"
}

// blockZones are the zones the pool launches in, each with the subnet its prefixes come from
// and the /28 prefixes a full node of its hungriest type holds.
func blockZones(in PoolInput, p launchplan.Plan) []zoneBlocks {
	types := map[string]launchplan.TypePlan{}
	for _, t := range p.InstanceTypes {
		types[t.Name] = t
	}
	subnet := map[string]launchplan.ZonePlan{}
	for _, z := range p.Zones {
		subnet[z.Zone] = z
	}
	var out []zoneBlocks
	for _, c := range p.Capacity {
		zp, ok := subnet[c.Zone]
		t, known := types[c.HungriestType]
		if !ok || !known || c.NodesByIPs == 0 {
			continue
		}
		// A full node's addresses are its ENIs' primaries (fewer than 16) and 16 per prefix.
		z := zoneBlocks{zone: c.Zone, subnet: zp.SubnetID, hungriest: t.Name, roomByIPs: c.NodesByIPs, perNode: t.VPCIPsAtMaxPods / prefixblocks.BlockSize}
		if (in.Class.CNI.CustomNetworking || in.Class.AutoMode != nil && in.Class.AutoMode.PodSubnets) && zp.PodSubnetID != "" {
			z.subnet, z.perNode = zp.PodSubnetID, t.PodSubnetIPsAtMaxPods/prefixblocks.BlockSize
		}
		z.perNode = max(1, z.perNode)
		out = append(out, z)
	}
	return out
}
