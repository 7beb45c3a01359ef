package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

const autoModeClassRes = "karpenter_auto_mode_node_class.test"

// An Auto Mode NodeClass plans against EC2: the guide's rules fail the plan on their attributes
// before any AWS call (a reserved name, role with instance_profile, a pod subnet missing in a node
// zone after resolution), and a valid class plans its subnets, pod subnets and reference, applies,
// plans clean and imports by name.
func TestAccAutoModeNodeClass_planApplyImport(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	a := n.Subnets[0]
	config := func(name, body string) string {
		return providerConfig(cluster) + fmt.Sprintf(`
resource "karpenter_auto_mode_node_class" "test" {
  name                          = %q
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]
%s
}
`, name, cluster, body)
	}
	nodesInA := fmt.Sprintf(`  role                              = "AmazonEKSAutoNodeRole"
  subnet_selector_terms             = [{ id = %q }]
  pod_subnet_selector_terms         = [{ id = %q }]
  pod_security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]
  ephemeral_storage                 = { size = "100Gi", iops = 4000 }
  advanced_networking               = { ipv4_prefix_size = "32" }
  tags                              = { team = "platform" }`, a.ID, a.ID, cluster)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		// The class creates nothing in AWS: after destroy the cluster holds no object of the provider.
		CheckDestroy: checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config:      config("default", nodesInA),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Reserved NodeClass name[\s\S]*with karpenter_auto_mode_node_class.test[\s\S]*name`),
			},
			{
				Config:      config("private", nodesInA+"\n  instance_profile = \"eks-nodes\""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`exactly one of role and instanceProfile`),
			},
			{
				Config:      config("private", nodesInA+"\n  snat_policy = \"random\""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)snat_policy.*Unsupported value: "random"`),
			},
			{
				// A static layout whose primary ENI is efa-only, which the guide refuses.
				Config: config("private", strings.Replace(nodesInA, `advanced_networking               = { ipv4_prefix_size = "32" }`, `advanced_networking = {
    ipv4_prefix_size   = "32"
    network_interfaces = [{ network_card_index = 0, device_index = 0, interface_type = "efa-only" }]
  }`, 1)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)advanced_networking.network_interfaces.*primary\s+ENI\s+\(networkCardIndex\s+0,\s+deviceIndex\s+0\)\s+must\s+use\s+interfaceType\s+interface`),
			},
			{
				// Node subnets in three zones by the discovery tag, a pod subnet in one.
				Config: config("private", fmt.Sprintf(`  role = "AmazonEKSAutoNodeRole"
  subnet_selector_terms             = [{ tags = { "karpenter.sh/discovery" = %q } }]
  pod_subnet_selector_terms         = [{ id = %q }]
  pod_security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]`, cluster, a.ID, cluster)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`No pod subnet in a node zone[\s\S]*` + n.Subnets[1].Zone),
			},
			{
				Config: config("private", nodesInA),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(autoModeClassRes, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("subnets").AtMapKey(a.ID).AtMapKey("zone"), knownvalue.StringExact(a.Zone)),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("pod_subnets").AtMapKey(a.Zone).AtMapKey("id"), knownvalue.StringExact(a.ID)),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("pod_security_group_ids"), knownvalue.ListSizeExact(1)),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("resolved").AtMapKey("group"), knownvalue.StringExact("eks.amazonaws.com")),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("resolved").AtMapKey("kind"), knownvalue.StringExact("NodeClass")),
					plancheck.ExpectKnownValue(autoModeClassRes, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
						`(?s)^apiVersion: eks.amazonaws.com/v1\nkind: NodeClass\nmetadata:\n  name: private\nspec:\n  role: AmazonEKSAutoNodeRole\n.*ipv4PrefixSize: "32"`))),
				}},
			},
			{
				Config:   config("private", nodesInA),
				PlanOnly: true, // clean: the recorded resolution is what EC2 answers again
			},
			{
				ResourceName:  autoModeClassRes,
				ImportState:   true,
				ImportStateId: "private",
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].Attributes["name"] != "private" || states[0].ID != "private" {
						return fmt.Errorf("imported %+v", states)
					}
					return nil
				},
			},
		},
	})
}

// autoModePoolConfig is an Auto Mode class on subnet and a pool on it, with the provider's EC2
// endpoint ec2 ("" for LocalStack's).
func autoModePoolConfig(cluster, subnetID, ec2, poolBody string) string {
	provider := providerConfig(cluster)
	if ec2 != "" {
		provider = providerConfigEC2(cluster, ec2)
	}
	return provider + fmt.Sprintf(`
resource "karpenter_auto_mode_node_class" "test" {
  name                          = "private"
  role                          = "AmazonEKSAutoNodeRole"
  subnet_selector_terms         = [{ id = %q }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_auto_mode_node_class.test.resolved
%s
}
`, subnetID, cluster, poolBody)
}

// A pool on an Auto Mode NodeClass plans as Auto Mode launches: its NodePool names the
// eks.amazonaws.com NodeClass, its requirements read Auto Mode's labels, max pods are capped at
// 110, a Karpenter label is refused naming Auto Mode's, and a subnet without enough free /28
// blocks for its nodes is a warning (Auto Mode's prefixes are /28s by default). Every step only
// plans: nothing is created in AWS.
func TestAccAutoModeNodePool_plan(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	subnet := n.Subnets[0]
	pool := func(key string) string {
		return fmt.Sprintf(`  limits   = { nodes = "1" }
  template = {
    requirements = [
      { key = %q, operator = "In", values = ["m5"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }`, key)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      autoModePoolConfig(cluster, subnet.ID, "", pool("karpenter.k8s.aws/instance-family")),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Label of another kind of node class.*eks.amazonaws.com/instance-family\s+instead of\s+karpenter.k8s.aws/instance-family`),
			},
			{
				Config:             autoModePoolConfig(cluster, subnet.ID, "", pool("eks.amazonaws.com/instance-family")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(
						`nodeClassRef:\n\s+group: eks.amazonaws.com\n\s+kind: NodeClass\n\s+name: private\n`))),
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("summary").AtMapKey("max_pods_max"), knownvalue.Int64Exact(110)),
					plancheck.ExpectKnownValue("karpenter_node_pool.test", tfjsonpath.New("summary").AtMapKey("launch_templates"), knownvalue.Int64Exact(0)),
				}},
			},
		},
	})

	// A fragmented subnet: one address in each usable /28 block, 237 IPs still free.
	stub := acctest.NewPrefixStub(t)
	stub.SetInterfaces(fragmentingInterface("eni-0aaaaaaaaaaaaaaa2", subnet.ID, subnet.CIDR))
	got := suitePlanWarnings(t, autoModePoolConfig(cluster, subnet.ID, stub.URL(), pool("eks.amazonaws.com/instance-family")))
	wantWarning(t, got, planner.SummaryFragmentedSubnets, "limits", subnet.ID+" ("+subnet.Zone+") has 0 free /28 blocks of 16",
		"EKS Auto Mode then gives a node secondary IPs instead")
}

// An Auto Mode NodeClass's placement group resolves at plan; one that does not exist fails it,
// since Auto Mode would launch nothing from the class. LocalStack has no placement groups: the
// provider's EC2 endpoint is acctest.CapacityStub, which serves them and forwards the rest. Plan
// only: nothing is created.
func TestAccAutoModeNodeClass_placementGroup(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	stub := acctest.NewCapacityStub(t)
	stub.SetPlacementGroups(acctest.StubPlacementGroup{ID: "pg-0a1b2c3d4e5f60719", Name: "ml-training-pg", Strategy: "cluster", State: "available"})
	config := func(group string) string {
		return providerConfigEC2(cluster, stub.URL()) + fmt.Sprintf(`
resource "karpenter_auto_mode_node_class" "test" {
  name                          = "efa"
  role                          = "AmazonEKSAutoNodeRole"
  subnet_selector_terms         = [{ id = %q }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %q } }]
  placement_group_selector      = { name = %q }
}
`, n.Subnets[0].ID, cluster, group)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      config("no-such-group"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)placement_group_selector.*no-such-group`),
			},
			{
				Config:             config("ml-training-pg"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
	if stub.Calls("DescribePlacementGroups") < 2 {
		t.Errorf("the plans did not read the placement groups: %s", stub)
	}
}
