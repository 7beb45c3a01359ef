package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// withKubeAccess is a provider block with read access to the test API server.
func withKubeAccess(provider string, api *kubeAPI) string {
	return strings.Replace(provider, "provider \"karpenter\" {\n", fmt.Sprintf(`provider "karpenter" {
  kubernetes = {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
`, api.Server, string(api.CAPEM), api.Token()), 1)
}

// putObject creates an object in a collection of the test API server (a path such as
// /apis/karpenter.sh/v1/nodepools or /api/v1/namespaces/default/serviceaccounts), deleted when
// the test ends.
func putObject(t *testing.T, api *kubeAPI, collection string, obj map[string]any) {
	t.Helper()
	body, _ := json.Marshal(obj)
	if code, out, err := api.Do(http.MethodPost, collection, "application/json", body); err != nil || code != http.StatusCreated {
		t.Fatalf("creating %s: %d %v %s", collection, code, err, out)
	}
	name := obj["metadata"].(map[string]any)["name"].(string)
	t.Cleanup(func() { _, _, _ = api.Do(http.MethodDelete, collection+"/"+name, "", nil) })
}

// The adoption path of a team whose Karpenter objects were written with kubectl: import blocks
// by name, `terraform plan -generate-config-out` writes the class and the pool (spec and object
// metadata), apply imports them, and the next plan is clean.
func TestAccImport_fromCluster(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	name := "adopted-" + strings.TrimPrefix(cluster, "cluster-")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": name, "labels": map[string]string{"team": "platform"},
			"annotations": map[string]string{"kubernetes.io/description": "Written with kubectl", "karpenter.k8s.aws/ec2nodeclass-hash": "42"}},
		"spec": map[string]any{"instanceProfile": "test-instance-profile", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}},
			"metadataOptions": map[string]any{"httpTokens": "required", "httpPutResponseHopLimit": 2},
			"tags":            map[string]string{"team": "platform"}}})
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name, "annotations": map[string]string{"kubernetes.io/description": "General purpose"}},
		"spec": map[string]any{"limits": map[string]any{"cpu": 1000}, "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]string{"tier": "web"}},
			"spec": map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": name},
				"taints": []any{map[string]any{"key": "dedicated", "value": "web", "effect": "NoSchedule"}},
				"requirements": []any{map[string]any{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": []string{"c", "m"}},
					map[string]any{"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": []string{"4"}}}}},
			"disruption": map[string]any{"consolidateAfter": "5m", "consolidationPolicy": "WhenEmpty"}}})

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	d.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	// Terraform 1.16 looks for hashicorp/karpenter when it generates the resource of an import
	// block without `provider`, and refuses `provider` once the resource exists: it is there
	// while generating and removed afterwards, as the from-YAML guide says.
	imports := fmt.Sprintf(`
import {
  to       = karpenter_node_class.adopted
  provider = karpenter
  id       = %[1]q
}

import {
  to       = karpenter_node_pool.adopted
  provider = karpenter
  id       = %[1]q
}
`, name)
	d.write(imports)
	out := d.run("plan", "-generate-config-out=generated.tf")
	for _, want := range []string{"karpenter_node_class.adopted: Preparing import", "Plan: 2 to import, 0 to add, 0 to change, 0 to destroy.", "`node_class` holds the values of EC2NodeClass",
		"left to the cluster: karpenter.k8s.aws/ec2nodeclass-hash"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the import plan lacks %q:\n%s", want, out)
		}
	}
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kubernetes.io/description" = "Written with kubectl"`, `"kubernetes.io/description" = "General purpose"`,
		`instance_profile = "test-instance-profile"`, `http_put_response_hop_limit = 2`, `key = "dedicated"`, `operator = "Gt"`,
		`consolidate_after = "5m"`, `cpu = "1000"`, `tier = "web"`} {
		if !strings.Contains(strings.Join(strings.Fields(string(gen)), " "), want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	if strings.Contains(string(gen), "ec2nodeclass-hash") {
		t.Errorf("generated.tf adopts Karpenter's hash annotation:\n%s", gen)
	}
	d.write(strings.ReplaceAll(imports, "  provider = karpenter\n", ""))
	d.run("apply", "-auto-approve")
	d.plan(0)
	t.Cleanup(func() { d.run("destroy", "-auto-approve") })
}

// Importing what the cluster does not have, a pool whose EC2NodeClass is missing, or an object
// with a field the provider's karpenter_version lacks fails the import naming the object and the
// fix; nothing is written to the state.
func TestAccImport_fromClusterBadInput(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	name := "orphan-" + strings.TrimPrefix(cluster, "cluster-")
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "missing-" + name},
			"requirements": []any{}}}}})
	// A class with cpuOptions (Karpenter 1.13) under karpenter_version 1.12.
	newer := "newer-" + name
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
		"metadata": map[string]any{"name": newer},
		"spec": map[string]any{"instanceProfile": "test-instance-profile", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}},
			"cpuOptions": map[string]any{"nestedVirtualization": "enabled"}}})
	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	d.provider = requiredProviders +
		withKarpenterVersion(withKubeAccess(providerConfig(cluster), api), "1.12")
	for _, c := range []struct{ typ, id, want string }{
		{"karpenter_node_class", newer, `cpu_options.*1\.13`},
		{"karpenter_node_class", "absent-" + name, `Cannot import EC2NodeClass absent-` + name + `.*has no ec2nodeclasses named.*kubectl get ec2nodeclasses.karpenter.k8s.aws`},
		{"karpenter_node_pool", "absent-" + name, `Cannot import NodePool absent-` + name + `.*has no NodePool named`},
		{"karpenter_node_pool", name, `names EC2NodeClass "missing-` + name + `" in its nodeClassRef.*has no ec2nodeclasses named`},
	} {
		d.write(fmt.Sprintf("import {\n  to       = %s.x\n  provider = karpenter\n  id       = %q\n}\n", c.typ, c.id))
		out, code := d.exit("plan", "-generate-config-out=generated.tf")
		if flat := strings.Join(strings.Fields(out), " "); code != 1 || !regexp.MustCompile(c.want).MatchString(flat) {
			t.Errorf("import %s %s: exit %d, want 1 and %q:\n%s", c.typ, c.id, code, c.want, out)
		}
		_ = os.Remove(filepath.Join(d.dir, "generated.tf"))
	}
}
