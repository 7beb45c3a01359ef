package repocheck

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// impure are the import paths no pure package may reach, directly or through another package:
// the AWS SDK (and its smithy runtime) and Terraform's plugin libraries.
var impure = regexp.MustCompile(`^github\.com/(aws/|hashicorp/terraform-plugin)`)

// purePackages are the packages the lint's depguard rules call pure, read from .golangci.yml:
// the lint checks their direct imports, this test everything they link.
func purePackages(t *testing.T) []string {
	t.Helper()
	cfg, err := os.ReadFile("../../.golangci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s*- \$\{config-path\}/(internal/[a-z0-9]+)/\*\*\s*$`).FindAllStringSubmatch(string(cfg), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			pkgs = append(pkgs, "./"+m[1])
		}
	}
	return pkgs
}

func TestPurePackagesLinkNoAWSOrTerraform(t *testing.T) {
	pkgs := purePackages(t)
	// The core the issue tracker names must be among them; 20 is the floor of what is checked.
	for _, must := range []string{"./internal/planner", "./internal/fleet", "./internal/launchplan", "./internal/nodeclass", "./internal/settings"} {
		if !strings.Contains(strings.Join(pkgs, " ")+" ", must+" ") {
			t.Errorf("%s is not in .golangci.yml's pure packages", must)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("only %d pure packages read from .golangci.yml: %v", len(pkgs), pkgs)
	}
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], "github.com/nodeplane/") || !isPure(fields[0], pkgs) {
			continue
		}
		checked++
		var bad []string
		for _, dep := range fields[1:] {
			if impure.MatchString(dep) {
				bad = append(bad, dep)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s links %d AWS SDK or Terraform packages, e.g. %s", fields[0], len(bad), bad[0])
		}
	}
	if checked != len(pkgs) {
		t.Errorf("checked %d of %d pure packages", checked, len(pkgs))
	}
}

func isPure(importPath string, pkgs []string) bool {
	for _, p := range pkgs {
		if strings.HasSuffix(importPath, strings.TrimPrefix(p, ".")) {
			return true
		}
	}
	return false
}
