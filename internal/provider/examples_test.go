package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccExamplesValidate runs `terraform validate` on every example directory against a
// freshly built provider (a dev override in a private CLI config), so the docs' examples stay
// true to the schema.
func TestAccExamplesValidate(t *testing.T) {
	if os.Getenv("TF_ACC") == "" || os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 and TF_ACC_TERRAFORM_PATH (make testacc)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	// examples/composition and composition-kubectl also use the kubernetes and kubectl providers:
	// the ones make k8s-up builds.
	dir := kubeEnv(t).providerDir
	cliConfig := cliConfig(t, providerOverride{"registry.terraform.io/hashicorp/kubernetes", dir},
		providerOverride{"registry.terraform.io/gavinbunney/kubectl", dir})
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
	for _, dir := range dirs {
		rel, _ := filepath.Rel(examples, dir)
		t.Run(rel, func(t *testing.T) {
			// tfplugindocs examples omit required_providers; give them ours (modules and the
			// quickstart declare it already).
			if b, _ := os.ReadFile(filepath.Join(dir, "main.tf")); !strings.Contains(string(b), "required_providers") {
				if err := os.WriteFile(filepath.Join(dir, "zz_versions_test.tf"), []byte(requiredProviders), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"get"}, {"validate", "-no-color"}} {
				if out, err := terraformCLI(t, dir, cliConfig, args...); err != nil {
					t.Fatalf("terraform %s in %s: %v\n%s", args[0], rel, err, out)
				}
			}
		})
	}
}
