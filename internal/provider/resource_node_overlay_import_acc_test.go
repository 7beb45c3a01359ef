package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

const overlaysCollection = "/apis/karpenter.sh/v1alpha1/nodeoverlays"

// putOverlays creates the test's NodeOverlays on the test API server (deleted when the test
// ends; no controller runs there): gpu-<suffix> with every field, flat-<suffix> with an absolute
// price only, and bad-<suffix>, which the API server admits but the provider refuses (an Exists
// requirement with values). All carry the label test-run=<suffix>.
func putOverlays(t *testing.T, api *kubeAPI, suffix string) {
	t.Helper()
	run := map[string]any{"test-run": suffix}
	putObject(t, api, overlaysCollection, map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
		"metadata": map[string]any{"name": "gpu-" + suffix, "labels": map[string]any{"test-run": suffix, "team": "ml"},
			"annotations": map[string]any{"kubernetes.io/description": "Devices of the m5 nodes",
				"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
		"spec": map[string]any{
			"requirements": []any{
				map[string]any{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": []any{"m5", "m6i"}},
				map[string]any{"key": "karpenter.sh/capacity-type", "operator": "NotIn", "values": []any{"spot"}},
				map[string]any{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": []any{"1"}},
				map[string]any{"key": "example.com/accelerated", "operator": "Exists"},
			},
			"priceAdjustment": "-10%", "capacity": map[string]any{"example.com/device": 2, "example.com/memory": "10Gi"}, "weight": 20}})
	putObject(t, api, overlaysCollection, map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
		"metadata": map[string]any{"name": "flat-" + suffix, "labels": run},
		"spec": map[string]any{"requirements": []any{map[string]any{"key": "node.kubernetes.io/instance-type", "operator": "In",
			"values": []any{"m5.large"}}}, "price": "0.05"}})
	putObject(t, api, overlaysCollection, map[string]any{"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
		"metadata": map[string]any{"name": "bad-" + suffix, "labels": run},
		"spec": map[string]any{"requirements": []any{map[string]any{"key": "example.com/accelerated", "operator": "Exists",
			"values": []any{"yes"}}}, "price": "0.05"}})
}

// gpuOverlayConfig is gpu-<suffix> as a configuration writes it.
func gpuOverlayConfig(suffix string) string {
	return fmt.Sprintf(`
resource "karpenter_node_overlay" "test" {
  name = "gpu-%s"
  metadata = {
    labels      = { test-run = %[1]q, team = "ml" }
    annotations = { "kubernetes.io/description" = "Devices of the m5 nodes" }
  }
  requirements = [
    { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5", "m6i"] },
    { key = "karpenter.sh/capacity-type", operator = "NotIn", values = ["spot"] },
    { key = "karpenter.k8s.aws/instance-cpu", operator = "Gt", values = ["1"] },
    { key = "example.com/accelerated", operator = "Exists" },
  ]
  price_adjustment = "-10%%"
  capacity         = { "example.com/device" = "2", "example.com/memory" = "10Gi" }
  weight           = 20
}
`, suffix)
}

// A NodeOverlay written with kubectl imports with every field: `terraform import` gives the
// state the configuration gives (ImportStateVerify, nothing ignored), and an import block by
// identity plans no change against that configuration.
func TestAccNodeOverlay_importVerify(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	suffix := strings.TrimPrefix(cluster, "cluster-")
	putOverlays(t, api, suffix)
	cfg := withGates(withKubeAccess(providerConfig(cluster), api), "NodeOverlay") + gpuOverlayConfig(suffix)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				ResourceName:      nodeOverlayRes,
				ImportState:       true,
				ImportStateId:     "gpu-" + suffix,
				ImportStateVerify: true,
			},
			{
				ResourceName:    nodeOverlayRes,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nodeOverlayRes, plancheck.ResourceActionNoop),
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// The adoption path of NodeOverlays written with kubectl: an import block by name, `terraform
// plan -generate-config-out` writes the overlay with every field (and says what it leaves to the
// cluster), the plan of the written configuration imports it with no change, and after the apply
// the plan is clean. An overlay the provider refuses fails its import naming the attribute, and
// so does any overlay without the NodeOverlay gate; without kubernetes access the import says it
// is by name only. `terraform query` lists the
// overlays of a label and writes each adoptable one as an import with its configuration; the one
// that cannot be adopted fails alone.
func TestAccNodeOverlay_importFromCluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	suffix := strings.TrimPrefix(cluster, "cluster-")
	putOverlays(t, api, suffix)
	provider := requiredProviders + withGates(withKubeAccess(providerConfig(cluster), api), "NodeOverlay")

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), provider: provider}
	// `provider` while generating, removed afterwards (see TestAccImport_fromCluster).
	imports := fmt.Sprintf("\nimport {\n  to       = karpenter_node_overlay.adopted\n  provider = karpenter\n  id       = %q\n}\n", "gpu-"+suffix)
	d.write(imports)
	out := oneLine(d.run("plan", "-generate-config-out=generated.tf"))
	for _, want := range []string{"Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.", "Imported NodeOverlay gpu-" + suffix + " from the cluster",
		"left to the cluster: kubectl.kubernetes.io/last-applied-configuration"} {
		if !strings.Contains(out, want) {
			t.Errorf("the import plan lacks %q:\n%s", want, out)
		}
	}
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name = "gpu-` + suffix + `"`, `key = "karpenter.k8s.aws/instance-family"`, `values = ["m5", "m6i"]`,
		`operator = "NotIn"`, `operator = "Gt"`, `key = "example.com/accelerated"`, `price_adjustment = "-10%"`, `"example.com/device" = "2"`,
		`"example.com/memory" = "10Gi"`, `weight = 20`, `team = "ml"`, `"kubernetes.io/description" = "Devices of the m5 nodes"`} {
		if !strings.Contains(oneLine(string(gen)), want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	for _, unwanted := range []string{"last-applied-configuration", "manifest ", "resolved "} {
		if strings.Contains(string(gen), unwanted) {
			t.Errorf("generated.tf writes %q:\n%s", unwanted, gen)
		}
	}
	d.write(strings.ReplaceAll(imports, "  provider = karpenter\n", ""))
	if out := oneLine(d.plan(2)); !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Errorf("the plan of the generated configuration changes the overlay:\n%s", out)
	}
	t.Cleanup(func() { d.run("destroy", "-auto-approve") })
	d.run("apply", "-auto-approve")
	d.plan(0)

	// What cannot be adopted, and what is adopted by name only.
	bad := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), provider: provider}
	bad.write(fmt.Sprintf("import {\n  to       = karpenter_node_overlay.x\n  provider = karpenter\n  id       = %q\n}\n", "bad-"+suffix))
	if out, code := bad.exit("plan", "-generate-config-out=generated.tf"); code != 1 || !strings.Contains(oneLine(out), "operator Exists takes no values") {
		t.Errorf("importing bad-%s: exit %d, want 1 and the refused requirement:\n%s", suffix, code, out)
	}
	ungated := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), provider: requiredProviders + withKubeAccess(providerConfig(cluster), api)}
	ungated.write(fmt.Sprintf("import {\n  to       = karpenter_node_overlay.x\n  provider = karpenter\n  id       = %q\n}\n", "flat-"+suffix))
	if out, code := ungated.exit("plan", "-generate-config-out=generated.tf"); code != 1 || !strings.Contains(oneLine(out), "NodeOverlay feature gate off") {
		t.Errorf("importing flat-%s without the NodeOverlay gate: exit %d, want 1 and the gate:\n%s", suffix, code, out)
	}
	blind := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), provider: requiredProviders + withGates(providerConfig(cluster), "NodeOverlay")}
	blind.write(fmt.Sprintf("import {\n  to       = karpenter_node_overlay.x\n  provider = karpenter\n  id       = %q\n}\n", "flat-"+suffix))
	if out, _ := blind.exit("plan", "-generate-config-out=generated.tf"); !strings.Contains(oneLine(out), "Imported by name only") ||
		!strings.Contains(oneLine(out), "get on nodeoverlays.karpenter.sh") {
		t.Errorf("importing without kubernetes access does not say it is by name only:\n%s", out)
	}

	queryOverlays(t, provider, suffix)
}

// queryOverlays runs `terraform query` (Terraform 1.16) over the overlays of putOverlays.
func queryOverlays(t *testing.T, provider, suffix string) {
	q := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), bin: newestTerraform(t), provider: provider}
	q.write("")
	query := fmt.Sprintf(`
list "karpenter_node_overlay" "run" {
  provider         = karpenter
  include_resource = true
  config {
    labels = { test-run = %q }
  }
}
`, suffix)
	if err := os.WriteFile(filepath.Join(q.dir, "search.tfquery.hcl"), []byte(query), 0o600); err != nil {
		t.Fatal(err)
	}
	raw := q.run("query", "-generate-config-out=generated.tf")
	out := oneLine(raw)
	for _, want := range []string{"list.karpenter_node_overlay.run name=gpu-" + suffix, "list.karpenter_node_overlay.run name=flat-" + suffix,
		"NodeOverlay bad-" + suffix + " not listed", "requirements[0].values: operator Exists takes no values"} {
		if !strings.Contains(out, want) {
			t.Errorf("the query lacks %q:\n%s", want, raw)
		}
	}
	gen, err := os.ReadFile(filepath.Join(q.dir, "generated.tf"))
	if err != nil {
		t.Fatalf("the query wrote no configuration: %v\n%s", err, raw)
	}
	g := oneLine(string(gen))
	for _, want := range []string{`identity = { name = "gpu-` + suffix + `" }`, `identity = { name = "flat-` + suffix + `" }`,
		`price = "0.05"`, `price_adjustment = "-10%"`, `weight = 20`} {
		if !strings.Contains(g, want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	if strings.Contains(g, "bad-"+suffix) {
		t.Errorf("generated.tf writes the overlay that cannot be adopted:\n%s", gen)
	}
	if out := q.run("apply", "-auto-approve"); !strings.Contains(out, "2 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("applying the generated imports:\n%s", out)
	}
	t.Cleanup(func() { q.run("destroy", "-auto-approve") })
	q.plan(0)
}
