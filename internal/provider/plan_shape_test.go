package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// Budgets of what a person reads: the README's broad pool (a class already applied) plans in at
// most this many lines of `terraform plan -no-color`, warnings included, and adding one
// requirement to it shows a diff of at most this many lines. Karpenter's decisions took the
// budgets up from 150 and 60: prices by ten lines each (the summary's cost and price source, and,
// since the emulator has no Pricing API, the embedded table's warning in `warnings` and as a
// diagnostic; the diff also shows the zones' node counts move, since the cheapest 60 amd64 types
// are hungrier for IPs than the cheapest 60 of both architectures), and drift by ten more (the
// hashes of a new pool; for the added requirement, RequirementsDrifted with its verdict and pace).
// The README's pool names its capacity type (Karpenter v1 has no default: without the
// requirement it launches spot first, and the plan warns), ten lines of the manifest and the
// template: 180.
const (
	maxCreatePlanLines = 180
	maxUpdateDiffLines = 80
)

// readmeBroadPool is the HCL of the README's class and broad pool, between its markers.
func readmeBroadPool(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- readme-broad-pool:begin -->\\s*```hcl\\n(.*?)```\\s*<!-- readme-broad-pool:end -->").FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md has no broad-pool block between its markers")
	}
	return string(m[1])
}

// planText is the plan output without the dev-override banner Terraform prints for the test's
// locally built provider (a released provider has none).
func planText(out string) string {
	const banner = "Warning: Provider development overrides are in effect"
	if i := strings.Index(out, banner); i >= 0 {
		if j := strings.Index(out[i:], "releases.\n"); j >= 0 {
			out = out[:i] + out[i+j+len("releases.\n"):]
		}
	}
	return strings.TrimLeft(out, "\n")
}

// resourceBlock is the lines of one resource's change in a plan: from its `# addr will be …`
// header to the closing brace.
func resourceBlock(plan, addr string) []string {
	var block []string
	in := false
	for _, l := range strings.Split(plan, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "# "+addr+" ") {
			in = true
		}
		if in {
			block = append(block, l)
			if l == "    }" {
				break
			}
		}
	}
	return block
}

const requiredProviders = "terraform {\n  required_providers {\n    karpenter = { source = \"nodeplane/karpenter\" }\n  }\n}\n"

func lineCount(s string) int { return len(strings.Split(strings.TrimRight(s, "\n"), "\n")) }

// TestAccReadmeBroadPoolPlan runs the README's class and broad pool through the terraform CLI
// and counts what a person reads: the pool's create plan (the class applied before) and the
// diff of adding one requirement. With PLAN_EXCERPT_DIR set it writes the pool's plan block
// there, for the README and the guides.
func TestAccReadmeBroadPoolPlan(t *testing.T) {
	if os.Getenv("TF_ACC") == "" || os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 and TF_ACC_TERRAFORM_PATH (make testacc)")
	}
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	hcl := strings.ReplaceAll(readmeBroadPool(t), `"KarpenterNodeRole-my-cluster"`, `"KarpenterNodeRole"`) // the role TestMain creates
	class, _, ok := strings.Cut(hcl, `resource "karpenter_node_pool"`)
	if !ok {
		t.Fatal("the README block has no karpenter_node_pool")
	}
	rc := cliConfig(t)
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredProviders+providerConfig(cluster)+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := terraformCLI(t, dir, rc, append(args, "-no-color", "-input=false")...)
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", args[0], err, out)
		}
		return out
	}
	t.Cleanup(func() {
		if out, err := terraformCLI(t, dir, rc, "destroy", "-auto-approve", "-no-color", "-input=false"); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
		if err := checkClusterClean(t, cluster)(nil); err != nil {
			t.Error(err)
		}
	})

	write(class)
	run("apply", "-auto-approve")

	write(hcl)
	create := planText(run("plan"))
	t.Logf("create plan, %d lines:\n%s", lineCount(create), create)
	if n := lineCount(create); n > maxCreatePlanLines {
		t.Errorf("the broad pool's create plan has %d lines, over the %d-line budget", n, maxCreatePlanLines)
	}
	block := resourceBlock(create, "karpenter_node_pool.general")
	text := strings.Join(block, "\n")
	for _, want := range []string{"+ summary", "+ zones", "+ manifest", "kind: NodePool", "values: [c, m, r]", "first_instance_types", "nodes_by_ips"} {
		if !strings.Contains(text, want) {
			t.Errorf("the pool's plan lacks %q:\n%s", want, text)
		}
	}
	if m := regexp.MustCompile(`(?m)^      \+ (instance_types|max_pods|karpenter_assumed_pods|launch_plan|launch_templates) +=.*$`).FindString(text); m != "" {
		t.Errorf("the pool's default plan shows %q: per-type detail belongs to `details`", m)
	}
	if dir := os.Getenv("PLAN_EXCERPT_DIR"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "readme-broad-pool.txt"), []byte(text+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run("apply", "-auto-approve")

	write(strings.Replace(hcl, `operator = "Gt", values = ["2"] },`,
		`operator = "Gt", values = ["2"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },`, 1))
	update := planText(run("plan"))
	diff := resourceBlock(update, "karpenter_node_pool.general")
	t.Logf("update plan, %d lines; the pool's diff %d lines:\n%s", lineCount(update), len(diff), update)
	if len(diff) == 0 || !strings.Contains(strings.Join(diff, "\n"), "will be updated in-place") {
		t.Fatalf("adding a requirement does not update the pool in place:\n%s", update)
	}
	if len(diff) > maxUpdateDiffLines {
		t.Errorf("adding one requirement shows a %d-line diff, over the %d-line budget", len(diff), maxUpdateDiffLines)
	}
	run("apply", "-auto-approve")
	if again := planText(run("plan")); !strings.Contains(again, "No changes.") {
		t.Errorf("the plan after apply is not empty:\n%s", again)
	}
}
