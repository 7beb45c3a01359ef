package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// A static pool Karpenter launches: refused without the StaticCapacity gate, then its NodePool
// carries replicas, the cost counts them, apply creates nothing in EC2 (CheckDestroy finds the
// cluster clean) and limits.nodes at replicas is a warning, not an error.
func TestAccNodePool_karpenterLauncher(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	config := func(provider string) string {
		return provider + `
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "static"
  node_class = karpenter_node_class.test.resolved
  replicas   = 3
  launcher   = "karpenter"
  limits     = { nodes = "3" }
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config:      config(providerConfig(cluster)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`StaticCapacity feature gate off[\s\S]*launcher`),
			},
			{
				Config: config(withGates(providerConfig(cluster), "StaticCapacity")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifest"), knownvalue.StringRegexp(regexp.MustCompile(`(?m)^  replicas: 3$`))),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("cost"),
						knownvalue.StringRegexp(regexp.MustCompile(`^3 replicas × m5\.large on-demand`))),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("nodes"), knownvalue.Null()),
				}},
			},
			{Config: config(withGates(providerConfig(cluster), "StaticCapacity")), PlanOnly: true},
		},
	})
}
