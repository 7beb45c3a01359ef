package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/nodeplane/terraform-provider-karpenter/internal/typelimits"
)

const functionsConfig = `
locals {
  class_networking = {
    prefix_delegation = null
    custom_networking = { pod_subnet_selector_terms = [{ tags = { "kubernetes.io/role/cni" = "1" } }] }
    reserved_enis     = null
  }
}
output "default"    { value = provider::karpenter::max_pods("m5.large", {}) }
output "null"       { value = provider::karpenter::max_pods("m5.large", null) }
output "prefix"     { value = provider::karpenter::max_pods("m5.large", { prefix_delegation = true }) }
output "prefix_big" { value = provider::karpenter::max_pods("m5.24xlarge", { prefix_delegation = true }) }
output "class"      { value = provider::karpenter::max_pods("m5.large", local.class_networking) }
output "eni"        { value = provider::karpenter::eni_limited_pods("c5.18xlarge") }
output "ips"        { value = provider::karpenter::ips_per_node("m5.large", {}, 29) }
output "ips_custom" { value = provider::karpenter::ips_per_node("m5.large", local.class_networking, 20).pod_subnet }
`

// The functions answer in a plan with no provider configuration and no AWS call, each figure
// the table's engine gives (the typelimits tests check the engine against Karpenter's own).
func TestAccFunctions(t *testing.T) {
	rec := &callRecorder{}
	want := map[string]string{
		"default": "29", "null": "29", "prefix": "110", "prefix_big": "250", "class": "20", "eni": "737", "ips_custom": "20",
	}
	var checks []resource.TestCheckFunc
	for name, v := range want {
		checks = append(checks, resource.TestCheckOutput(name, v))
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: factories(rec),
		Steps: []resource.TestStep{
			{Config: functionsConfig, Check: resource.ComposeAggregateTestCheckFunc(checks...)},
			{Config: `output "x" { value = provider::karpenter::max_pods("m5.huge", {}) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "instance_type" parameter.*"m5.huge" is not in the\s+provider's instance type table`)},
			{Config: `output "x" { value = provider::karpenter::max_pods("m5.large", { prefix = true }) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "networking" parameter.*networking.prefix is not a\s+networking attribute`)},
			{Config: `output "x" { value = provider::karpenter::max_pods("m5.large", "on") }`,
				ExpectError: regexp.MustCompile(`(?s)networking must be an object of\s+networking attributes`)},
			{Config: `output "x" { value = provider::karpenter::ips_per_node("m5.large", {}, -1) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "pods" parameter.*must not be negative`)},
		},
	})
	if calls := rec.Calls(""); len(calls) != 0 {
		t.Errorf("the functions called AWS: %v", calls)
	}
}

// What a module author types: the functions in `terraform console`, with the built provider.
func TestAccFunctionsConsole(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 (make testacc)")
	}
	rc := cliConfig(t)
	dir := t.TempDir()
	main := requiredProviders
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	exprs := []struct{ expr, want string }{
		{`provider::karpenter::max_pods("m5.large", {})`, "29"},
		{`provider::karpenter::max_pods("m5.large", { prefix_delegation = true })`, "110"},
		{`provider::karpenter::max_pods("m5.large", { security_groups_for_pods = true })`, "20"},
		{`provider::karpenter::eni_limited_pods("t3.medium")`, "17"},
		{`provider::karpenter::ips_per_node("m5.large", {}, 29)`, "{\n  \"node_subnet\" = 30\n  \"pod_subnet\" = 0\n}"},
		// Custom networking: the primary ENI keeps only its own address; the warm ENI is in the pod subnet.
		{`provider::karpenter::ips_per_node("m5.large", { custom_networking = true }, 2)`, "{\n  \"node_subnet\" = 1\n  \"pod_subnet\" = 10\n}"},
	}
	// One run per expression: piped, the console prints only the last answer.
	for _, e := range exprs {
		cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "console")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1")
		cmd.Stdin = strings.NewReader(e.expr + "\n")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != e.want {
			t.Errorf("terraform console: %s\n= %s (%v); want %s", e.expr, out, err, e.want)
		}
	}
	if typelimits.Len() < 1000 {
		t.Errorf("the table has %d types", typelimits.Len())
	}
}
