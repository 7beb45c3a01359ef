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

// withKarpenterVersion sets the provider's karpenter_version in a provider block.
func withKarpenterVersion(providerBlock, version string) string {
	out := strings.Replace(providerBlock, "provider \"karpenter\" {", fmt.Sprintf("provider \"karpenter\" {\n  karpenter_version = %q", version), 1)
	if out == providerBlock {
		panic("no provider block")
	}
	return out
}

// A plan for a cluster on an older Karpenter refuses the attributes its CRDs lack, on the
// attribute, naming the first version that has the field.
func TestAccKarpenterVersion_refusesNewerFields(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	class := func(body string) string {
		return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "versions"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}
`, body)
	}
	nics := `  network_interfaces = [{ network_card_index = 0, device_index = 0, interface_type = "interface" }]`
	runBadInputs(t, withKarpenterVersion(providerConfig(cluster), "1.9"), []badCase{
		{"v1.9: network_interfaces", class(nics), "network_interfaces", `Karpenter 1.9's EC2NodeClass has no spec.networkInterfaces; it first appears in Karpenter 1.11`},
		{"v1.9: placement_group", class(`  placement_group_selector = { name = "pg" }`), "placement_group_selector", "first appears in Karpenter 1.11"},
		{"v1.9: cpu_options", class(`  cpu_options = { nested_virtualization = "enabled" }`), "cpu_options", "first appears in Karpenter 1.13"},
	})
	runBadInputs(t, withKarpenterVersion(providerConfig(cluster), "1.12"), []badCase{
		{"v1.12: connection_tracking", class(`  connection_tracking = { tcp_established_timeout = 3600 }`), "connection_tracking", "first appears in Karpenter 1.13"},
	})
}

// Keys the API server admits but Karpenter's runtime validation refuses (a name part over 63
// characters) fail the plan on their attribute, for the oldest and the newest version: taint
// keys through the ported runtime validation, label keys already through the pool's own checks.
func TestAccKarpenterVersion_runtimeValidation(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	long := "example.com/" + strings.Repeat("k", 64)
	pool := func(template string) string {
		return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }]
%s
  }
}
`, template)
	}
	for _, v := range []string{"1.9", "1.15"} {
		runBadInputs(t, withKarpenterVersion(providerConfig(cluster), v), []badCase{
			{"v" + v + ": taint key too long", pool(fmt.Sprintf(`    taints = [{ key = %q, effect = "NoSchedule" }]`, long)),
				"template.taints[0].key", "name part must be no more than 63 characters"},
			{"v" + v + ": label key too long", pool(fmt.Sprintf(`    labels = { %q = "v" }`, long)),
				fmt.Sprintf("template.labels[%q]", long), "the name part is 64 characters long; the maximum is 63"},
			{"v" + v + ": startup taint key too long", pool(fmt.Sprintf(`    startup_taints = [{ key = %q, effect = "NoSchedule" }]`, long)),
				"template.startup_taints[0].key", "name part must be no more than 63 characters"},
		})
	}
}

// A v1.15 cluster: free-form kubelet fields and a reserved-resource expression render into the
// manifest, a misspelled field fails the plan where the API server would accept it, and the
// maxPods expression is evaluated per type (vcpus * 8: m5.large 16, m5.xlarge 32) into the
// pool's max pods.
func TestAccKarpenterVersion_v115Kubelet(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	provider := strings.Replace(withKarpenterVersion(providerConfig(cluster), "1.15"), "provider \"karpenter\" {",
		"provider \"karpenter\" {\n  karpenter_feature_gates = [\"NodeClassCEL\"]", 1)
	config := func(kubelet string) string {
		return provider + fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  kubelet            = %s
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  details    = true
  template = {
    requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] }]
  }
}
`, kubelet)
	}
	good := `{
    max_pods_expression = "vcpus * 8"
    kube_reserved       = { cpu = "vcpus * 30", memory = "1Gi" }
    config              = { serializeImagePulls = false, containerLogMaxSize = "50Mi" }
  }`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config:      config(`{ config = { serializeImagePull = false } }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`serializeImagePull[\s\S]*did you mean[\s\S]*"serializeImagePulls"`),
			},
			{
				Config: config(good),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("max_pods"), knownvalue.MapExact(map[string]knownvalue.Check{
						"m5.large": knownvalue.Int64Exact(16), "m5.xlarge": knownvalue.Int64Exact(32),
					})),
					plancheck.ExpectKnownValue("karpenter_node_class.test", tfjsonpath.New("manifest"), knownvalue.StringRegexp(
						regexp.MustCompile(`(?s)kubelet:\n    kubeReserved:\n      cpu: "?vcpus \* 30"?\n      memory: 1Gi\n    containerLogMaxSize: 50Mi\n    maxPods: vcpus \* 8\n    serializeImagePulls: false\n`))),
				}},
			},
		},
	})
}
