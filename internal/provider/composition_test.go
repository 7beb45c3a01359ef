package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubetest"
)

// The composition tests hand the provider's manifests to the real hashicorp/kubernetes provider
// (kubernetes_manifest) against a real API server with Karpenter's CRDs: `make k8s-up` starts
// one on 127.0.0.1 and builds the provider; `make testacc` passes both here.

// kubeAPI is the test API server and the directory of the kubernetes provider built for it.
type kubeAPI struct {
	*kubetest.API
	providerDir string
}

var (
	kubeOnce sync.Once
	kube     *kubeAPI
	kubeErr  error
)

// kubeEnv skips outside acceptance runs and fails, naming the fix, when the API server or the
// kubernetes provider is missing: a composition test that skipped would hide that it never ran.
func kubeEnv(t *testing.T) *kubeAPI {
	t.Helper()
	if os.Getenv("TF_ACC") == "" || os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 and TF_ACC_TERRAFORM_PATH (make testacc)")
	}
	kubeOnce.Do(func() { kube, kubeErr = loadKubeAPI() })
	if kubeErr != nil {
		t.Fatal(kubeErr)
	}
	return kube
}

func loadKubeAPI() (*kubeAPI, error) {
	dir := os.Getenv(kubetest.EnvKubernetesProviderDir)
	if dir == "" {
		return nil, fmt.Errorf("%s must be set for the composition tests: %s", kubetest.EnvKubernetesProviderDir, kubetest.Fix)
	}
	for _, bin := range []string{"terraform-provider-kubernetes", "terraform-provider-kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return nil, fmt.Errorf("no %s in %s=%s (%v): %s", bin, kubetest.EnvKubernetesProviderDir, dir, err, kubetest.Fix)
		}
	}
	api, err := kubetest.FromEnv()
	if err != nil {
		return nil, err
	}
	return &kubeAPI{API: api, providerDir: dir}, nil
}

// Where the API server keeps the two kinds (both cluster-scoped).
func classPath(name string) string { return "/apis/karpenter.k8s.aws/v1/ec2nodeclasses/" + name }
func poolPath(name string) string  { return "/apis/karpenter.sh/v1/nodepools/" + name }

// get returns the object at path, or nil when the API server has none.
func (k *kubeAPI) get(t *testing.T, path string) map[string]any {
	t.Helper()
	code, body, err := k.Do(http.MethodGet, path, "", nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if code == http.StatusNotFound {
		return nil
	}
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return obj
}

// mergePatch changes the object at path as a person with kubectl would, under another field
// manager than Terraform's.
func (k *kubeAPI) mergePatch(t *testing.T, path, patch string) {
	t.Helper()
	code, body, err := k.Do(http.MethodPatch, path+"?fieldManager=composition-test", "application/merge-patch+json", []byte(patch))
	if err != nil || code != http.StatusOK {
		t.Fatalf("PATCH %s: %d %s %v", path, code, body, err)
	}
}

// removeLeftovers deletes the objects at paths that a failed run left on the API server, and
// reports them.
func (k *kubeAPI) removeLeftovers(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if k.get(t, p) == nil {
			continue
		}
		t.Errorf("%s is still on the API server after destroy", p)
		if code, body, err := k.Do(http.MethodDelete, p, "", nil); err != nil || (code != http.StatusOK && code != http.StatusAccepted) {
			t.Logf("DELETE %s: %d %s %v", p, code, body, err)
		}
	}
}

// field walks obj by map keys and list indexes.
func field(obj any, steps ...any) any {
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			m, _ := obj.(map[string]any)
			obj = m[s]
		case int:
			l, _ := obj.([]any)
			if s >= len(l) {
				return nil
			}
			obj = l[s]
		}
	}
	return obj
}

// requirement is the pool's requirement on key: its operator and values ("" when it has none).
func requirement(pool map[string]any, key string) (string, []string) {
	reqs, _ := field(pool, "spec", "template", "spec", "requirements").([]any)
	for _, r := range reqs {
		if field(r, "key") != key {
			continue
		}
		var vals []string
		for _, v := range field(r, "values").([]any) {
			vals = append(vals, fmt.Sprint(v))
		}
		op, _ := field(r, "operator").(string)
		return op, vals
	}
	return "", nil
}

// tfDir is a Terraform working directory of a composition test: our provider and the kubernetes
// provider by dev override, the example module copied in.
type tfDir struct {
	t        *testing.T
	dir, rc  string
	provider string // the provider blocks
	bin      string // the CLI ("": TF_ACC_TERRAFORM_PATH)
}

func newTFDir(t *testing.T, k *kubeAPI, cluster string) *tfDir {
	t.Helper()
	d := &tfDir{t: t, dir: t.TempDir()}
	d.rc = cliConfig(t, providerOverride{"registry.terraform.io/hashicorp/kubernetes", k.providerDir})
	module := filepath.Join("..", "..", "examples", "modules", "karpenter-node-group")
	if err := os.CopyFS(filepath.Join(d.dir, "modules", "karpenter-node-group"), os.DirFS(module)); err != nil {
		t.Fatal(err)
	}
	d.provider = `terraform {
  required_providers {
    karpenter  = { source = "nodeplane/karpenter" }
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}
` + providerConfig(cluster) + fmt.Sprintf(`
provider "kubernetes" {
  config_path = %q
}
`, k.Kubeconfig)
	return d
}

// exampleTFDir is a working directory holding a copy of examples/ (the example's module sources
// are relative), set on the example named: the configuration a user applies, with its inputs in
// terraform.tfvars.json (vars).
func exampleTFDir(t *testing.T, k *kubeAPI, example string) *tfDir {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	return &tfDir{t: t, dir: filepath.Join(root, "examples", example),
		rc: cliConfig(t, providerOverride{"registry.terraform.io/hashicorp/kubernetes", k.providerDir},
			providerOverride{"registry.terraform.io/gavinbunney/kubectl", k.providerDir})}
}

// vars writes the example's inputs.
func (d *tfDir) vars(v map[string]any) {
	d.t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = os.WriteFile(filepath.Join(d.dir, "terraform.tfvars.json"), b, 0o600)
	}
	if err != nil {
		d.t.Fatal(err)
	}
}

func (d *tfDir) write(body string) {
	d.t.Helper()
	if err := os.WriteFile(filepath.Join(d.dir, "main.tf"), []byte(d.provider+body), 0o600); err != nil {
		d.t.Fatal(err)
	}
}

// exit runs terraform and returns its output and exit code.
func (d *tfDir) exit(args ...string) (string, int) {
	d.t.Helper()
	args = append(args, "-no-color")
	if args[0] != "get" && args[0] != "query" && args[0] != "validate" {
		args = append(args, "-input=false")
	}
	bin := d.bin
	if bin == "" {
		bin = os.Getenv("TF_ACC_TERRAFORM_PATH")
	}
	out, err := runCLI(d.t, bin, d.dir, d.rc, args...)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &ee):
		return out, ee.ExitCode()
	}
	d.t.Fatalf("terraform %s: %v\n%s", args[0], err, out)
	return "", 0
}

// run runs terraform and fails the test when it fails.
func (d *tfDir) run(args ...string) string {
	d.t.Helper()
	out, code := d.exit(args...)
	if code != 0 {
		d.t.Fatalf("terraform %s: exit %d\n%s", args[0], code, out)
	}
	return out
}

// plan runs `terraform plan -detailed-exitcode`: 0 no changes, 2 changes.
func (d *tfDir) plan(want int) string {
	d.t.Helper()
	out, code := d.exit("plan", "-detailed-exitcode")
	if code != want {
		d.t.Fatalf("terraform plan -detailed-exitcode: exit %d, want %d\n%s", code, want, out)
	}
	return out
}

// destroyOnCleanup destroys what the directory applied when the test ends (also after a
// failure), then checks that EC2 and the API server hold nothing of it.
func (d *tfDir) destroyOnCleanup(k *kubeAPI, cluster string, paths ...string) {
	d.t.Cleanup(func() {
		if out, code := d.exit("destroy", "-auto-approve"); code != 0 {
			d.t.Errorf("terraform destroy: exit %d\n%s", code, out)
		}
		if err := checkClusterClean(d.t, cluster)(nil); err != nil {
			d.t.Error(err)
		}
		k.removeLeftovers(d.t, paths...)
	})
}

// nodeGroupConfig is the guide's composition through the example module: the class by its
// manifest_object, each pool by yamldecode of its manifest, after the class; poolExtra goes
// into the pools' kubernetes_manifest.
func nodeGroupConfig(name string, categories []string, poolExtra string) string {
	return fmt.Sprintf(`
module "group" {
  source = "./modules/karpenter-node-group"
  name   = %q
  role   = "KarpenterNodeRole"
  pools = {
    general = {
      requirements = [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = %s },
      ]
      limits = { cpu = "1000", memory = "1000Gi" }
    }
  }
}

resource "kubernetes_manifest" "node_class" {
  manifest = module.group.node_class_manifest_object
}

resource "kubernetes_manifest" "node_pool" {
  for_each   = module.group.node_pool_manifests
  manifest   = yamldecode(each.value)
  depends_on = [kubernetes_manifest.node_class]
%s}
`, name, hclStrings(categories), poolExtra)
}

func hclStrings(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestAccComposition_example applies examples/composition, the composing guide's example, as a
// user would with terraform-aws-eks's outputs as inputs: the class and pool reach a real API
// server with Karpenter's CRDs through kubernetes_manifest and carry the planned spec, a changed
// requirement updates the NodePool in place, the next plan is empty, and destroy removes both
// (the pool first).
func TestAccComposition_example(t *testing.T) {
	composeExample(t, "composition", "kubernetes_manifest")
}

// TestAccComposition_kubectlManifest applies examples/composition-kubectl, the same composition
// through gavinbunney/kubectl's kubectl_manifest (v1.19.0, built by make k8s-up), with the same
// checks.
func TestAccComposition_kubectlManifest(t *testing.T) {
	composeExample(t, "composition-kubectl", "kubectl_manifest")
}

// composeExample applies an example whose class and pools are resources of kind
// (kubernetes_manifest, kubectl_manifest) named node_class and node_pool.
func composeExample(t *testing.T, example, kind string) {
	k := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	name := acctest.RandomName("comp")
	d := exampleTFDir(t, k, example)
	d.destroyOnCleanup(k, cluster, poolPath(name+"-general"), classPath(name))
	inputs := func(categories ...string) map[string]any {
		return map[string]any{
			"cluster_name": cluster, "cluster_endpoint": testClusterEndpoint, "cluster_certificate_authority_data": testClusterCA,
			"cluster_service_cidr": testServiceCIDR, "node_iam_role_name": "KarpenterNodeRole", "kubeconfig_path": k.Kubeconfig,
			"name": name, "instance_categories": categories,
		}
	}

	d.vars(inputs("c", "m", "r"))
	d.run("get")
	out := d.run("apply", "-auto-approve")
	for _, obj := range []string{"ec2nodeclass.karpenter.k8s.aws/" + name, "nodepool.karpenter.sh/" + name + "-general"} {
		if !strings.Contains(out, obj) {
			t.Errorf("the objects output does not name %s:\n%s", obj, out)
		}
	}

	class := k.get(t, classPath(name))
	if class == nil {
		t.Fatalf("no EC2NodeClass %s on the API server after apply", name)
	}
	for _, c := range []struct {
		path []any
		want any
	}{
		{[]any{"spec", "role"}, "KarpenterNodeRole"},
		{[]any{"spec", "amiSelectorTerms", 0, "alias"}, "al2023@latest"},
		{[]any{"spec", "subnetSelectorTerms", 0, "tags", "karpenter.sh/discovery"}, cluster},
		{[]any{"spec", "securityGroupSelectorTerms", 0, "tags", "karpenter.sh/discovery"}, cluster},
	} {
		if got := field(class, c.path...); got != c.want {
			t.Errorf("EC2NodeClass %v = %v, want %v", c.path, got, c.want)
		}
	}
	pool := k.get(t, poolPath(name+"-general"))
	if pool == nil {
		t.Fatalf("no NodePool %s-general on the API server after apply", name)
	}
	if got := field(pool, "spec", "template", "spec", "nodeClassRef", "name"); got != name {
		t.Errorf("NodePool nodeClassRef.name = %v, want %s", got, name)
	}
	if op, vals := requirement(pool, "karpenter.k8s.aws/instance-category"); op != "In" || !slices.Equal(vals, []string{"c", "m", "r"}) {
		t.Errorf("NodePool instance-category requirement = %s %v, want In [c m r]", op, vals)
	}
	if got := fmt.Sprint(field(pool, "spec", "limits", "cpu")); got != "1000" {
		t.Errorf("NodePool limits.cpu = %v, want 1000", got)
	}
	uid := field(pool, "metadata", "uid")

	d.vars(inputs("c", "m"))
	out = d.plan(2)
	if !strings.Contains(out, kind+`.node_pool["general"] will be updated in-place`) {
		t.Errorf("a changed requirement does not update the NodePool in place:\n%s", out)
	}
	if strings.Contains(out, "# "+kind+".node_class ") {
		t.Errorf("a changed requirement of the pool changes the class:\n%s", out)
	}
	d.run("apply", "-auto-approve")
	pool = k.get(t, poolPath(name+"-general"))
	if got := field(pool, "metadata", "uid"); got != uid {
		t.Errorf("the NodePool was replaced (uid %v, was %v)", got, uid)
	}
	if op, vals := requirement(pool, "karpenter.k8s.aws/instance-category"); op != "In" || !slices.Equal(vals, []string{"c", "m"}) {
		t.Errorf("NodePool instance-category requirement after the update = %s %v, want In [c m]", op, vals)
	}
	d.plan(0)

	out = d.run("destroy", "-auto-approve")
	// depends_on orders the destroy: the pool is gone before the class goes.
	poolGone := strings.Index(out, kind+`.node_pool["general"]: Destruction complete`)
	classGoes := strings.Index(out, kind+".node_class: Destroying")
	if poolGone < 0 || classGoes < 0 || poolGone > classGoes {
		t.Errorf("destroy does not delete the NodePool before the EC2NodeClass:\n%s", out)
	}
	if k.get(t, poolPath(name+"-general")) != nil || k.get(t, classPath(name)) != nil {
		t.Error("destroy left the NodePool or the EC2NodeClass on the API server")
	}
}

// TestAccComposition_roleAfterApply: a class whose role comes from a resource of the same apply
// (as terraform-aws-eks's karpenter submodule creates it) reaches the API server in one apply
// through manifest_object, whose only unknown field at plan is spec.role.
func TestAccComposition_roleAfterApply(t *testing.T) {
	k := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	name := acctest.RandomName("late")
	d := newTFDir(t, k, cluster)
	d.destroyOnCleanup(k, cluster, poolPath(name), classPath(name))

	d.write(fmt.Sprintf(`
resource "terraform_data" "role" {
  input = "KarpenterNodeRole"
}

resource "karpenter_node_class" "this" {
  name               = %[1]q
  role               = terraform_data.role.output
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

resource "karpenter_node_pool" "this" {
  name       = %[1]q
  node_class = karpenter_node_class.this.resolved
  template = {
    requirements = [{ key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["m"] }]
  }
}

resource "kubernetes_manifest" "node_class" {
  manifest = karpenter_node_class.this.manifest_object
}

resource "kubernetes_manifest" "node_pool" {
  manifest   = yamldecode(karpenter_node_pool.this.manifest)
  depends_on = [kubernetes_manifest.node_class]
}
`, name))
	plan := planText(d.plan(2))
	if !strings.Contains(plan, "kubernetes_manifest.node_class will be created") || !strings.Contains(plan, "kubernetes_manifest.node_pool will be created") {
		t.Fatalf("the plan does not create both objects:\n%s", plan)
	}
	// The class's YAML waits for the role; its object plans with only spec.role unknown.
	if !regexp.MustCompile(`\+ manifest += \(known after apply\)`).MatchString(strings.Join(resourceBlock(plan, "karpenter_node_class.this"), "\n")) {
		t.Errorf("the class's manifest is known at plan with its role unknown:\n%s", plan)
	}
	block := strings.Join(resourceBlock(plan, "kubernetes_manifest.node_class"), "\n")
	for _, re := range []string{`\+ role += \(known after apply\)`, `\+ alias += "al2023@latest"`, `\+ "karpenter.sh/discovery" = "` + cluster + `"`} {
		if !regexp.MustCompile(re).MatchString(block) {
			t.Errorf("the class's kubernetes_manifest plan lacks %s:\n%s", re, block)
		}
	}
	d.run("apply", "-auto-approve")
	class := k.get(t, classPath(name))
	if got := field(class, "spec", "role"); got != "KarpenterNodeRole" {
		t.Errorf("EC2NodeClass spec.role = %v, want KarpenterNodeRole", got)
	}
	if k.get(t, poolPath(name)) == nil {
		t.Errorf("no NodePool %s on the API server after apply", name)
	}
	d.plan(0)
}

// TestAccComposition_drift: a NodePool edited on the API server behind Terraform's back shows as
// an in-place update of its kubernetes_manifest in the next plan, naming the field; apply puts
// the configured value back once the resource forces field manager conflicts (the edit made
// another manager own the field).
func TestAccComposition_drift(t *testing.T) {
	k := kubeEnv(t)
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	name := acctest.RandomName("drift")
	d := newTFDir(t, k, cluster)
	d.destroyOnCleanup(k, cluster, poolPath(name+"-general"), classPath(name))

	d.write(nodeGroupConfig(name, []string{"c", "m", "r"}, ""))
	d.run("get")
	d.run("apply", "-auto-approve")
	d.plan(0)

	k.mergePatch(t, poolPath(name+"-general"), `{"spec":{"limits":{"cpu":"5"}}}`)
	out := d.plan(2)
	block := strings.Join(resourceBlock(planText(out), `kubernetes_manifest.node_pool["general"]`), "\n")
	if !strings.Contains(block, "will be updated in-place") {
		t.Fatalf("the edited NodePool is not planned for an in-place update:\n%s", out)
	}
	if !regexp.MustCompile(`cpu += "5" -> "1000"`).MatchString(block) {
		t.Errorf("the plan does not name the edited field (limits.cpu 5 -> 1000):\n%s", block)
	}
	// The edit holds the field under another manager: server-side apply refuses to take it back
	// unless the resource forces conflicts.
	if out, code := d.exit("apply", "-auto-approve"); code == 0 || !strings.Contains(out, "field manager conflict") {
		t.Fatalf("apply over the edit: exit %d without the field manager conflict:\n%s", code, out)
	}
	d.write(nodeGroupConfig(name, []string{"c", "m", "r"}, "  field_manager {\n    force_conflicts = true\n  }\n"))
	d.run("apply", "-auto-approve")
	if got := fmt.Sprint(field(k.get(t, poolPath(name+"-general")), "spec", "limits", "cpu")); got != "1000" {
		t.Errorf("NodePool limits.cpu after apply = %v, want 1000", got)
	}
	d.plan(0)
}
