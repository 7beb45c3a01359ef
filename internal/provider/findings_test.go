package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// planWarnings plans cfg once with a diagnostic recorder and returns the plan's warnings:
// summary -> "path: detail" texts.
func planWarnings(t *testing.T, cfg string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, w := range recordedPlanWarnings(t, cfg, &callRecorder{}) {
		if w.rpc == "PlanResourceChange" || w.rpc == "ReadDataSource" {
			got[w.text] = append(got[w.text], w.path+": "+w.detail)
		}
	}
	return got
}

// wantWarning fails unless a warning with this summary sits on path and mentions every part.
func wantWarning(t *testing.T, got map[string][]string, summary, path string, parts ...string) {
	t.Helper()
	at := resolvableString(path) // where Terraform can show it; the detail names the full path
	for _, w := range got[summary] {
		ok := strings.HasPrefix(w, at+": ") && (at == path || strings.Contains(w, path+": "))
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return
		}
	}
	t.Errorf("no %q warning on %s with %q; warnings: %v", summary, path, parts, got)
}

// extraSubnet adds a subnet to the fixture's VPC (removed before the VPC) and returns its id.
func extraSubnet(t *testing.T, n *acctest.Network, zone, cidr string, tags map[string]string, public bool) string {
	t.Helper()
	ctx := context.Background()
	c := acctest.EC2(t)
	var ts []ec2types.Tag
	for k, v := range tags {
		ts = append(ts, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	slices.SortFunc(ts, func(a, b ec2types.Tag) int { return strings.Compare(*a.Key, *b.Key) })
	out, err := c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: aws.String(n.VPCID), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(zone),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSubnet, Tags: ts}}})
	if err != nil {
		t.Fatalf("CreateSubnet: %v", err)
	}
	id := aws.ToString(out.Subnet.SubnetId)
	t.Cleanup(func() { _, _ = c.DeleteSubnet(context.Background(), &ec2.DeleteSubnetInput{SubnetId: aws.String(id)}) })
	if public {
		if _, err := c.ModifySubnetAttribute(ctx, &ec2.ModifySubnetAttributeInput{SubnetId: aws.String(id),
			MapPublicIpOnLaunch: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}}); err != nil {
			t.Fatalf("ModifySubnetAttribute: %v", err)
		}
	}
	return id
}

// vpcCIDRBase is the fixture VPC's 10.x prefix, from one of its subnets.
func vpcCIDRBase(n *acctest.Network) string {
	parts := strings.SplitN(n.Subnets[0].CIDR, ".", 3)
	return parts[0] + "." + parts[1]
}

// A fixed kubelet max_pods above what an m5.large's ENIs address without prefix delegation
// (110 against 29): the pool and karpenter_pod_capacity say so with the same numbers. Before,
// the pool planned max_pods 110 silently.
func TestAccFindings_maxPodsAboveAddressable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	cfg := poolConfig(cluster, "  kubelet = { max_pods = 110 }", `
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`) + `
data "karpenter_pod_capacity" "m5" {
  instance_type    = "m5.large"
  kubelet_max_pods = 110
}
`
	got := planWarnings(t, cfg)
	wantWarning(t, got, "Max pods above what the ENIs can address", "node_class", "kubelet max_pods 110", "m5.large 29", "Lower kubelet max_pods to 29")
	wantWarning(t, got, "Pod capacity of m5.large", "", "kubelet max pods 110 is above the 29 pods the ENIs can address")
}

// Subnet matches a reviewer should see: a public subnet, and a second subnet in a zone, both
// carrying the discovery tag. The class's subnets show the Name tag and the public flag.
func TestAccFindings_subnetMatches(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	public := extraSubnet(t, n, n.Subnets[0].Zone, vpcCIDRBase(n)+".64.0/24",
		map[string]string{"karpenter.sh/discovery": cluster, "Name": "public-" + cluster}, true)
	got := planWarnings(t, nodeClassConfig(cluster, ""))
	wantWarning(t, got, "Public subnets selected for nodes", "subnet_selector_terms",
		fmt.Sprintf("%s %q", public, "public-"+cluster), "maps public IPs on launch")
	wantWarning(t, got, "More than one node subnet in a zone", "subnet_selector_terms", n.Subnets[0].Zone+": ", public, n.Subnets[0].ID)
}

// Custom networking whose node selector also matches the pod subnets (every subnet carries the
// discovery tag): Karpenter would put the nodes into the larger pod subnets.
func TestAccFindings_nodeSubnetsArePodSubnets(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	got := planWarnings(t, nodeClassConfig(cluster, fmt.Sprintf(`
  networking = { custom_networking = { pod_subnet_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }] } }`, cluster)))
	wantWarning(t, got, "Node subnets are also pod subnets", "subnet_selector_terms", "also matches 3 of the pod subnets", n.Subnets[0].ID)
}

// A type the requirements name that the class's zones do not offer is named with the zones that
// do; when no named type is left, the error says the same instead of "no instance type in the
// catalog matches".
func TestAccFindings_typeNotOfferedInTheClassZones(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	zoneC := n.Subnets[2].Zone
	missing, offered := typeOfferedElsewhere(t, zoneC)
	classBody := fmt.Sprintf(`  subnet_selector_terms = [{ id = %q }]`, n.Subnets[2].ID)
	cfg := poolConfig(cluster, classBody, fmt.Sprintf(`
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = [%q, "m5.large"] }]
  }`, missing))
	got := planWarnings(t, cfg)
	wantWarning(t, got, "Instance types not offered in the pool's zones", "template.requirements",
		fmt.Sprintf("%s (offered in %s)", missing, offered), "pool's zones "+zoneC)

	only := poolConfig(cluster, classBody, fmt.Sprintf(`
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = [%q] }]
  }`, missing))
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{Config: only, PlanOnly: true,
			ExpectError: capWordsRE(fmt.Sprintf("not offered in the pool's zones %s: %s (offered in %s)", zoneC, missing, offered))}},
	})
}

// typeOfferedElsewhere finds, in the emulator's offerings, an x86 type offered somewhere in the
// region but not in zone, with the zones where it is.
func typeOfferedElsewhere(t *testing.T, zone string) (string, string) {
	t.Helper()
	zones := map[string][]string{}
	p := ec2.NewDescribeInstanceTypeOfferingsPaginator(acctest.EC2(t), &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("DescribeInstanceTypeOfferings: %v", err)
		}
		for _, o := range page.InstanceTypeOfferings {
			zones[string(o.InstanceType)] = append(zones[string(o.InstanceType)], aws.ToString(o.Location))
		}
	}
	var names []string
	for name, zs := range zones {
		if !slices.Contains(zs, zone) && (strings.HasPrefix(name, "m5") || strings.HasPrefix(name, "c5") || strings.HasPrefix(name, "r5")) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("the emulator offers every m5/c5/r5 type in %s; no type to test with", zone)
	}
	slices.Sort(names)
	zs := zones[names[0]]
	slices.Sort(zs)
	return names[0], strings.Join(zs, ", ")
}

// The VPC CNI's own behaviour where the provider used to refuse or miscount: prefix delegation on
// a Xen type falls back to secondary IPs (m4.large: 20 pods, with a warning, instead of an
// error), and security groups for pods take no trunk ENI on a type that cannot carry one
// (t3.micro keeps 4 pods and agrees with Karpenter; m5.large loses one ENI: 20).
func TestAccFindings_podCapacityFollowsTheCNI(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{
			Config: providerConfig("") + `
data "karpenter_pod_capacity" "xen" {
  instance_type     = "m4.large"
  prefix_delegation = true
}
data "karpenter_pod_capacity" "micro" {
  instance_type            = "t3.micro"
  security_groups_for_pods = true
  branch_interfaces        = 0
}
data "karpenter_pod_capacity" "large" {
  instance_type            = "m5.large"
  security_groups_for_pods = true
  branch_interfaces        = 9
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.xen", "max_pods", "20"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.xen", "consistent", "true"),
				resource.TestMatchResourceAttr("data.karpenter_pod_capacity.xen", "warnings.0", capWordsRE("falls back to secondary IPs")),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.micro", "max_pods", "4"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.micro", "consistent", "true"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.large", "max_pods", "20"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.large", "consistent", "false"),
			),
		}},
	})
}

// The IPs a node at max pods holds follow the VPC CNI's ipamd, in the pool (nodes each zone's
// free IPs hold) and in karpenter_pod_capacity alike. The fixture's subnets have 251, 123 and 59
// free IPs. Before, prefix delegation counted one /28 too many (129 for m5.large at 110 pods,
// ipamd stops at 7 prefixes: 113), and a max pods below the ENI limit left out the warm ENI
// ipamd attaches (20 for max_pods 20, ipamd holds 3 ENIs: 30).
func TestAccFindings_ipProjectionFollowsIPAMD(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	a, b, c := n.Subnets[0].Zone, n.Subnets[1].Zone, n.Subnets[2].Zone
	pool := `
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }`
	step := func(classBody, capacityInputs string, ips int, byZone [3]int64) resource.TestStep {
		return resource.TestStep{
			Config: poolConfig(cluster, classBody, pool) + fmt.Sprintf(`
data "karpenter_pod_capacity" "m5" {
  instance_type = "m5.large"
%s
}
`, capacityInputs),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(a).AtMapKey("nodes_by_ips"), knownvalue.Int64Exact(byZone[0])),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(b).AtMapKey("nodes_by_ips"), knownvalue.Int64Exact(byZone[1])),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(c).AtMapKey("nodes_by_ips"), knownvalue.Int64Exact(byZone[2])),
			}},
			Check: resource.TestCheckResourceAttr("data.karpenter_pod_capacity.m5", "vpc_ips_at_max_pods", fmt.Sprint(ips)),
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			// Prefix delegation at 110 pods: 1 + 7 x 16 = 113: 2, 1 and 0 nodes.
			step("  networking = { prefix_delegation = true }\n  kubelet = { max_pods = 110 }",
				"  prefix_delegation = true\n  kubelet_max_pods = 110", 113, [3]int64{2, 1, 0}),
			// Secondary IPs, max_pods 20: the warm third ENI makes 30: 8, 4 and 1 nodes.
			step("  kubelet = { max_pods = 20 }", "  kubelet_max_pods = 20", 30, [3]int64{8, 4, 1}),
			// WARM_IP_TARGET 5, MINIMUM_IP_TARGET 10: ipamd holds 20 addresses on 3 ENIs: 23: 10, 5 and 2.
			step("  kubelet = { max_pods = 20 }\n  networking = { warm_ip_target = 5, minimum_ip_target = 10 }",
				"  kubelet_max_pods = 20\n  warm_ip_target = 5\n  minimum_ip_target = 10", 23, [3]int64{10, 5, 2}),
		},
	})
}

// An EFA class whose pool matches types by family: the EFA-capable types its zones miss are named
// with the zones that offer them, as a warning while other types remain and inside the error when
// none is left (the family's non-EFA types dropped). Before, they were dropped without a word.
func TestAccFindings_efaTypesNotOfferedInTheClassZones(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	zoneC := n.Subnets[2].Zone
	inZone, elsewhere, first, offered := efaFamilies(t, zoneC)
	classBody := fmt.Sprintf("  subnet_selector_terms = [{ id = %q }]\n  efa = true", n.Subnets[2].ID)
	pool := func(families ...string) string {
		return poolConfig(cluster, classBody, fmt.Sprintf(`
  template = {
    requirements = [
      { key = "karpenter.k8s.aws/instance-family", operator = "In", values = %s },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
    ]
  }`, hclStrings(families)))
	}
	got := planWarnings(t, pool(inZone, elsewhere))
	wantWarning(t, got, "Instance types not offered in the pool's zones", "template.requirements",
		"with EFA the requirements match are not offered in the pool's zones "+zoneC, fmt.Sprintf("%s (offered in %s)", first, offered))
	// Terraform plans twice in a test step; each plan says it once.
	if w := got["Instance types not offered in the pool's zones"]; len(slices.Compact(slices.Clone(w))) != 1 {
		t.Errorf("the finding is not said once: %v", w)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{Config: pool(elsewhere, "m5"), PlanOnly: true,
			ExpectError: capWordsRE(fmt.Sprintf("not offered in the pool's zones %s: %s (offered in %s)", zoneC, first, offered))}},
	})
}

// efaFamilies finds, in the emulator's x86 EFA types, a family whose EFA types are all offered in
// zone, and one whose EFA types (five at most) are offered only elsewhere, with the first of
// those and its zones.
func efaFamilies(t *testing.T, zone string) (inZone, elsewhere, first, offered string) {
	t.Helper()
	ctx := context.Background()
	c := acctest.EC2(t)
	zones := map[string][]string{}
	op := ec2.NewDescribeInstanceTypeOfferingsPaginator(c, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone})
	for op.HasMorePages() {
		page, err := op.NextPage(ctx)
		if err != nil {
			t.Fatalf("DescribeInstanceTypeOfferings: %v", err)
		}
		for _, o := range page.InstanceTypeOfferings {
			zones[string(o.InstanceType)] = append(zones[string(o.InstanceType)], aws.ToString(o.Location))
		}
	}
	byFamily := map[string][]string{}
	tp := ec2.NewDescribeInstanceTypesPaginator(c, &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{
		{Name: aws.String("network-info.efa-supported"), Values: []string{"true"}},
		{Name: aws.String("processor-info.supported-architecture"), Values: []string{"x86_64"}},
	}})
	for tp.HasMorePages() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			t.Fatalf("DescribeInstanceTypes: %v", err)
		}
		for _, it := range page.InstanceTypes {
			name := string(it.InstanceType)
			if len(zones[name]) > 0 && !strings.Contains(name, "metal") {
				fam, _, _ := strings.Cut(name, ".")
				byFamily[fam] = append(byFamily[fam], name)
			}
		}
	}
	for _, fam := range slices.Sorted(maps.Keys(byFamily)) {
		names := byFamily[fam]
		var in int
		for _, nm := range names {
			if slices.Contains(zones[nm], zone) {
				in++
			}
		}
		switch {
		case in == len(names) && inZone == "":
			inZone = fam
		case in == 0 && len(names) <= 5 && elsewhere == "":
			slices.Sort(names)
			zs := slices.Sorted(slices.Values(zones[names[0]]))
			elsewhere, first, offered = fam, names[0], strings.Join(zs, ", ")
		}
	}
	if inZone == "" || elsewhere == "" {
		t.Fatalf("the emulator's x86 EFA families do not split on %s (all in it: %q, none in it: %q)", zone, inZone, elsewhere)
	}
	return inZone, elsewhere, first, offered
}

// A class written as the tutorial writes it, with no connectivity block, on a node group that does
// not admit its own traffic: the node-to-node check runs by default and says so. Before, checks
// ran only when the block was set.
func TestAccFindings_nodeToNodeCheckedByDefault(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	n := acctest.NewNetwork(t, acctest.NetworkSpec{
		ExtraSubnetTags:        map[int]map[string]string{0: disc, 1: disc, 2: disc},
		ExtraSecurityGroupTags: map[int]map[string]string{0: disc},
		NoNodeToNode:           true,
	})
	got := planWarnings(t, nodeClassConfig(cluster, ""))
	wantWarning(t, got, "Nodes cannot reach each other", "security_group_selector_terms", n.SecurityGroups[0].ID)
	if off := planWarnings(t, nodeClassConfig(cluster, `  connectivity = { checks = "off" }`)); len(off["Nodes cannot reach each other"]) != 0 {
		t.Errorf("checks off still warns: %v", off)
	}
}
