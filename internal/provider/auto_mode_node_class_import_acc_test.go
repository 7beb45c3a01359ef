package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// The adoption path of an EKS Auto Mode NodeClass written with kubectl: the user guide's
// "Separate subnets and security groups for Pods" example (create-node-class.html), its tag
// selectors pointed at the test's network, is imported by an import block, `terraform plan
// -generate-config-out` writes it, and the plan of the written configuration imports it with no
// change; after the import the plan is clean, and the guide's sample NodePool (create-node-pool.html)
// plans on its `resolved`. `terraform query` lists the cluster's Auto Mode NodeClasses but `default`.
func TestAccAutoModeNodeClass_importFromCluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	name := "advanced-networking-" + strings.TrimPrefix(cluster, "cluster-")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	putObject(t, api, "/apis/eks.amazonaws.com/v1/nodeclasses", map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"role": "MyNodeRole",
			"subnetSelectorTerms":           []any{map[string]any{"tags": disc}},
			"securityGroupSelectorTerms":    []any{map[string]any{"tags": disc}},
			"podSubnetSelectorTerms":        []any{map[string]any{"tags": disc}},
			"podSecurityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}})

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	d.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	// `provider` while generating, removed afterwards (see TestAccImport_fromCluster).
	imports := fmt.Sprintf("\nimport {\n  to       = karpenter_auto_mode_node_class.adopted\n  provider = karpenter\n  id       = %q\n}\n", name)
	d.write(imports)
	out := oneLine(d.run("plan", "-generate-config-out=generated.tf"))
	if want := "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy."; !strings.Contains(out, want) {
		t.Errorf("the import plan lacks %q:\n%s", want, out)
	}
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name = "` + name + `"`, `role = "MyNodeRole"`, `pod_subnet_selector_terms = [ {`,
		`pod_security_group_selector_terms = [ {`, `"karpenter.sh/discovery" = "` + cluster + `"`} {
		if !strings.Contains(oneLine(string(gen)), want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	for _, computed := range []string{"manifest", "resolved", "pod_subnets"} {
		if strings.Contains(string(gen), computed+" ") {
			t.Errorf("generated.tf writes the computed %s:\n%s", computed, gen)
		}
	}
	d.write(strings.ReplaceAll(imports, "  provider = karpenter\n", ""))
	if out := oneLine(d.plan(2)); !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Errorf("the plan of the generated configuration changes the class:\n%s", out)
	}
	t.Cleanup(func() { d.run("destroy", "-auto-approve") })
	d.run("apply", "-auto-approve")
	d.plan(0)

	// The guide's sample NodePool on the imported class, its zones the network's.
	pool := fmt.Sprintf(`
resource "karpenter_node_pool" "sample" {
  name       = "my-node-pool-%s"
  node_class = karpenter_auto_mode_node_class.adopted.resolved
  limits     = { cpu = "1000", memory = "1000Gi" }
  template = {
    labels = { billing-team = "my-team" }
    requirements = [
      { key = "eks.amazonaws.com/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "eks.amazonaws.com/instance-cpu", operator = "In", values = ["4", "8", "16", "32"] },
      { key = "topology.kubernetes.io/zone", operator = "In", values = [%q, %q] },
      { key = "kubernetes.io/arch", operator = "In", values = ["arm64", "amd64"] },
    ]
  }
}
`, strings.TrimPrefix(cluster, "cluster-"), n.Subnets[0].Zone, n.Subnets[1].Zone)
	d.write(pool)
	out = oneLine(d.plan(2))
	for _, want := range []string{"Plan: 1 to add, 0 to change, 0 to destroy.", "group: eks.amazonaws.com", "kind: NodeClass", "name: " + name} {
		if !strings.Contains(out, want) {
			t.Errorf("the pool's plan lacks %q:\n%s", want, out)
		}
	}
	d.write("") // the pool is only planned
	queryAutoModeClasses(t, api, cluster)
}

// queryAutoModeClasses runs `terraform query` (Terraform 1.16) over the cluster's Auto Mode
// NodeClasses of a label: one is listed and written as an import with its configuration; the one
// named `default` (EKS's own, for the built-in node pools, which no configuration may name) is not.
func queryAutoModeClasses(t *testing.T, api *kubeAPI, cluster string) {
	suffix := strings.TrimPrefix(cluster, "cluster-")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	for _, name := range []string{"q" + suffix, "default"} {
		putObject(t, api, "/apis/eks.amazonaws.com/v1/nodeclasses", map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
			"metadata": map[string]any{"name": name, "labels": map[string]string{"test-run": suffix}}, "spec": map[string]any{"role": "MyNodeRole",
				"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}})
	}
	q := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), bin: newestTerraform(t)}
	q.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	q.write("")
	query := fmt.Sprintf(`
list "karpenter_auto_mode_node_class" "run" {
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
	out := oneLine(q.run("query", "-generate-config-out=generated.tf"))
	gen, err := os.ReadFile(filepath.Join(q.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if g := oneLine(string(gen)); !strings.Contains(out, "list.karpenter_auto_mode_node_class.run name=q"+suffix) ||
		!strings.Contains(g, `name = "q`+suffix+`"`) || !strings.Contains(g, `role = "MyNodeRole"`) {
		t.Errorf("the query did not list and write q%s:\n%s\n%s", suffix, out, gen)
	}
	if strings.Contains(out, "name=default") || strings.Contains(string(gen), `"default"`) {
		t.Errorf("the query lists EKS's default NodeClass:\n%s\n%s", out, gen)
	}
}

// oneLine is s with its runs of white space one space: Terraform wraps and aligns its output.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// A NodePool on an EKS Auto Mode NodeClass, written with kubectl (the user guide's sample
// NodePool, create-node-pool.html), imports like any other: `-generate-config-out` writes the
// pool with its class's values as `node_class`, and the plan of the written configuration imports
// it with no change.
func TestAccAutoModeNodePool_importFromCluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	class, pool := "auto-"+suffix, "my-node-pool-"+suffix
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	putObject(t, api, "/apis/eks.amazonaws.com/v1/nodeclasses", map[string]any{"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass",
		"metadata": map[string]any{"name": class}, "spec": map[string]any{"role": "MyNodeRole",
			"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}})
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": pool},
		"spec": map[string]any{
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"billing-team": "my-team"}},
				"spec": map[string]any{
					"nodeClassRef": map[string]any{"group": "eks.amazonaws.com", "kind": "NodeClass", "name": class},
					"requirements": []any{
						map[string]any{"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": []any{"c", "m", "r"}},
						map[string]any{"key": "eks.amazonaws.com/instance-cpu", "operator": "In", "values": []any{"4", "8", "16", "32"}},
						map[string]any{"key": "topology.kubernetes.io/zone", "operator": "In", "values": []any{n.Subnets[0].Zone, n.Subnets[1].Zone}},
						map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"arm64", "amd64"}},
					}}},
			"limits": map[string]any{"cpu": "1000", "memory": "1000Gi"}}})

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	d.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	imports := fmt.Sprintf("\nimport {\n  to       = karpenter_node_pool.adopted\n  provider = karpenter\n  id       = %q\n}\n", pool)
	d.write(imports)
	out := oneLine(d.run("plan", "-generate-config-out=generated.tf"))
	for _, want := range []string{"Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.", "karpenter_auto_mode_node_class.<name>.resolved"} {
		if !strings.Contains(out, want) {
			t.Errorf("the import plan lacks %q:\n%s", want, out)
		}
	}
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`group = "eks.amazonaws.com"`, `kind = "NodeClass"`, `name = "` + class + `"`,
		`key = "eks.amazonaws.com/instance-category"`} {
		if !strings.Contains(oneLine(string(gen)), want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	d.write(strings.ReplaceAll(imports, "  provider = karpenter\n", ""))
	if out := oneLine(d.plan(2)); !strings.Contains(out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.") {
		t.Errorf("the plan of the generated configuration changes the pool:\n%s", out)
	}
}
