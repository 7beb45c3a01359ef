package provider

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// TestAccNodePool_prefixDelegationFragmentedSubnet plans a pool whose class has prefix
// delegation in one LocalStack /24 (16 /28 blocks, 251 free IPs). LocalStack 4.14 has neither
// IPv4 prefixes nor subnet CIDR reservations, so the provider's EC2 endpoint is
// acctest.PrefixStub: it serves the subnet's network interfaces and reservations from this
// test's objects and forwards the rest (the subnet itself) to LocalStack. With the subnet's
// blocks free the plan is quiet; with one address in each of its 14 usable blocks (237 IPs
// still free) it warns, naming the subnet, its free blocks, the blocks needed and the prefix
// reservation. Every step only plans: nothing is created in AWS, so there is nothing to destroy
// (the network fixture removes itself).
func TestAccNodePool_prefixDelegationFragmentedSubnet(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	subnet := n.Subnets[0] // a /24
	stub := acctest.NewPrefixStub(t)
	cfg := strings.Replace(poolConfig(cluster, fmt.Sprintf(`
  subnet_selector_terms = [{ id = %q }]
  networking            = { prefix_delegation = true }`, subnet.ID), `
  limits   = { nodes = "1" }
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`), providerConfig(cluster), providerConfigEC2(cluster, stub.URL()), 1)

	// Clean: an interface with two addresses in the first usable block, and an explicit
	// reservation of the last one; 12 blocks stay free, more than one node's prefixes.
	at := func(offset int) string { return subnetAddress(subnet.CIDR, offset) }
	stub.SetInterfaces(acctest.StubInterface{ID: "eni-0aaaaaaaaaaaaaaa1", SubnetID: subnet.ID, Primary: at(20), Secondary: []string{at(21)}})
	stub.SetReservations(acctest.StubCidrReservation{ID: "scr-0aaaaaaaaaaaaaaa1", SubnetID: subnet.ID, CIDR: at(224) + "/28", Type: "explicit"})
	if got := suitePlanWarnings(t, cfg); len(got[planner.SummaryFragmentedSubnets])+len(got[planner.SummaryNoPrefixBlocks]) > 0 {
		t.Errorf("a subnet with free /28 blocks: %v", got)
	}
	calls := stub.Calls("DescribeNetworkInterfaces") + stub.Calls("GetSubnetCidrReservations")
	if calls == 0 {
		t.Fatalf("the plan did not read the subnet's interfaces and reservations: %s", stub)
	}

	// Fragmented: one more secondary address in every usable block, no reservation.
	stub.SetInterfaces(fragmentingInterface("eni-0aaaaaaaaaaaaaaa1", subnet.ID, subnet.CIDR))
	stub.SetReservations()
	got := suitePlanWarnings(t, cfg)
	wantWarning(t, got, planner.SummaryFragmentedSubnets, "limits",
		subnet.ID+" ("+subnet.Zone+") has 0 free /28 blocks of 16", "needed for 1 node (a full m5.large node holds", "room for 0 of 1 node;",
		"subnet CIDR reservation of type prefix", "amazon-vpc-cni-k8s#2749")
	if stub.Calls("DescribeNetworkInterfaces")+stub.Calls("GetSubnetCidrReservations") <= calls {
		t.Errorf("the second plan (a new provider process) did not read the subnet again: %s", stub)
	}
}

// subnetAddress is the address offset addresses into a subnet's CIDR.
func subnetAddress(cidr string, offset int) string {
	a := netip.MustParsePrefix(cidr).Addr()
	for range offset {
		a = a.Next()
	}
	return a.String()
}

// fragmentingInterface holds one address in each usable /28 block of a /24 (blocks 1 to 14; AWS
// reserves addresses of the first and the last): 237 addresses stay free, no /28 block does.
func fragmentingInterface(id, subnetID, cidr string) acctest.StubInterface {
	var scattered []string
	for blk := 1; blk <= 14; blk++ {
		scattered = append(scattered, subnetAddress(cidr, blk*16+5))
	}
	return acctest.StubInterface{ID: id, SubnetID: subnetID, Primary: subnetAddress(cidr, 20), Secondary: scattered}
}

// suitePlanWarnings is planWarnings with the suite's call recorder, so the published-policy
// check sees the calls this plan makes.
func suitePlanWarnings(t *testing.T, cfg string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, w := range recordedPlanWarnings(t, cfg, &suiteCalls) {
		if w.rpc == "PlanResourceChange" {
			got[w.text] = append(got[w.text], w.path+": "+w.detail)
		}
	}
	return got
}

// recordedPlanWarnings plans cfg once (PlanOnly: the plan must succeed) with the in-process
// provider, its clients kept by calls, and returns the warnings of every call of the provider.
func recordedPlanWarnings(t *testing.T, cfg string, calls *callRecorder) []recordedDiag {
	t.Helper()
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(calls, diags),
		Steps:                    []resource.TestStep{{Config: cfg, PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
	return diags.warnings
}
