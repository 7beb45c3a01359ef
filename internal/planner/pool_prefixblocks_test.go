package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/prefixblocks"
)

// blocksPort serves one /20 subnet (256 blocks) with free blocks left free and every other
// block holding one address, as a fragmented subnet does.
type blocksPort struct {
	mu    sync.Mutex
	free  int
	err   error
	asked []string
}

func (b *blocksPort) read(_ context.Context, subnetID string) (prefixblocks.Subnet, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = append(b.asked, subnetID)
	s := prefixblocks.Subnet{ID: subnetID, CIDR: "10.0.0.0/20"}
	// Blocks 0 and 255 hold AWS's reserved addresses: free ones are taken from 1 on.
	for blk := 1 + b.free; blk < 255; blk++ {
		s.Addresses = append(s.Addresses, fmt.Sprintf("10.0.%d.%d", blk/16, blk%16*16+7))
	}
	return s, b.err
}

func prefixPool(limitNodes string) PoolInput {
	in := poolInput(nil)
	in.Class.CNI.PrefixDelegation = true
	in.Limits = map[string]string{"nodes": limitNodes}
	return in
}

func blockWarnings(res PoolResult) []attrpath.Finding {
	var out []attrpath.Finding
	for _, w := range res.Warnings {
		if w.Summary == SummaryFragmentedSubnets || w.Summary == SummaryNoPrefixBlocks {
			out = append(out, w)
		}
	}
	return out
}

// A prefix-delegation pool whose limits allow more nodes than the subnet's free /28 blocks hold
// is warned about, naming the subnet, its free blocks, the blocks needed and the prefix
// reservation; one block more and the warning goes.
func TestPoolWarnsOfTooFewFreePrefixBlocks(t *testing.T) {
	ctx := context.Background()
	var f poolPorts
	port := &blocksPort{}
	ports := f.ports(false)
	ports.SubnetBlocks = port.read
	res := Pool(ctx, ports, poolFacts, prefixPool("10"))
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	perNode := res.Plan.InstanceTypes[0].VPCIPsAtMaxPods / 16
	if perNode < 2 {
		t.Fatalf("an m5.large at max pods holds %d prefixes: the test needs several", perNode)
	}
	got := blockWarnings(res)
	if len(got) != 1 || got[0].Summary != SummaryFragmentedSubnets || got[0].Path.String() != "limits" {
		t.Fatalf("a fragmented subnet: %+v", got)
	}
	for _, want := range []string{"subnet-a (us-west-2a) has 0 free /28 blocks of 256", fmt.Sprintf("%d needed for 10 nodes", 10*perNode),
		fmt.Sprintf("a full m5.large node holds %d prefixes", perNode), "room for 0 of 10 nodes", "reservation-type prefix", "amazon-vpc-cni-k8s#2749"} {
		if !strings.Contains(got[0].Message, want) {
			t.Errorf("the warning lacks %q: %s", want, got[0].Message)
		}
	}
	if strings.Join(port.asked, ",") != "subnet-a" {
		t.Errorf("subnets read: %v", port.asked)
	}

	// One block short of 10 nodes still warns; enough blocks do not.
	port.free = 10*perNode - 1
	if got := blockWarnings(Pool(ctx, ports, poolFacts, prefixPool("10"))); len(got) != 1 || !strings.Contains(got[0].Message, "room for 9 of 10 nodes") {
		t.Errorf("one block short: %+v", got)
	}
	port.free = 10 * perNode
	if got := blockWarnings(Pool(ctx, ports, poolFacts, prefixPool("10"))); len(got) != 0 {
		t.Errorf("enough blocks: %+v", got)
	}

	// Replicas are what a static pool needs, on its replicas.
	port.free = perNode
	static := prefixPool("10")
	static.Limits, static.Replicas = nil, new(int)
	*static.Replicas = 2
	if got := blockWarnings(Pool(ctx, ports, poolFacts, static)); len(got) != 1 || got[0].Path.String() != "replicas" ||
		!strings.Contains(got[0].Message, fmt.Sprintf("%d needed for 2 nodes", 2*perNode)) {
		t.Errorf("a static pool: %+v", got)
	}
}

// Without prefix delegation, or without the port, nothing is read; a read that fails is a
// warning naming the actions.
func TestPoolPrefixBlocksOnlyWithPrefixDelegation(t *testing.T) {
	ctx := context.Background()
	var f poolPorts
	port := &blocksPort{}
	ports := f.ports(false)
	ports.SubnetBlocks = port.read
	off := prefixPool("10")
	off.Class.CNI.PrefixDelegation = false
	if got := blockWarnings(Pool(ctx, ports, poolFacts, off)); len(got) != 0 || len(port.asked) != 0 {
		t.Errorf("secondary IPs: warnings %+v, subnets read %v", got, port.asked)
	}
	if got := blockWarnings(Pool(ctx, f.ports(false), poolFacts, prefixPool("10"))); len(got) != 0 {
		t.Errorf("no port: %+v", got)
	}
	port.err = errors.New("UnauthorizedOperation: not authorized to perform ec2:DescribeNetworkInterfaces")
	got := blockWarnings(Pool(ctx, ports, poolFacts, prefixPool("10")))
	if len(got) != 1 || got[0].Summary != SummaryNoPrefixBlocks || !strings.Contains(got[0].Message, "ec2:GetSubnetCidrReservations") ||
		!strings.Contains(got[0].Message, "UnauthorizedOperation") {
		t.Errorf("a failed read: %+v", got)
	}
}
