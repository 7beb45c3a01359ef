package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// TestAccNodeClass_selectorKnownAfterApply: a subnet selector whose id comes from a resource of
// the same run (a subnet created alongside) cannot resolve at plan. The plan marks the
// resolution and the pool's plan unknown instead of failing, apply resolves and checks it in one
// run, and a selector that matches nothing once known fails that apply with the plan's error.
func TestAccNodeClass_selectorKnownAfterApply(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	config := func(subnetID string) string {
		return providerConfig(cluster) + fmt.Sprintf(`
resource "terraform_data" "subnet" {
  input = %q
}

resource "karpenter_node_class" "test" {
  name                  = "late-subnet"
  role                  = "KarpenterNodeRole"
  ami_selector_terms    = [{ alias = "al2023@latest" }]
  subnet_selector_terms = [{ id = terraform_data.subnet.output }]
}

resource "karpenter_node_pool" "test" {
  name       = "late-subnet"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }, { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] }]
  }
}
`, subnetID)
	}
	subnet := n.Subnets[1]
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: config(subnet.ID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("subnets")),
					plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("resolved")),
					plancheck.ExpectUnknownValue(nodePoolRes, tfjsonpath.New("summary")),
					plancheck.ExpectUnknownValue(nodePoolRes, tfjsonpath.New("zones")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(nodeClassRes, "subnets.#", "1"),
					resource.TestCheckResourceAttr(nodeClassRes, "subnets.0.id", subnet.ID),
					resource.TestCheckResourceAttr(nodePoolRes, "zones.%", "1"),
					resource.TestCheckResourceAttr(nodePoolRes, "zones."+subnet.Zone+".subnet_id", subnet.ID),
					resource.TestCheckResourceAttr(nodePoolRes, "summary.first_instance_types", "m5.large 0.096 on-demand (USD/h)"),
					checkManifestValid(nodeClassRes), checkManifestValid(nodePoolRes),
				),
			},
			{
				// Known at apply, the selector matches nothing: the apply fails with the check
				// the plan would have run, and the class keeps its state.
				Config:      config("subnet-0000000000000dead"),
				ExpectError: regexp.MustCompile(`no subnet matched the 1 subnet selector terms`),
			},
			{
				// Back to the real subnet: one apply again, and the state names it.
				Config: config(subnet.ID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(subnet.ID)),
					statecheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones").AtMapKey(subnet.Zone).AtMapKey("subnet_id"), knownvalue.StringExact(subnet.ID)),
				},
			},
		},
	})
}

// TestAccNodeClass_lateValues: the class's role, user data and a tag value come from a resource
// of the same run (as with terraform-aws-eks's karpenter submodule). None of them moves a planned
// number, so the class's resolution and the pool's plan are known at plan; the YAML manifest
// waits, and the manifest object is known but for exactly those fields, so kubernetes_manifest
// can plan it.
func TestAccNodeClass_lateValues(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	config := providerConfig(cluster) + `
resource "terraform_data" "late" {
  input = { role = "KarpenterNodeRole", team = "ml", user_data = "echo late" }
}

resource "karpenter_node_class" "test" {
  name               = "late"
  role               = terraform_data.late.output.role
  user_data          = terraform_data.late.output.user_data
  instance_profile_for_static_pools = true
  tags               = { team = terraform_data.late.output.team, tier = "gpu" }
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "late"
  node_class = karpenter_node_class.test.resolved
  details    = true
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }, { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] }]
  }
}
`
	obj := tfjsonpath.New("manifest_object")
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("role")),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(3)),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListSizeExact(3)),
				// The instance profile the class creates for the role (for static pools) is named at
				// plan, role or not.
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("instance_profile"),
					knownvalue.StringRegexp(regexp.MustCompile(`^nodeplane-`+cluster+`-late-[0-9a-f]{10}$`))),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("resolution"), knownvalue.NotNull()),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("fingerprint"), knownvalue.NotNull()),
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("user_data")),
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("tags").AtMapKey("team")),
				plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("resolved").AtMapKey("tags").AtMapKey("tier"), knownvalue.StringExact("gpu")),
				plancheck.ExpectUnknownValue(nodeClassRes, tfjsonpath.New("manifest")),
				plancheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("kind"), knownvalue.StringExact("EC2NodeClass")),
				plancheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("amiSelectorTerms").AtSliceIndex(0).AtMapKey("alias"),
					knownvalue.StringExact("al2023@latest")),
				plancheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("tags").AtMapKey("tier"), knownvalue.StringExact("gpu")),
				plancheck.ExpectUnknownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("role")),
				plancheck.ExpectUnknownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("userData")),
				plancheck.ExpectUnknownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("tags").AtMapKey("team")),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("instance_types"), knownvalue.Int64Exact(1)),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"), knownvalue.StringExact("m5.large 0.096 on-demand (USD/h)")),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("zones"), knownvalue.MapSizeExact(3)),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_plan"), knownvalue.ListSizeExact(3)),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("max_pods").AtMapKey("m5.large"), knownvalue.Int64Exact(29)),
				// The templates' content names the user data, so they wait for it.
				plancheck.ExpectUnknownValue(nodePoolRes, tfjsonpath.New("launch_templates")),
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifest"), knownvalue.NotNull()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("role"), knownvalue.StringExact("KarpenterNodeRole")),
				statecheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("userData"), knownvalue.StringExact("echo late")),
				statecheck.ExpectKnownValue(nodeClassRes, obj.AtMapKey("spec").AtMapKey("tags").AtMapKey("team"), knownvalue.StringExact("ml")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(nodeClassRes, "role", "KarpenterNodeRole"),
				resource.TestMatchResourceAttr(nodeClassRes, "manifest", regexp.MustCompile(`role: KarpenterNodeRole\n`)),
				checkManifestValid(nodeClassRes),
			),
		}},
	})
}
