package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// cliBinary is a CLI `make tools` built into ./bin (scripts/build-cli.sh); acceptance runs fail
// without it, naming the fix.
func cliBinary(t *testing.T, name, target string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "..", "bin", name))
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		t.Fatalf("no %s in ./bin (%v): build it with `make tools` (scripts/build-cli.sh %s)", name, err, target)
	}
	return abs
}

// The core of the suite on the other CLIs the README promises — OpenTofu 1.12 and the oldest
// Terraform, 1.5.7 — while the whole suite runs on the newest (1.16): a class and a pool planned
// and applied with the next plan clean (the quickstart), a class imported from the cluster with
// generated configuration, drift in EC2 shown as an update, and the provider functions, which
// Terraform before 1.8 does not have (the README says so; the test holds it). `terraform query`
// is 1.14's (TestAccQuery_listsTheCluster).
func TestAccCLIVersions_coreSubset(t *testing.T) {
	api := kubeEnv(t)
	for _, cli := range []struct {
		name, bin string
		functions bool
	}{
		{"opentofu-1.12", cliBinary(t, "tofu-1.12", "tofu"), true},
		{"terraform-1.5", cliBinary(t, "terraform-1.5", "terraform-oldest"), false},
	} {
		t.Run(cli.name, func(t *testing.T) {
			t.Parallel()
			coreSubset(t, api, cli.bin, cli.functions)
		})
	}
}

func coreSubset(t *testing.T, api *kubeAPI, bin string, functions bool) {
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": "adopted-" + suffix, "annotations": map[string]string{"kubernetes.io/description": "kubectl"}},
		"spec": map[string]any{"instanceProfile": "test-instance-profile", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}})
	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), bin: bin}
	d.provider = requiredProviders +
		withKubeAccess(providerConfig(cluster), api)
	body := fmt.Sprintf(`
resource "karpenter_node_class" "quick" {
  name               = "quick-%[1]s"
  instance_profile   = "test-instance-profile"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "quick" {
  name       = "quick-%[1]s"
  node_class = karpenter_node_class.quick.resolved
  limits     = { cpu = "100" }
  template = {
    requirements = [{ key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] }]
  }
}

import {
  to       = karpenter_node_class.adopted
  provider = karpenter
  id       = "adopted-%[1]s"
}

output "first_types" { value = karpenter_node_pool.quick.summary.first_instance_types }
`, suffix)
	functionCall := "\noutput \"max_pods\" { value = provider::karpenter::max_pods(\"m5.large\", { prefix_delegation = true }) }\n"
	if !functions {
		d.write(body + functionCall)
		if out, code := d.exit("validate"); code == 0 || !strings.Contains(out, "provider::karpenter::max_pods") {
			t.Errorf("a provider function before Terraform 1.8: exit %d, want a refusal naming it\n%s", code, out)
		}
		functionCall = ""
	}
	body = strings.Replace(body, "  provider = karpenter\n", "", 1) // see TestAccImport_fromCluster
	if functions {
		d.write(strings.Replace(body, "  to       = karpenter_node_class.adopted\n", "  to       = karpenter_node_class.adopted\n  provider = karpenter\n", 1) + functionCall)
		d.run("plan", "-generate-config-out=generated.tf")
		gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
		if err != nil || !strings.Contains(string(gen), `"kubernetes.io/description" = "kubectl"`) {
			t.Fatalf("generated.tf (%v):\n%s", err, gen)
		}
	} else {
		// Terraform 1.5's experimental generator crashes on nested attributes (its configschema
		// Filter), so there the imported class is written by hand, as the import reads it.
		body += fmt.Sprintf(adoptedClassConfig, suffix, cluster)
	}
	d.write(body + functionCall)
	out := d.run("apply", "-auto-approve")
	t.Cleanup(func() { d.run("destroy", "-auto-approve") })
	wants := []string{"1 imported, 2 added, 0 changed", "first_types = "}
	if functions {
		wants = append(wants, "max_pods = 110")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("apply lacks %q:\n%s", want, out)
		}
	}
	d.plan(0)
	acctest.UntagSubnet(t, n.Subnets[2].ID, "karpenter.sh/discovery") // drift: the selectors now hit two subnets
	if out := d.plan(2); !strings.Contains(out, n.Subnets[2].ID) {
		t.Errorf("the drift plan does not name the untagged subnet %s:\n%s", n.Subnets[2].ID, out)
	}
}

// adoptedClassConfig is the kubectl-made class of coreSubset as a person writes it.
const adoptedClassConfig = `
resource "karpenter_node_class" "adopted" {
  name                          = "adopted-%[1]s"
  instance_profile              = "test-instance-profile"
  ami_selector_terms            = [{ alias = "al2023@latest" }]
  subnet_selector_terms         = [{ tags = { "karpenter.sh/discovery" = %[2]q } }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = %[2]q } }]
  metadata                      = { annotations = { "kubernetes.io/description" = "kubectl" } }
}
`
