package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// `terraform query` (Terraform 1.16, list resources) lists the cluster's EC2NodeClasses and
// NodePools by name prefix and label, and -generate-config-out writes each as an import by its
// identity with its configuration; applying that imports them, changes nothing, and the next plan is
// clean.
func TestAccQuery_listsTheCluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	suffix := strings.TrimPrefix(cluster, "cluster-")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	for _, name := range []string{"q" + suffix + "-a", "q" + suffix + "-b"} {
		team := map[string]string{"team": "web"}
		if strings.HasSuffix(name, "-b") {
			team = map[string]string{"team": "batch"}
		}
		putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
			"metadata": map[string]any{"name": name, "labels": team},
			"spec": map[string]any{"instanceProfile": "test-instance-profile", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
				"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}})
		putObject(t, api, "/apis/karpenter.sh/v1/nodepools", map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
			"metadata": map[string]any{"name": name, "labels": team},
			"spec": map[string]any{"limits": map[string]any{"cpu": "100"}, "template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": name},
				"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []string{"on-demand"}}}}}}})
	}
	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), bin: newestTerraform(t)}
	d.provider = requiredProviders +
		withKubeAccess(providerConfig(cluster), api)
	d.write("")
	query := fmt.Sprintf(`
list "karpenter_node_class" "web" {
  provider         = karpenter
  include_resource = true
  config {
    name_prefix = "q%[1]s-"
    labels      = { team = "web" }
  }
}

list "karpenter_node_pool" "all" {
  provider = karpenter
  config {
    name_prefix = "q%[1]s-"
  }
}
`, suffix)
	if err := os.WriteFile(filepath.Join(d.dir, "search.tfquery.hcl"), []byte(query), 0o600); err != nil {
		t.Fatal(err)
	}
	out := d.run("query")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"list.karpenter_node_class.web name=q" + suffix + "-a", "list.karpenter_node_pool.all name=q" + suffix + "-a",
		"list.karpenter_node_pool.all name=q" + suffix + "-b"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the query lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "list.karpenter_node_class.web name=q"+suffix+"-b") {
		t.Errorf("the label filter let the batch class through:\n%s", out)
	}
	d.run("query", "-generate-config-out=generated.tf")
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	flatGen := strings.Join(strings.Fields(string(gen)), " ")
	for _, want := range []string{`resource "karpenter_node_class"`, `instance_profile = "test-instance-profile"`,
		`identity = { name = "q` + suffix + `-a" }`, `resource "karpenter_node_pool"`} {
		if !strings.Contains(flatGen, want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	// The generated imports go through the resources' identity (no id): applying them imports
	// three objects and changes nothing, and the next plan is clean.
	if out := d.run("apply", "-auto-approve"); !strings.Contains(out, "3 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("applying the generated imports:\n%s", out)
	}
	t.Cleanup(func() { d.run("destroy", "-auto-approve") })
	d.plan(0)
}
