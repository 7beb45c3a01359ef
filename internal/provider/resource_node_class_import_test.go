package provider

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// nodeClassImportUnknowable lists what `terraform import` cannot know for the config of
// nodeClassConfig(cluster, ""). The import ID (the name) is all there is to read: the imported
// state holds `id` and `name`, and Read keeps them. The rest appears at the next plan, which
// reads the configuration:
//   - `owner_id`: the class has `role` but no instance profile for static pools, so no profile
//     of the provider's names its owner id (with one, the import adopts it: TestAccNodeClass_importAdoptsProfile);
//   - the arguments of that config: `role`, `ami_selector_terms`, and `metadata_options` (the
//     schema default, applied at plan like any other default);
//   - the resolution ModifyPlan computes from them and EC2: `vpc_id`, `subnets`,
//     `security_groups`, `zones`, `resolved`, `manifest`, `connectivity_report` (the
//     default node-to-node check) and `node_role_report` (the node role's policies).
//
// Null or empty attributes (pod_subnets, capacity_reservations, placement_group and the unset
// arguments) compare equal without being listed.
var nodeClassImportUnknowable = []string{
	"owner_id", "role", "ami_selector_terms", "metadata_options",
	"vpc_id", "subnets", "security_groups", "zones", "resolved", "manifest", "connectivity_report", "node_role_report",
}

// invalidImportID matches the import error for id, whatever the line wrapping of Terraform's output.
func invalidImportID(id string) *regexp.Regexp {
	return regexp.MustCompile(`Invalid import ID(?s:.*)` + regexp.QuoteMeta(strconv.Quote(id)) +
		`\s+is\s+not\s+a\s+valid\s+Kubernetes\s+object\s+name\s+\(lower-case\s+DNS\s+subdomain`)
}

// nodeClassImportBlock adopts karpenter_node_class.test by name in configuration (Terraform 1.5).
func nodeClassImportBlock(id string) string {
	return fmt.Sprintf(`
import {
  to = %s
  id = %q
}
`, nodeClassRes, id)
}

// nodeClassResolutionPlanned checks that a plan carries the resolution of discoveryNetwork's
// three subnets and node group.
func nodeClassResolutionPlanned(n *acctest.Network) []plancheck.PlanCheck {
	a, b, c := n.Subnets[0], n.Subnets[1], n.Subnets[2]
	return []plancheck.PlanCheck{
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("id"), knownvalue.StringExact("default")),
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("vpc_id"), knownvalue.StringExact(n.VPCID)),
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("zones"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.StringExact(a.Zone), knownvalue.StringExact(b.Zone), knownvalue.StringExact(c.Zone)})),
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("security_groups").AtSliceIndex(0).AtMapKey("id"),
			knownvalue.StringExact(n.SecurityGroups[0].ID)),
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(3)),
		plancheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("manifest"), knownvalue.NotNull()),
	}
}

func TestAccNodeClass_import(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	cfg := nodeClassConfig(cluster, "")

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				// `terraform import karpenter_node_class.test default`: id and name, nothing else.
				ResourceName:            nodeClassRes,
				ImportState:             true,
				ImportStateId:           "default",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: nodeClassImportUnknowable,
			},
			{
				// An `import {}` block: the plan adopts the class and updates it in place (no
				// destroy, no replace) with the resolution, known in the plan.
				ResourceName:       nodeClassRes,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ImportStateId:      "default",
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: append([]plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
				}, nodeClassResolutionPlanned(n)...)},
			},
			{
				// Not a Kubernetes object name: the import fails on the ID, before any plan.
				ResourceName:  nodeClassRes,
				ImportState:   true,
				ImportStateId: "Default_Class",
				ExpectError:   invalidImportID("Default_Class"),
			},
		},
	})
}

// TestAccNodeClass_importOnly adopts a class that Terraform never created: the configuration
// carries an `import {}` block from the start. The plan is an in-place update that records the
// resolution, applying it makes no mutating AWS call (a class with `role` and no static pools of
// the provider's has no instance profile of the provider's: Karpenter keeps its own), and the
// plan after it is empty.
func TestAccNodeClass_importOnly(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	cfg := nodeClassConfig(cluster, "") + nodeClassImportBlock("default")
	rec := &callRecorder{}

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: append([]plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeClassRes, plancheck.ResourceActionUpdate),
				}, nodeClassResolutionPlanned(n)...)},
				Check: checkManifestValid(nodeClassRes),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("name"), knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("subnets"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue(nodeClassRes, tfjsonpath.New("metadata_options").AtMapKey("http_tokens"), knownvalue.StringExact("required")),
				},
			},
			{
				// After the import, the same configuration plans nothing.
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
	noMutatingCallsOf(t, rec, "EC2.", "importing a node class")
	noMutatingCallsOf(t, rec, "IAM.", "importing a node class")
}

// TestAccNodeClass_importInvalidName: an `import {}` block with an ID that is not a Kubernetes
// object name fails the plan with the import error.
func TestAccNodeClass_importInvalidName(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      nodeClassConfig(cluster, "") + nodeClassImportBlock("-default"),
				ExpectError: invalidImportID("-default"),
			},
		},
	})
}
