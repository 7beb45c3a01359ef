package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

const nodeOverlayRes = "karpenter_node_overlay.test"

// withGates adds karpenter_feature_gates to a provider block.
func withGates(providerBlock string, gates ...string) string {
	return strings.Replace(providerBlock, "provider \"karpenter\" {",
		fmt.Sprintf("provider \"karpenter\" {\n  karpenter_feature_gates = [%q]", strings.Join(gates, `", "`)), 1)
}

// A -90 % NodeOverlay on m5.xlarge puts it before m5.large in the pool's launch and cost; the
// summary names the overlay; bad overlays and a missing feature gate fail the plan on their
// attributes, before the overlay or the pool exists.
func TestAccNodeOverlay_priceReordersLaunch(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	config := func(provider, overlay string) string {
		return provider + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_overlay" "test" {
  name         = "cheap-m5-xlarge"
  requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.xlarge"] }]
%s
}

resource "karpenter_node_pool" "test" {
  name          = "general"
  node_class    = karpenter_node_class.test.resolved
  node_overlays = [karpenter_node_overlay.test.resolved]
  limits        = { nodes = "10" }
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
}
`, overlay)
	}
	gated := withGates(providerConfig(cluster), "NodeOverlay")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config:      config(providerConfig(cluster), `  price_adjustment = "-90%"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`NodeOverlay feature gate off[\s\S]*karpenter_feature_gates`),
			},
			{
				Config:      config(gated, "  price_adjustment = \"-90%\"\n  price = \"0.01\""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`price_adjustment[\s\S]*set price or\s+price_adjustment, not both`),
			},
			{
				Config:      config(gated, `  price_adjustment = "90%"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`price_adjustment[\s\S]*not one of\s+Karpenter.s\s+forms`),
			},
			{
				Config:      config(gated, `  capacity = { memory = "1Gi" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`capacity\["memory"\][\s\S]*extended\s+resources only`),
			},
			{
				Config: config(gated, `  price_adjustment = "-90%"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("node_overlays"),
						knownvalue.StringExact("cheap-m5-xlarge (price -90%) on m5.xlarge")),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"),
						knownvalue.StringRegexp(regexp.MustCompile(`^m5\.xlarge 0\.0192 on-demand, m5\.large `))),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("cost"),
						knownvalue.StringRegexp(regexp.MustCompile(`at most 10 × m5\.xlarge, 0\.19 USD/h`))),
					plancheck.ExpectKnownValue(nodeOverlayRes, tfjsonpath.New("manifest"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?s)apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\n.*priceAdjustment: -90%`))),
				}},
			},
			{ // planned again with nothing changed: no diff
				Config:   config(gated, `  price_adjustment = "-90%"`),
				PlanOnly: true,
			},
		},
	})
}

// lookup_cluster reads the cluster's facts with eks:DescribeCluster (a stub: LocalStack has no
// EKS): a pool's planned user data carries the looked-up endpoint.
func TestAccProvider_lookupCluster(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	eks := acctest.NewEKSStub(t, acctest.EKSCluster{Name: cluster, Endpoint: "https://LOOKEDUP0123456789.gr7.ap-southeast-1.eks.amazonaws.com",
		CAData: testClusterCA, Version: "1.33", ServiceCIDR: "10.100.0.0/16"})
	provider := strings.Replace(providerConfig(""), "provider \"karpenter\" {\n", fmt.Sprintf("provider \"karpenter\" {\n  cluster_name = %q\n  lookup_cluster = true\n", cluster), 1)
	provider = strings.Replace(provider, "    iam = ", fmt.Sprintf("    eks = %q\n    iam = ", eks.URL), 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			Config: provider + `
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  details    = true
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("launch_templates").AtSliceIndex(0).AtMapKey("user_data"),
					knownvalue.StringRegexp(regexp.MustCompile(`LOOKEDUP0123456789`))),
			}},
		}},
	})
}
