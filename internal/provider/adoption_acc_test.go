package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// roleClassObject is an EC2NodeClass with `role`, selecting the cluster's discovery network.
func roleClassObject(name, cluster, role string) map[string]any {
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	return map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"role": role, "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms": []any{map[string]any{"tags": disc}}, "securityGroupSelectorTerms": []any{map[string]any{"tags": disc}}}}
}

// poolObject is a NodePool on the EC2NodeClass class.
func poolObject(name, class string) map[string]any {
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"limits": map[string]any{"cpu": "100"}, "template": map[string]any{"spec": map[string]any{
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class},
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []string{"on-demand"}}}}}}}
}

// providerImport is an import block by id that names the provider, as generating needs on
// Terraform 1.16 (the from-YAML guide).
func providerImport(to, id string) string {
	return fmt.Sprintf("\nimport {\n  to       = %s\n  provider = karpenter\n  id       = %q\n}\n", to, id)
}

// flatOut is out with its whitespace runs as single spaces (Terraform wraps its messages).
func flatOut(out string) string { return strings.Join(strings.Fields(out), " ") }

// TestAccImport_roleClassLifecycle adopts a running role-based EC2NodeClass and its NodePool,
// which Karpenter launches, as a new user would. The class imports with nothing to change and
// nothing written to IAM (no instance profile of the provider's: Karpenter keeps its own); the
// pool imports while its class is already in the state; once the class asks for a profile for
// static pools and holds one, `terraform state rm` and a new import adopt it again with nothing to
// change (the import plans under the owner id it found, and keeps the profile).
func TestAccImport_roleClassLifecycle(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	name := "role-" + strings.TrimPrefix(cluster, "cluster-")
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", roleClassObject(name, cluster, "KarpenterNodeRole"))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", poolObject(name, name))
	profile := nodeclass.InstanceProfileName(cluster, acctest.Region(), name)

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t)}
	d.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	t.Cleanup(func() {
		d.write("")
		for _, f := range []string{"class.tf", "pool.tf"} { // destroy what the state holds
			_ = os.Remove(filepath.Join(d.dir, f))
		}
		d.run("destroy", "-auto-approve")
		if p := iamProfile(t, profile); p != nil {
			t.Errorf("instance profile %s left after destroy", profile)
		}
	})
	expectPlan := func(what, out, want string) {
		t.Helper()
		if !strings.Contains(flatOut(out), want) {
			t.Errorf("%s: the plan lacks %q:\n%s", what, want, out)
		}
	}

	// The class: nothing to change, nothing in IAM.
	d.write(providerImport("karpenter_node_class.adopted", name))
	expectPlan("importing the class", d.run("plan", "-generate-config-out=class.tf"), "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.")
	gen, err := os.ReadFile(filepath.Join(d.dir, "class.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flatOut(string(gen)), "instance_profile_for_static_pools = null") {
		t.Errorf("the generated class asks for a profile for static pools:\n%s", gen)
	}
	d.write("")
	d.run("apply", "-auto-approve")
	if p := iamProfile(t, profile); p != nil {
		t.Errorf("importing the class created instance profile %s", profile)
	}

	// The pool, its class already in the state.
	d.write(providerImport("karpenter_node_pool.adopted", name))
	expectPlan("importing the pool whose class is in the state", d.run("plan", "-generate-config-out=pool.tf"),
		"Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.")
	d.write("")
	d.run("apply", "-auto-approve")
	d.plan(0)

	// A profile for static pools, then the class imported again after terraform state rm.
	withProfile := regexp.MustCompile(`instance_profile_for_static_pools(\s*)= null`).
		ReplaceAllString(string(gen), "instance_profile_for_static_pools$1= true")
	if withProfile == string(gen) {
		t.Fatalf("no instance_profile_for_static_pools in the generated class:\n%s", gen)
	}
	if err := os.WriteFile(filepath.Join(d.dir, "class.tf"), []byte(withProfile), 0o600); err != nil {
		t.Fatal(err)
	}
	d.run("apply", "-auto-approve")
	if p := iamProfile(t, profile); p == nil {
		t.Fatalf("instance_profile_for_static_pools created no instance profile %s", profile)
	}
	if out, err := runCLI(t, os.Getenv("TF_ACC_TERRAFORM_PATH"), d.dir, d.rc, "state", "rm", "karpenter_node_class.adopted"); err != nil {
		t.Fatalf("terraform state rm: %v\n%s", err, out)
	}
	d.write(strings.ReplaceAll(providerImport("karpenter_node_class.adopted", name), "  provider = karpenter\n", "")) // the resource exists
	out, code := d.exit("plan", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("importing the class again after state rm: exit %d, want 2 (the import)\n%s", code, out)
	}
	expectPlan("importing the class again after state rm", out, "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy.")
	expectPlan("importing the class again after state rm", out, "the import keeps it, with `instance_profile_for_static_pools = true`")
	d.run("apply", "-auto-approve")
	d.write("")
	d.plan(0)
}

// TestAccQuery_eachObjectAlone: in `terraform query -generate-config-out`, an object that cannot
// be adopted (a class whose role is gone, a pool whose class is missing) is left out with a
// warning naming it, and the others are written, also while the state already holds one of the
// listed classes with its instance profile for static pools (which the generated class keeps).
func TestAccQuery_eachObjectAlone(t *testing.T) {
	api := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	prefix := "e" + strings.TrimPrefix(cluster, "cluster-") + "-"
	good, bad := prefix+"good", prefix+"bad"
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", roleClassObject(good, cluster, "KarpenterNodeRole"))
	putObject(t, api, "/apis/karpenter.k8s.aws/v1/ec2nodeclasses", roleClassObject(bad, cluster, acctest.RandomName("gone-role")))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", poolObject(good, good))
	putObject(t, api, "/apis/karpenter.sh/v1/nodepools", poolObject(bad, prefix+"missing"))

	d := &tfDir{t: t, dir: t.TempDir(), rc: cliConfig(t), bin: newestTerraform(t)}
	d.provider = requiredProviders + withKubeAccess(providerConfig(cluster), api)
	d.write(fmt.Sprintf(`
resource "karpenter_node_class" "held" {
  name                              = %q
  role                              = "KarpenterNodeRole"
  instance_profile_for_static_pools = true
  ami_selector_terms                = [{ alias = "al2023@latest" }]
}
`, good))
	d.run("apply", "-auto-approve")
	t.Cleanup(func() {
		_ = os.Remove(filepath.Join(d.dir, "generated.tf")) // destroy what the state holds
		d.run("destroy", "-auto-approve")
	})
	query := fmt.Sprintf(`
list "karpenter_node_class" "all" {
  provider = karpenter
  config {
    name_prefix = %[1]q
  }
}

list "karpenter_node_pool" "all" {
  provider = karpenter
  config {
    name_prefix = %[1]q
  }
}
`, prefix)
	if err := os.WriteFile(filepath.Join(d.dir, "search.tfquery.hcl"), []byte(query), 0o600); err != nil {
		t.Fatal(err)
	}
	out := flatOut(d.run("query", "-generate-config-out=generated.tf"))
	for _, want := range []string{"EC2NodeClass " + bad + " not listed", "IAM role not found", "NodePool " + bad + " not listed",
		`names EC2NodeClass "` + prefix + `missing"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the query lacks %q:\n%s", want, out)
		}
	}
	gen, err := os.ReadFile(filepath.Join(d.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	flatGen := flatOut(string(gen))
	for _, want := range []string{`resource "karpenter_node_class"`, `identity = { name = "` + good + `" }`, `resource "karpenter_node_pool"`,
		`instance_profile_for_static_pools = true`} {
		if !strings.Contains(flatGen, want) {
			t.Errorf("generated.tf lacks %q:\n%s", want, gen)
		}
	}
	if strings.Contains(flatGen, `"`+bad+`"`) {
		t.Errorf("generated.tf holds an object that cannot be adopted:\n%s", gen)
	}
	if n := strings.Count(flatGen, "identity = {"); n != 2 {
		t.Errorf("generated.tf holds %d imports, want the good class and the good pool:\n%s", n, gen)
	}
}
