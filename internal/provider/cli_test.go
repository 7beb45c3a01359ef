package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest/policyrecord"
)

var (
	cliProviderOnce sync.Once
	cliProviderDir  string
	cliProviderErr  error
	// cliPolicyCalls are the AWS calls the CLI tests' provider processes recorded (the binary
	// is built with the policyrecord tag), read back before cliProviderDir goes.
	cliPolicyCalls []acctest.PolicyCall
	cliPolicyErr   error
)

// cliCallsDir is where the CLI tests' provider processes write their calls.
func cliCallsDir() string { return filepath.Join(cliProviderDir, "calls") }

// providerOverride is another provider for cliConfig's dev overrides: its source address and
// the directory that holds its binary.
type providerOverride struct{ source, dir string }

// cliConfig builds the provider once per test process and writes a Terraform CLI config whose
// dev override points at it (and at the other providers given), for tests that run the
// terraform CLI themselves (what a person sees is its text output, which the testing framework
// does not expose).
func cliConfig(t *testing.T, others ...providerOverride) string {
	t.Helper()
	cliProviderOnce.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			cliProviderErr = err
			return
		}
		// Shared by every CLI test of the process (t.TempDir would go with the first test);
		// TestMain removes it.
		dir, err := os.MkdirTemp("", "karpenter-provider-cli-") //nolint:usetesting // see above
		if err != nil {
			cliProviderErr = err
			return
		}
		// With the policyrecord tag the binary records its AWS calls (policyrecord.EnvDir, set
		// by runCLI) for the check of the published IAM policy.
		build := exec.Command("go", "build", "-tags", "policyrecord", "-o", filepath.Join(dir, "terraform-provider-karpenter"), ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			cliProviderErr = fmt.Errorf("building the provider: %v\n%s", err, out)
			return
		}
		if err := os.MkdirAll(filepath.Join(dir, "calls"), 0o700); err != nil {
			cliProviderErr = err
			return
		}
		cliProviderDir = dir
	})
	if cliProviderErr != nil {
		t.Fatal(cliProviderErr)
	}
	rc := filepath.Join(t.TempDir(), "terraformrc")
	var overrides strings.Builder
	// OpenTofu resolves the provider's address to its own registry.
	own := []providerOverride{{"registry.terraform.io/nodeplane/karpenter", cliProviderDir}, {"registry.opentofu.org/nodeplane/karpenter", cliProviderDir}}
	for _, o := range append(own, others...) {
		fmt.Fprintf(&overrides, "    %q = %q\n", o.source, o.dir)
	}
	body := "provider_installation {\n  dev_overrides {\n" + overrides.String() + "  }\n  direct {}\n}\n"
	if err := os.WriteFile(rc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

// terraformCLI runs the terraform CLI in dir with the built provider; it returns the combined
// output and the error of the run.
func terraformCLI(t *testing.T, dir, rc string, args ...string) (string, error) {
	t.Helper()
	return runCLI(t, os.Getenv("TF_ACC_TERRAFORM_PATH"), dir, rc, args...)
}

// runCLI runs the CLI binary bin (terraform or tofu) in dir with the built provider.
func runCLI(t *testing.T, bin, dir, rc string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1")
	if cliProviderDir != "" {
		cmd.Env = append(cmd.Env, policyrecord.EnvDir+"="+cliCallsDir())
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// newestTerraform is the newest Terraform the README promises (built by `make tools` from its Go
// module): the query tests need it (list resources, Terraform >= 1.14). Acceptance runs fail
// without it, naming the fix.
func newestTerraform(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("KARPENTER_TEST_TERRAFORM_NEWEST")
	if bin == "" {
		bin = filepath.Join("..", "..", "bin", "terraform-1.16")
	}
	abs, err := filepath.Abs(bin)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		t.Fatalf("no Terraform 1.16 at %s (%v): build it with `make tools` (scripts/build-cli.sh terraform)", bin, err)
	}
	return abs
}
