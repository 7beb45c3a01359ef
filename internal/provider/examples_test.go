package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccExamplesValidate runs `terraform validate` on every example directory against a
// freshly built provider (a dev override in a private CLI config), so the docs' examples stay
// true to the schema.
func TestAccExamplesValidate(t *testing.T) {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if os.Getenv("TF_ACC") == "" || tf == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 and TF_ACC_TERRAFORM_PATH (make testacc)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	plugins := filepath.Join(work, "plugins")
	build := exec.Command("go", "build", "-o", filepath.Join(plugins, "terraform-provider-karpenter"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(work, "terraformrc")
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"registry.terraform.io/nodeplane/karpenter\" = %q\n  }\n  direct {}\n}\n", plugins)
	if err := os.WriteFile(cliConfig, []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(work, "examples")
	if err := os.CopyFS(examples, os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatalf("copying examples: %v", err)
	}

	var dirs []string
	_ = filepath.WalkDir(examples, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tf") {
			if dir := filepath.Dir(p); len(dirs) == 0 || dirs[len(dirs)-1] != dir {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if len(dirs) < 8 {
		t.Fatalf("found only %d example directories under %s", len(dirs), examples)
	}
	const versions = "terraform {\n  required_providers {\n    karpenter = { source = \"nodeplane/karpenter\" }\n  }\n}\n"
	for _, dir := range dirs {
		rel, _ := filepath.Rel(examples, dir)
		t.Run(rel, func(t *testing.T) {
			// tfplugindocs examples omit required_providers; give them ours (modules and the
			// quickstart declare it already).
			if b, _ := os.ReadFile(filepath.Join(dir, "main.tf")); !strings.Contains(string(b), "required_providers") {
				if err := os.WriteFile(filepath.Join(dir, "zz_versions_test.tf"), []byte(versions), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"get"}, {"validate", "-no-color"}} {
				cmd := exec.Command(tf, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("terraform %s in %s: %v\n%s", args[0], rel, err, out)
				}
			}
		})
	}
}
