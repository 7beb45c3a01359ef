package provider

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

// callFunction runs a provider function as Terraform would, without Terraform: its answer, or
// the function error.
func callFunction(t *testing.T, f *tableFunction, args ...attr.Value) (attr.Value, *function.FuncError) {
	t.Helper()
	ctx := context.Background()
	result, ferr := f.def.Return.NewResultData(ctx)
	if ferr != nil {
		t.Fatal(ferr)
	}
	resp := function.RunResponse{Result: result}
	f.Run(ctx, function.RunRequest{Arguments: function.NewArgumentsData(args)}, &resp)
	return resp.Result.Value(), resp.Error
}

// autoModeArg is an auto_mode argument: an object of the given attributes (nil: null).
func autoModeArg(attrs map[string]attr.Value) types.Dynamic {
	if attrs == nil {
		return types.DynamicNull()
	}
	typs := map[string]attr.Type{}
	for k, v := range attrs {
		typs[k] = v.Type(context.Background())
	}
	return types.DynamicValue(types.ObjectValueMust(typs, attrs))
}

func TestAutoModeFunctions(t *testing.T) {
	str, num, boolean := types.StringValue, types.NumberValue, types.BoolValue
	maxPods := []struct {
		typ  string
		auto map[string]attr.Value
		want int64
	}{
		{"m5.large", nil, 110}, // 3 x 9 x 16 + 2 = 434, capped at 110
		{"m5.large", map[string]attr.Value{}, 110},
		{"m5.large", map[string]attr.Value{"ipv4_prefix_size": str("32")}, 29}, // 3 x 9 + 2
		{"m5.large", map[string]attr.Value{"ipv4_prefix_size": num(big.NewFloat(32))}, 29},
		{"m5.large", map[string]attr.Value{"ipv4_prefix_size": str("32"), "pod_subnets": boolean(true)}, 20}, // (3 - 1) x 9 + 2
		{"c5.18xlarge", map[string]attr.Value{"ipv4_prefix_size": str("Auto")}, 110},                         // not the VPC CNI calculator's 250
	}
	for _, c := range maxPods {
		v, ferr := callFunction(t, autoModeMaxPodsFunction, types.StringValue(c.typ), autoModeArg(c.auto))
		if ferr != nil || !v.Equal(types.Int64Value(c.want)) {
			t.Errorf("auto_mode_max_pods(%s, %v) = %v, %v; want %d", c.typ, c.auto, v, ferr, c.want)
		}
	}

	// m5.large, prefixes: 20 pods take 2 /28s on the primary ENI: 1 + 32 addresses; with pod
	// subnets the node subnet keeps only the node's address.
	ips := []struct {
		auto                map[string]attr.Value
		pods                int64
		node, pod, prefixes int64
	}{
		{nil, 20, 33, 0, 2},
		{map[string]attr.Value{"pod_subnets": boolean(true)}, 20, 1, 33, 2},
		{map[string]attr.Value{"ipv4_prefix_size": str("32")}, 20, 23, 0, 0}, // 20 addresses on ceil(20 / 9) = 3 ENIs
	}
	for _, c := range ips {
		v, ferr := callFunction(t, autoModeIPsPerNodeFunction, types.StringValue("m5.large"), autoModeArg(c.auto), types.Int64Value(c.pods))
		want := types.ObjectValueMust(autoModeIPsAttrTypes, map[string]attr.Value{"node_subnet": types.Int64Value(c.node),
			"pod_subnet": types.Int64Value(c.pod), "prefixes": types.Int64Value(c.prefixes)})
		if ferr != nil || !v.Equal(want) {
			t.Errorf("auto_mode_ips_per_node(m5.large, %v, %d) = %v, %v; want %v", c.auto, c.pods, v, ferr, want)
		}
	}

	errs := []struct {
		name string
		f    *tableFunction
		args []attr.Value
		arg  int64
		has  string
	}{
		{"unknown type", autoModeMaxPodsFunction, []attr.Value{str("m5.huge"), autoModeArg(nil)}, 0, "not in the provider's instance type table"},
		{"micro", autoModeMaxPodsFunction, []attr.Value{str("t3.micro"), autoModeArg(nil)}, 0, "EKS Auto Mode does not launch"},
		{"bad size", autoModeMaxPodsFunction, []attr.Value{str("m5.large"), autoModeArg(map[string]attr.Value{"ipv4_prefix_size": str("28")})},
			1, `auto_mode.ipv4_prefix_size must be "Auto" or "32"`},
		{"VPC CNI key", autoModeMaxPodsFunction, []attr.Value{str("m5.large"), autoModeArg(map[string]attr.Value{"prefix_delegation": boolean(true)})},
			1, "auto_mode.prefix_delegation is not an auto_mode attribute"},
		{"wrong type", autoModeMaxPodsFunction, []attr.Value{str("m5.large"), autoModeArg(map[string]attr.Value{"pod_subnets": str("yes")})},
			1, "auto_mode.pod_subnets must be a bool"},
		{"not an object", autoModeMaxPodsFunction, []attr.Value{str("m5.large"), types.DynamicValue(str("on"))}, 1, "auto_mode must be an object"},
		{"negative pods", autoModeIPsPerNodeFunction, []attr.Value{str("m5.large"), autoModeArg(nil), types.Int64Value(-1)}, 2, "must not be negative"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			_, ferr := callFunction(t, c.f, c.args...)
			if ferr == nil || ferr.FunctionArgument == nil || *ferr.FunctionArgument != c.arg || !strings.Contains(ferr.Text, c.has) {
				t.Errorf("error %v; want one on argument %d containing %q", ferr, c.arg, c.has)
			}
		})
	}
}

// The Auto Mode functions in a plan, through Terraform's own type conversion of the argument.
func TestAccFunctions_autoMode(t *testing.T) {
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{Config: `
output "prefixes"    { value = provider::karpenter::auto_mode_max_pods("m5.large", {}) }
output "secondary"   { value = provider::karpenter::auto_mode_max_pods("m5.large", { ipv4_prefix_size = "32" }) }
output "pod_subnets" { value = provider::karpenter::auto_mode_max_pods("m5.large", { ipv4_prefix_size = "32", pod_subnets = true }) }
output "blocks"      { value = provider::karpenter::auto_mode_ips_per_node("m5.large", null, 110).prefixes }
`, Check: resource.ComposeAggregateTestCheckFunc(resource.TestCheckOutput("prefixes", "110"),
				resource.TestCheckOutput("secondary", "29"), resource.TestCheckOutput("pod_subnets", "20"),
				resource.TestCheckOutput("blocks", "7"))},
			{Config: `output "x" { value = provider::karpenter::auto_mode_max_pods("t3.micro", {}) }`,
				ExpectError: regexp.MustCompile(`(?s)Invalid value for "instance_type" parameter.*EKS Auto Mode does not\s+launch`)},
		},
	})
}
