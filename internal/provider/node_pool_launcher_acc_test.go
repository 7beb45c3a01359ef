package provider

import (
	"regexp"
	"strings"
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
	config := func(provider string, extra ...string) string {
		replicas, limit := "3", "3"
		if len(extra) > 0 { // spread over the zones
			replicas, limit = "5", "8"
		}
		return provider + `
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "static"
  node_class = karpenter_node_class.test.resolved
  replicas   = ` + replicas + `
  launcher   = "karpenter"
  limits     = { nodes = "` + limit + `" }
  ` + strings.Join(extra, "\n  ") + `
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
			{
				Config:      strings.Replace(config(withGates(providerConfig(cluster), "StaticCapacity"), `spread = "zones"`), `launcher   = "karpenter"`, `launcher   = "provider"`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid node pool.*spread = "zones" splits the replicas of a static pool`),
			},
			{
				// One NodePool per zone: 5 replicas as 2, 2, 1 and the headroom of limits.nodes 8 as 1 each.
				Config: config(withGates(providerConfig(cluster), "StaticCapacity"), `spread = "zones"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodePoolRes, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifest"), knownvalue.Null()),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("manifests"), knownvalue.MapExact(map[string]knownvalue.Check{
						"ap-southeast-1a": knownvalue.StringRegexp(regexp.MustCompile(`(?s)name: static-ap-southeast-1a\n.*` +
							`key: topology.kubernetes.io/zone\n *operator: In\n *values: \[ap-southeast-1a\].*nodes: "3"\n.*replicas: 2\n`)),
						"ap-southeast-1b": knownvalue.StringRegexp(regexp.MustCompile(`(?s)name: static-ap-southeast-1b\n.*replicas: 2\n`)),
						"ap-southeast-1c": knownvalue.StringRegexp(regexp.MustCompile(`(?s)name: static-ap-southeast-1c\n.*nodes: "2"\n.*replicas: 1\n`)),
					})),
				}},
			},
			{Config: config(withGates(providerConfig(cluster), "StaticCapacity"), `spread = "zones"`), PlanOnly: true},
		},
	})
}
