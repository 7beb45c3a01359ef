package provider

// Karpenter's own validation suites, replayed at `terraform plan`.
//
// The cases are the inputs of Karpenter's upstream tests, written in this provider's HCL:
//   - kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation_cel_test.go (NodePool)
//   - aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_validation_cel_test.go (EC2NodeClass)
//   - aws/karpenter-provider-aws pkg/apis/v1/kubeletconfiguration_validation_test.go (spec.kubelet)
//
// Every case carries the upstream test's file and Describe/Context/It (and Entry) text as its
// source. An input Karpenter rejects must fail the plan with an error on the attribute that holds
// it; an input Karpenter accepts must plan. Where the upstream object names AWS things that do not
// exist here (subnet-12345749, a security group called testname, us-west-2 zones), the case uses
// the fixture's own; the case name says so.
//
// Upstream cases left out, by kind:
//   - NodeClassRef (group/kind/name unset or mutated): the provider writes nodeClassRef itself from node_class.
//   - Update scenarios and immutability (static <-> dynamic, role changes, nodeClassRef mutation): a CEL transition rule needs an old object; a plan of a new resource has none.
//   - "should pass RuntimeValidate ..." and "should fail at runtime ..." (keys too long, label key with spaces): admission accepts these; only Karpenter's controller judges them.
//   - consolidationPolicy "WhenUnderutilized" (v1beta1): the provider refuses it with the v1 name as the fix (nodepool tests), as the v1 CRD does.
//   - nil selector terms (subnet, security group): an omitted attribute means the karpenter.sh/discovery default here.
//   - kubelet as an open map (unknown fields, nested subtrees, registerWithTaints, evictionMinimumReclaim, values of the wrong JSON type, CEL expressions such as "vcpus * 10", persisting/preserving them): later Karpenter's open map; the v1.14 CRD and this schema type kubelet, so these cannot be written.
//
// placement_group_selector and context have no upstream admission test: their invalid cases come
// from the CRD's rules (source says so), their valid values from other upstream tests.
//
// Nine NodePool inputs Karpenter admits name nothing a node could launch with ("test" zones,
// instance type "instance0", Gt on the zone key); the provider refuses a pool that can launch
// nothing, by design. They run in valid_unlaunchable, which expects exactly that refusal; the
// valid cases plan the same shapes with real values.
//
// Set KARPENTER_SUITE_EACH=1 to plan every case in a test case of its own: slower, but one
// failing case no longer stops the ones after it, so a run lists every gap at once.

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// The upstream files.
const (
	upNodePool = "kubernetes-sigs/karpenter pkg/apis/v1/nodepool_validation_cel_test.go"
	upClass    = "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_validation_cel_test.go"
	upKubelet  = "aws/karpenter-provider-aws pkg/apis/v1/kubeletconfiguration_validation_test.go"
	upPlaceGrp = "aws/karpenter-provider-aws pkg/controllers/nodeclass/placementgroup_test.go"
	upHash     = "aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go"
	crdClass   = "CRD karpenter.k8s.aws_ec2nodeclasses.yaml (v1.14), no upstream test"
)

// suiteCase is one upstream input. path and msg are set for inputs Karpenter rejects: the plan must
// fail with an error diagnostic on path (Terraform notation) whose text has the words of msg.
type suiteCase struct {
	source string
	config string
	path   string
	msg    string
}

func srcOf(file string, names ...string) string { return file + ": " + strings.Join(names, " / ") }

// hclBlock writes `key = value` lines for base overridden by kv (pairs; an empty value drops the
// key), sorted by key.
func hclBlock(indent string, base map[string]string, kv []string) string {
	m := maps.Clone(base)
	if m == nil {
		m = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(m, kv[i])
		} else {
			m[kv[i]] = kv[i+1]
		}
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s%s = %s\n", indent, k, m[k])
	}
	return b.String()
}

// suiteClass is the upstream EC2NodeClass fixture (AL2023, alias al2023@latest, role role-1) with
// the attributes of kv set (or, with an empty value, removed). Selector terms default to the
// discovery tag of the provider's cluster_name.
func suiteClass(kv ...string) string {
	base := map[string]string{"ami_family": `"AL2023"`, "ami_selector_terms": `[{ alias = "al2023@latest" }]`, "role": `"role-1"`}
	return "\nresource \"karpenter_node_class\" \"test\" {\n  name = \"default\"\n" + hclBlock("  ", base, kv) + "}\n"
}

// Node classes for the pools: the default one, and one with an AMI id for static pools.
const (
	poolClassDefault = `ami_selector_terms = [{ alias = "al2023@latest" }]
  role               = "KarpenterNodeRole"`
	poolClassStatic = `ami_family         = "AL2023"
  ami_selector_terms = [{ id = "ami-0123456789abcdef0" }]
  role               = "KarpenterNodeRole"
  instance_profile_for_static_pools = true`
)

// suitePool is the upstream NodePool fixture (one requirement, karpenter.sh/capacity-type
// Exists) on a node class. kv sets attributes: "template.X" inside template, "class" the whole
// node class body, anything else at the top of the pool; an empty value removes one.
func suitePool(kv ...string) string {
	tmpl := map[string]string{"requirements": `[{ key = "karpenter.sh/capacity-type", operator = "Exists" }]`}
	top := map[string]string{}
	class := poolClassDefault
	var tkv, pkv []string
	for i := 0; i+1 < len(kv); i += 2 {
		switch k, v := kv[i], kv[i+1]; {
		case k == "class":
			class = v
		case strings.HasPrefix(k, "template."):
			tkv = append(tkv, strings.TrimPrefix(k, "template."), v)
		default:
			pkv = append(pkv, k, v)
		}
	}
	return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  %s
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
  template = {
%s  }
%s}
`, class, hclBlock("    ", tmpl, tkv), hclBlock("  ", top, pkv))
}

// disruption writes a disruption block; budgets may be empty.
func disruption(policy, after, budgets string) string {
	s := fmt.Sprintf("{\n    consolidation_policy = %q\n    consolidate_after    = %q\n", policy, after)
	if budgets != "" {
		s += "    budgets              = " + budgets + "\n"
	}
	return s + "  }"
}

// budgetCron is the upstream budget: nodes 10, schedule * * * * *, duration 20m (as the API
// server receives a metav1.Duration: 20m0s), plus extra attributes.
func budgetCron(extra string) string {
	b := `{ nodes = "10", schedule = "* * * * *", duration = "20m0s"`
	if extra != "" {
		b += ", " + extra
	}
	return disruption("WhenEmptyOrUnderutilized", "0s", "["+b+" }]")
}

// metadataOptions fills the attributes the upstream object leaves to the CRD defaults.
func metadataOptions(endpoint, ipv6, hop, tokens string) string {
	return fmt.Sprintf(`{ http_endpoint = %q, http_protocol_ipv6 = %q, http_put_response_hop_limit = %s, http_tokens = %q }`, endpoint, ipv6, hop, tokens)
}

// --- NodePool --------------------------------------------------------------------------------

func nodePoolSuiteInvalid() []suiteCase {
	src := func(names ...string) string {
		return srcOf(upNodePool, append([]string{"CEL/Validation"}, names...)...)
	}
	var cs []suiteCase
	add := func(source, cfg, path, msg string) {
		cs = append(cs, suiteCase{source: source, config: cfg, path: path, msg: msg})
	}
	wea := func(after string) string { return disruption("WhenEmptyOrUnderutilized", after, "") }

	// Disruption.
	for _, e := range [][2]string{{"negative", "-1s"}, {"invalid unit", "1hr"}, {"partial match", "FooNever"}} {
		add(src("Disruption", "should fail on an invalid expireAfter", e[0]), suitePool("template.expire_after", fmt.Sprintf("%q", e[1])),
			"template.expire_after", fmt.Sprintf("%q is not a duration like 720h or Never", e[1]))
	}
	for _, e := range [][2]string{{"negative", "-1s"}, {"invalid unit", "1hr"}, {"partial match", "FooNever"}} {
		add(src("Disruption", "should fail on an invalid consolidateAfter", e[0]), suitePool("disruption", wea(e[1])),
			"disruption.consolidate_after", fmt.Sprintf("%q is not a duration like 30s or Never", e[1]))
	}
	for _, e := range [][2]string{
		{"quoted 1", "1"}, {"quoted 2", "2"}, {"quoted 3", "3"}, {"level 0", "0"}, {"level 4", "4"}, {"level 10", "10"},
		{"lowercase balanced", "balanced"}, {"lowercase whenempty", "whenempty"}, {"empty string", ""}, {"arbitrary string", "foo"},
	} {
		add(src("Disruption", "should fail on an invalid consolidationPolicy", e[0]), suitePool("disruption", disruption(e[1], "0s", "")),
			"disruption.consolidation_policy", fmt.Sprintf("%q is not a consolidation policy", e[1]))
	}
	budgets := func(bs ...string) string {
		return disruption("WhenEmptyOrUnderutilized", "0s", "["+strings.Join(bs, ", ")+"]")
	}
	add(src("Disruption", "should fail when creating a budget with an invalid cron"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "*", duration = "20m0s" }`)), "disruption.budgets[0].schedule", "should match")
	add(src("Disruption", "should fail when creating a schedule with less than 5 entries"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "* * * * ", duration = "20m0s" }`)), "disruption.budgets[0].schedule", "should match")
	add(src("Disruption", "should fail when creating a budget with a negative duration"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "* * * * *", duration = "-20m0s" }`)), "disruption.budgets[0].duration", `"-20m0s" is not a budget duration`)
	add(src("Disruption", "should fail when creating a budget with a seconds duration"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "* * * * *", duration = "30s" }`)), "disruption.budgets[0].duration", `"30s" is not a budget duration`)
	for _, e := range [][2]string{
		{"should fail when creating a budget with a negative value int", "-10"},
		{"should fail when creating a budget with a negative value percent", "-10%"},
		{"should fail when creating a budget with a value percent with more than 3 digits", "1000%"},
	} {
		add(src("Disruption", e[0]), suitePool("disruption", budgets(fmt.Sprintf(`{ nodes = %q }`, e[1]))),
			"disruption.budgets[0].nodes", fmt.Sprintf("%q is not a node count or a percentage", e[1]))
	}
	add(src("Disruption", "should fail when creating a budget with a cron but no duration"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "* * * * *" }`)), "disruption.budgets[0]", "go together: set both or neither")
	add(src("Disruption", "should fail when creating a budget with a duration but no cron"),
		suitePool("disruption", budgets(`{ nodes = "10", duration = "20m0s" }`)), "disruption.budgets[0]", "go together: set both or neither")
	add(src("Disruption", "should fail when creating two budgets where one has an invalid crontab"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "@annually", duration = "20m0s" }`, `{ nodes = "10", schedule = "*", duration = "20m0s" }`)),
		"disruption.budgets[1].schedule", "should match")
	add(src("Disruption", "should fail when creating multiple budgets where one doesn't have both schedule and duration"),
		suitePool("disruption", budgets(`{ nodes = "10", duration = "20m0s" }`, `{ nodes = "10", schedule = "* * * * *", duration = "20m0s" }`, `{ nodes = "10" }`)),
		"disruption.budgets[0]", "go together: set both or neither")
	for _, e := range [][2]string{{"should not allow invalid reason", "invalid"}, {"should not allow expired disruption reason", "expired"}, {"should not allow empty reason", ""}} {
		add(src("Disruption", "should fail when creating a budget with invalid reasons", e[0]),
			suitePool("disruption", budgetCron(fmt.Sprintf(`reasons = [%q]`, e[1]))), "disruption.budgets[0].reasons", fmt.Sprintf("%q is not a disruption reason", e[1]))
	}

	// Taints.
	for _, key := range []string{"test.com.com}", "Test.com/test", "test/test/test", "test/", "/test"} {
		add(src("Taints", "should fail for invalid taint keys", key),
			suitePool("template.taints", fmt.Sprintf(`[{ key = %q, effect = "NoSchedule" }]`, key)), "template.taints[0].key", "should match")
	}
	add(src("Taints", "should fail for missing taint key"),
		suitePool("template.taints", `[{ key = "", effect = "NoSchedule" }]`), "template.taints[0].key", "should be at least 1 chars long")
	add(src("Taints", "should fail for invalid taint value"),
		suitePool("template.taints", `[{ key = "invalid-value", effect = "NoSchedule", value = "???" }]`), "template.taints[0].value", "should match")
	add(src("Taints", "should fail for invalid taint effect"),
		suitePool("template.taints", `[{ key = "invalid-effect", effect = "???" }]`), "template.taints[0].effect", "value must be one of")

	// Requirements.
	req := func(r string) string { return suitePool("template.requirements", "["+r+"]") }
	for _, key := range []string{"test.com.com}", "Test.com/test", "test/test/test", "test/", "/test"} {
		add(src("Requirements", "should fail for invalid requirement keys", key),
			req(fmt.Sprintf(`{ key = %q, operator = "Exists" }`, key)), "template.requirements[0].key", "is not a qualified label name")
	}
	add(src("Requirements", "should fail for the karpenter.sh/nodepool label"),
		req(`{ key = "karpenter.sh/nodepool", operator = "In", values = ["Snugglepuff"] }`), "template.requirements[0].key", `label "karpenter.sh/nodepool" is restricted`)
	add(src("Requirements", "should fail for unsupported ops", "unknown"),
		req(`{ key = "topology.kubernetes.io/zone", operator = "unknown", values = ["test"] }`), "template.requirements[0].operator", `unknown operator "unknown"`)
	add(src("Requirements", "should fail for restricted domains", "karpenter.sh"),
		req(`{ key = "karpenter.sh/test", operator = "In", values = ["test"] }`), "template.requirements[0].key", `label domain "karpenter.sh" is restricted`)
	add(src("Requirements", "should fail for restricted labels", "kubernetes.io/hostname"),
		req(`{ key = "kubernetes.io/hostname/test", operator = "In", values = ["test"] }`), "template.requirements[0].key", "is not a qualified label name")
	for _, it := range []struct{ name, ops string }{{"should fail with invalid GT or LT values", "Gt Lt"}, {"should fail with invalid GTE or LTE values", "Gte Lte"}} {
		for _, op := range strings.Fields(it.ops) {
			for _, v := range []struct{ values, msg string }{
				{`[]`, fmt.Sprintf("operator %s requires exactly one value, got 0", op)},
				{`["1", "2"]`, fmt.Sprintf("operator %s requires exactly one value, got 2", op)},
				{`["a"]`, fmt.Sprintf(`operator %s requires a single integer value >= 0, got "a"`, op)},
				{`["-1"]`, fmt.Sprintf(`operator %s requires a single integer value >= 0, got "-1"`, op)},
			} {
				add(src("Requirements", it.name, op+" "+v.values),
					req(fmt.Sprintf(`{ key = "topology.kubernetes.io/zone", operator = %q, values = %s }`, op, v.values)), "template.requirements[0].values", v.msg)
			}
		}
	}
	it1 := `key = "node.kubernetes.io/instance-type", operator = "In", values = ["insance-type-1"]`
	add(src("Requirements", "should error when minValues is negative"), req(`{ `+it1+`, min_values = -1 }`), "template.requirements[0].min_values", "min_values must be between 1 and 50, got -1")
	add(src("Requirements", "should error when minValues is zero"), req(`{ `+it1+`, min_values = 0 }`), "template.requirements[0].min_values", "min_values must be between 1 and 50, got 0")
	add(src("Requirements", "should error when minValues is more than 50"),
		req(`{ key = "node.kubernetes.io/instance-type", operator = "Exists", min_values = 51 }`), "template.requirements[0].min_values", "min_values must be between 1 and 50, got 51")
	add(src("Requirements", "should error when minValues is greater than the number of unique values specified within In operator"),
		req(`{ `+it1+`, min_values = 2 }`), "template.requirements[0].min_values", "min_values is 2 but operator In lists only 1 value(s)")

	// Labels.
	add(src("Labels", "should fail for the karpenter.sh/nodepool label"),
		suitePool("template.labels", `{ "karpenter.sh/nodepool" = "Snugglepuff" }`), `template.labels["karpenter.sh/nodepool"]`, `label "karpenter.sh/nodepool" is restricted`)
	add(src("Labels", "should fail for invalid label values"),
		suitePool("template.labels", `{ Snugglepuff = "/ is not allowed" }`), `template.labels["Snugglepuff"]`, "is not a valid label value")
	add(src("Labels", "should fail for restricted label domains", "karpenter.sh"),
		suitePool("template.labels", `{ "karpenter.sh/unknown" = "Snugglepuff" }`), `template.labels["karpenter.sh/unknown"]`, `label domain "karpenter.sh" is restricted`)

	// TerminationGracePeriod.
	for _, e := range [][2]string{{"negative", "-1s"}, {"invalid unit", "1hr"}, {"never", "Never"}, {"partial match", "FooNever"}} {
		add(src("TerminationGracePeriod", "should fail on an invalid terminationGracePeriod", e[0]),
			suitePool("template.termination_grace_period", fmt.Sprintf("%q", e[1])), "template.termination_grace_period", fmt.Sprintf("%q is not a duration like 48h", e[1]))
	}

	// Replicas: static pools need a node class with an AMI id.
	static := func(kv ...string) string { return suitePool(append([]string{"class", poolClassStatic}, kv...)...) }
	add(src("Replicas", "Invalid Replicas Values", "should fail when replicas is set to a negative value"),
		static("replicas", "-100"), "replicas", "value must be at least 0, got: -100")
	for _, e := range [][3]string{
		{"limits.cpu", `{ cpu = "1000" }`, `limits["cpu"]`},
		{"limits.memory", `{ memory = "2000Gi" }`, `limits["memory"]`},
		{"limits.pods", `{ pods = "10" }`, `limits["pods"]`},
		{"limits.ephemeral-storage", `{ "ephemeral-storage" = "10Gi" }`, `limits["ephemeral-storage"]`},
	} {
		add(src("Replicas", "should fail for incompatible fields", e[0]), static("replicas", "10", "limits", e[1]), e[2], "may only limit `nodes`")
	}
	add(src("Replicas", "should fail for incompatible fields", "weight"), static("replicas", "10", "weight", "25"), "weight", "is not allowed on a static pool")
	return cs
}

func nodePoolSuiteValid(zones []string) []suiteCase {
	src := func(names ...string) string {
		return srcOf(upNodePool, append([]string{"CEL/Validation"}, names...)...)
	}
	var cs []suiteCase
	add := func(source, cfg string) { cs = append(cs, suiteCase{source: source, config: cfg}) }
	wea := func(after string) string { return disruption("WhenEmptyOrUnderutilized", after, "") }

	// Disruption.
	add(src("Disruption", "should succeed on a disabled expireAfter"), suitePool("template.expire_after", `"Never"`))
	for _, e := range [][2]string{{"single unit", "30s"}, {"multiple units", "1h30m5s"}, {"never", "Never"}} {
		add(src("Disruption", "should succeed on a valid expireAfter", e[0]), suitePool("template.expire_after", fmt.Sprintf("%q", e[1])))
	}
	add(src("Disruption", "should succeed on a disabled consolidateAfter"), suitePool("disruption", wea("Never")))
	for _, e := range [][2]string{{"single unit", "30s"}, {"multiple units", "1h30m5s"}, {"never", "Never"}} {
		add(src("Disruption", "should succeed on a valid consolidateAfter", e[0]), suitePool("disruption", wea(e[1])))
	}
	add(src("Disruption", "should succeed when setting consolidateAfter with consolidationPolicy=WhenEmpty"), suitePool("disruption", disruption("WhenEmpty", "30s", "")))
	add(src("Disruption", "should succeed when setting consolidateAfter with consolidationPolicy=WhenUnderutilized"), suitePool("disruption", wea("30s")))
	add(src("Disruption", "should succeed when setting consolidateAfter to 'Never' with consolidationPolicy=WhenUnderutilized"), suitePool("disruption", wea("Never")))
	add(src("Disruption", "should succeed when setting consolidateAfter to 'Never' with consolidationPolicy=WhenEmpty"), suitePool("disruption", disruption("WhenEmpty", "Never", "")))
	add(src("Disruption", "should default consolidateAfter to '0s' when omitted on a dynamic NodePool", "(disruption omitted)"), suitePool())
	for _, p := range []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"} {
		add(src("Disruption", "should succeed on a valid consolidationPolicy", p), suitePool("disruption", disruption(p, "0s", "")))
	}
	budgets := func(bs string) string { return disruption("WhenEmptyOrUnderutilized", "0s", "["+bs+"]") }
	add(src("Disruption", "should succeed when creating a budget with both duration and cron"), suitePool("disruption", budgetCron("")))
	add(src("Disruption", "should succeed when creating a budget with hours and minutes in duration"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "* * * * *", duration = "2h20m0s" }`)))
	add(src("Disruption", "should succeed when creating a budget with neither duration nor cron"), suitePool("disruption", budgets(`{ nodes = "10" }`)))
	add(src("Disruption", "should succeed when creating a budget with special cased crons"),
		suitePool("disruption", budgets(`{ nodes = "10", schedule = "@annually", duration = "20m0s" }`)))
	for _, r := range []string{"Drifted", "Underutilized", "Empty"} {
		add(src("Disruption", "should succeed when creating a budget with valid reasons", "should allow disruption reason "+r),
			suitePool("disruption", budgetCron(fmt.Sprintf(`reasons = [%q]`, r))))
	}
	add(src("Disruption", "should allow setting multiple reasons"), suitePool("disruption", budgetCron(`reasons = ["Drifted", "Empty"]`)))

	// Taints.
	add(src("Taints", "should succeed for valid taints"), suitePool("template.taints", `[
      { key = "a", value = "b", effect = "NoSchedule" },
      { key = "c", value = "d", effect = "NoExecute" },
      { key = "e", value = "f", effect = "PreferNoSchedule" },
      { key = "Test", value = "f", effect = "PreferNoSchedule" },
      { key = "test.com/Test", value = "f", effect = "PreferNoSchedule" },
      { key = "test.com.com/test", value = "f", effect = "PreferNoSchedule" },
      { key = "key-only", effect = "NoExecute" },
    ]`))
	add(src("Taints", "should not fail for same key with different effects"),
		suitePool("template.taints", `[{ key = "a", effect = "NoSchedule" }, { key = "a", effect = "NoExecute" }]`))

	// Requirements.
	req := func(rs ...string) string {
		return suitePool("template.requirements", "[\n      "+strings.Join(rs, ",\n      ")+",\n    ]")
	}
	add(src("Requirements", "should succeed for valid requirement keys"), req(
		`{ key = "Test", operator = "Exists" }`, `{ key = "test.com/Test", operator = "Exists" }`,
		`{ key = "test.com.com/test", operator = "Exists" }`, `{ key = "key-only", operator = "Exists" }`))
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		add(src("Requirements", "should allow kubernetes domains", d), req(fmt.Sprintf(`{ key = "%s/test", operator = "In", values = ["test"] }`, d)))
	}
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		add(src("Requirements", "should allow kubernetes subdomains exceptions", d), req(fmt.Sprintf(`{ key = "subdomain.%s/test", operator = "In", values = ["test"] }`, d)))
	}
	// The upstream values ("test", "foo", "instance0") name nothing a node could be launched
	// with; here they are real ones (nodePoolSuiteUnlaunchable keeps the upstream values).
	for _, e := range [][2]string{
		{"topology.kubernetes.io/zone", zones[0]}, {"topology.kubernetes.io/region", acctest.Region()},
		{"node.kubernetes.io/instance-type", "m5.large"}, {"kubernetes.io/arch", "amd64"}, {"kubernetes.io/os", "linux"},
	} {
		add(src("Requirements", "should allow well known label exceptions", e[0], fmt.Sprintf("(value %s instead of test)", e[1])),
			req(fmt.Sprintf(`{ key = %q, operator = "In", values = [%q] }`, e[0], e[1])))
	}
	add(src("Requirements", "should allow non-empty set after removing overlapped value", "(the fixture's zones a, b, c for test, foo, bar)"), req(
		fmt.Sprintf(`{ key = "topology.kubernetes.io/zone", operator = "In", values = [%q, %q] }`, zones[0], zones[1]),
		fmt.Sprintf(`{ key = "topology.kubernetes.io/zone", operator = "NotIn", values = [%q, %q] }`, zones[0], zones[2])))
	add(src("Requirements", "should allow empty requirements"), suitePool("template.requirements", "[]"))
	add(src("Requirements", "should allow more than 50 values if minValues is not specified.", "(90 real instance types instead of instance0..89)"),
		req(fmt.Sprintf(`{ key = "node.kubernetes.io/instance-type", operator = "In", values = %s }`, ninetyInstanceTypes())))

	// Labels.
	add(src("Labels", "should allow unrecognized labels"), suitePool("template.labels", `{ foo = "Snugglepuff" }`))
	add(src("Labels", "should allow labels kOps require"),
		suitePool("template.labels", `{ "kops.k8s.io/instancegroup" = "karpenter-nodes", "kops.k8s.io/gpu" = "1" }`))
	for _, it := range []struct{ name, format string }{
		{"should allow labels in kubernetes domains", "%s"},
		{"should allow labels prefixed with the kubernetes domain", "%s/key"},
		{"should allow subdomain labels in restricted domains exceptions list", "subdomain.%s"},
		{"should allow subdomain labels prefixed with the kubernetes domain", "subdomain.%s/key"},
	} {
		for _, d := range []string{"kubernetes.io", "k8s.io"} {
			add(src("Labels", it.name, d), suitePool("template.labels", fmt.Sprintf(`{ %q = "test-value" }`, fmt.Sprintf(it.format, d))))
		}
	}

	// TerminationGracePeriod.
	for _, e := range [][2]string{{"single unit", "30s"}, {"multiple units", "1h30m5s"}} {
		add(src("TerminationGracePeriod", "should succeed on a valid terminationGracePeriod", e[0]), suitePool("template.termination_grace_period", fmt.Sprintf("%q", e[1])))
	}

	// Replicas: static pools need a node class with an AMI id.
	static := func(kv ...string) string { return suitePool(append([]string{"class", poolClassStatic}, kv...)...) }
	for _, e := range [][2]string{
		{"should succeed when replicas is set to a positive value", "5"},
		{"should succeed when replicas is set to zero", "0"},
		{"should succeed when replicas is set to a large value", "1000"},
	} {
		add(src("Replicas", "Valid Replicas Values", e[0]), static("replicas", e[1]))
	}
	compatible := func(name string, kv ...string) {
		add(src("Replicas", "should succeed for compatible fields", name), static(append([]string{"replicas", "10"}, kv...)...))
	}
	compatible("limits.nodes", "limits", `{ nodes = "100" }`)
	compatible("disruption with multiple budgets", "disruption", disruption("WhenEmptyOrUnderutilized", "5m", `[
      { nodes = "20%", schedule = "0 9 * * mon-fri", duration = "8h0m0s", reasons = ["Drifted", "Empty"] },
      { nodes = "30%", schedule = "0 22 * * sat,sun", duration = "4h0m0s", reasons = ["Underutilized"] },
      { nodes = "5" },
    ]`))
	compatible("template labels", "template.labels", `{ environment = "production" }`)
	compatible("template annotations", "template.annotations", `{ "example.com/last-updated" = "2024-01-01" }`)
	compatible("taints", "template.taints", `[{ key = "gpu-workload", value = "enabled", effect = "NoSchedule" }]`)
	compatible("startup taints", "template.startup_taints", `[{ key = "example.com/initializing", value = "true", effect = "NoSchedule" }]`)
	compatible("requirements (zones: the fixture's three instead of us-west-2a/b/c)", "template.requirements", fmt.Sprintf(`[
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "m5.2xlarge", "c5.large", "c5.xlarge", "r5.large", "r5.xlarge"], min_values = 3 },
      { key = "topology.kubernetes.io/zone", operator = "In", values = [%q, %q, %q] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand", "spot"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
      { key = "karpenter.k8s.aws/instance-memory", operator = "Gt", values = ["8192"] },
      { key = "karpenter.k8s.aws/instance-cpu", operator = "Lt", values = ["64"] },
    ]`, zones[0], zones[1], zones[2]))
	compatible("expireAfter", "template.expire_after", `"72h"`)
	compatible("terminationGracePeriod", "template.termination_grace_period", `"5m0s"`)
	add(src("Replicas", "should succeed when consolidateAfter is omitted on a static NodePool", "(disruption omitted)"), static("replicas", "3"))
	return cs
}

// ninetyInstanceTypes is an HCL list of 90 real instance types.
func ninetyInstanceTypes() string {
	var names []string
	for _, f := range []struct {
		families, sizes string
	}{
		{"m5 r5 m5d r5d", "large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge"},
		{"m6i c6i r6i", "large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 32xlarge"},
		{"m6a c6a r6a", "large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 32xlarge 48xlarge"},
		{"m5", "metal"},
	} {
		for _, fam := range strings.Fields(f.families) {
			for _, size := range strings.Fields(f.sizes) {
				names = append(names, fmt.Sprintf("%q", fam+"."+size))
			}
		}
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// nodePoolSuiteUnlaunchable are upstream inputs Karpenter admits that the provider refuses by
// design: with the upstream placeholder values ("test", "foo", "instance0") no instance type or
// zone satisfies the requirements, and a pool that can launch nothing fails the plan. Each must
// fail with that finding (not with an admission error); nodePoolSuiteValid plans the same shapes
// with real values. Should the provider ever plan one of these, move it to the valid cases.
// nodeClassSuiteUnresolvable are upstream valid EC2NodeClass inputs whose AMI terms name an
// owner account that has no image here: the API server admits them, the provider's plan (like
// Karpenter's AMIsReady condition) finds no image.
func nodeClassSuiteUnresolvable(f classFixture) []suiteCase {
	src := func(names ...string) string { return srcOf(upClass, append([]string{"CEL/Validation"}, names...)...) }
	ami := func(terms string) string { return suiteClass("ami_selector_terms", terms) }
	const msg = "no available image matched"
	return []suiteCase{
		{source: src("AMISelectorTerms", "should succeed with a valid ami selector on name and owner"),
			config: ami(fmt.Sprintf(`[{ name = %q, owner = "testowner" }]`, f.imageName)), path: "ami_selector_terms[0]", msg: msg},
		{source: src("AMISelectorTerms", "should succeed when an ami selector term has an owner key with tags"),
			config: ami(fmt.Sprintf(`[{ owner = "testowner", tags = { test = %q } }]`, f.testValue)), path: "ami_selector_terms[0]", msg: msg},
	}
}

func nodePoolSuiteUnlaunchable() []suiteCase {
	src := func(names ...string) string {
		return srcOf(upNodePool, append([]string{"CEL/Validation"}, names...)...)
	}
	var cs []suiteCase
	add := func(source, cfg, path, msg string) {
		cs = append(cs, suiteCase{source: source, config: cfg, path: path, msg: msg})
	}
	req := func(rs ...string) string {
		return suitePool("template.requirements", "[\n      "+strings.Join(rs, ",\n      ")+",\n    ]")
	}
	const noZone, noType = "the zone requirements allow none of node class", "no instance type in the catalog"
	add(src("Requirements", "should allow supported ops"), req(
		`{ key = "topology.kubernetes.io/zone", operator = "In", values = ["test"] }`,
		`{ key = "topology.kubernetes.io/zone", operator = "Gt", values = ["1"] }`,
		`{ key = "topology.kubernetes.io/zone", operator = "Lt", values = ["1"] }`,
		`{ key = "topology.kubernetes.io/zone", operator = "NotIn" }`,
		`{ key = "topology.kubernetes.io/zone", operator = "Exists" }`), "template.requirements", noZone)
	for _, k := range []string{"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type",
		"kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/windows-build"} {
		msg := noType
		if k == "topology.kubernetes.io/zone" {
			msg = noZone
		}
		add(src("Requirements", "should allow well known label exceptions", k), req(fmt.Sprintf(`{ key = %q, operator = "In", values = ["test"] }`, k)),
			"template.requirements", msg)
	}
	add(src("Requirements", "should allow non-empty set after removing overlapped value"), req(
		`{ key = "topology.kubernetes.io/zone", operator = "In", values = ["test", "foo"] }`,
		`{ key = "topology.kubernetes.io/zone", operator = "NotIn", values = ["test", "bar"] }`), "template.requirements", noZone)
	add(src("Requirements", "should allow more than 50 values if minValues is not specified."),
		req(`{ key = "node.kubernetes.io/instance-type", operator = "In", values = [for i in range(90) : "instance${i}"] }`), "template.requirements", noType)
	return cs
}

// --- EC2NodeClass ----------------------------------------------------------------------------

// classFixture is what the valid node-class cases select: subnet 0 and security group 0 of the
// fixture network carry tag test = testValue.
type classFixture struct {
	testValue                    string
	subnetID, groupID, groupName string
	imageName                    string // of an image tagged test = testValue
}

var amiFamilies = []string{"AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025"}

func nodeClassSuiteInvalid() []suiteCase {
	src := func(names ...string) string { return srcOf(upClass, append([]string{"CEL/Validation"}, names...)...) }
	var cs []suiteCase
	add := func(source, cfg, path, msg string) {
		cs = append(cs, suiteCase{source: source, config: cfg, path: path, msg: msg})
	}
	q := func(s string) string { return fmt.Sprintf("%q", s) }

	add(src("should fail if specifying both instance profile and role"), suiteClass("instance_profile", `"test-instance-profile"`),
		"instance_profile", "are mutually exclusive")
	add(src("should fail if not specifying one of instance profile and role"), suiteClass("role", ""), "role", "exactly one of")

	// AMIFamily.
	add(src("AMIFamily", "should fail with the ubuntu family"),
		suiteClass("ami_family", `"Ubuntu"`, "ami_selector_terms", `[{ id = "ami-0123456789abcdef" }]`), "ami_family", `unknown AMI family "Ubuntu"`)
	for _, fam := range amiFamilies {
		for _, other := range amiFamilies {
			if fam == other {
				continue
			}
			alias := strings.ToLower(other) + "@latest"
			add(src("AMIFamily", "should fail when then amiFamily does not match amiSelectorTerms[].alias", fmt.Sprintf("family %q with alias %q", fam, alias)),
				suiteClass("ami_family", q(fam), "ami_selector_terms", fmt.Sprintf(`[{ alias = %q }]`, alias)), "ami_family", "contradicts the alias family")
		}
	}
	add(src("AMIFamily", "should fail when neither amiFamily nor an alias are specified"),
		suiteClass("ami_family", "", "ami_selector_terms", `[{ id = "ami-01234567890abcdef" }]`), "ami_family", "is required when no AMI selector term is an alias")

	// Tags.
	for _, k := range []string{"karpenter.sh/nodepool", "kubernetes.io/cluster/test", "eks:eks-cluster-name", "karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodeclaim"} {
		msg := fmt.Sprintf("tag key %q is set by Karpenter", k)
		if strings.HasPrefix(k, "kubernetes.io/cluster") {
			msg = `tag keys starting with "kubernetes.io/cluster" are managed by Karpenter`
		}
		add(src("Tags", "should fail if tags contain a restricted domain key", k), suiteClass("tags", fmt.Sprintf(`{ %q = "value" }`, k)), fmt.Sprintf("tags[%q]", k), msg)
	}

	// Selector terms: subnets and security groups share the upstream cases.
	for _, sel := range []struct{ ctx, attr, kind string }{
		{"SubnetSelectorTerms", "subnet_selector_terms", "subnet"},
		{"SecurityGroupSelectorTerms", "security_group_selector_terms", "security group"},
	} {
		a := sel.attr
		add(src(sel.ctx, fmt.Sprintf("should fail when no %s selector terms exist", sel.kind)), suiteClass(a, "[]"), a, "must contain at least 1 elements")
		add(src(sel.ctx, fmt.Sprintf("should fail when a %s selector term has no values", sel.kind)), suiteClass(a, "[{}]"), a+"[0]", fmt.Sprintf("a %s selector term needs", sel.kind))
		add(src(sel.ctx, fmt.Sprintf("should fail when a %s selector term has no tag map values", sel.kind)), suiteClass(a, "[{ tags = {} }]"), a+"[0].tags", "tags must not be empty")
		add(src(sel.ctx, fmt.Sprintf("should fail when a %s selector term has a tag map key that is empty", sel.kind)),
			suiteClass(a, `[{ tags = { test = "" } }]`), a+`[0].tags["test"]`, `tag "test" has an empty value`)
		add(src(sel.ctx, fmt.Sprintf("should fail when a %s selector term has a tag map value that is empty", sel.kind)),
			suiteClass(a, `[{ tags = { "" = "testvalue" } }]`), a+"[0].tags", "tag keys must not be empty")
		add(src(sel.ctx, fmt.Sprintf("should fail when the last %s selector is invalid", sel.kind)),
			suiteClass(a, `[{ tags = { test = "testvalue" } }, { tags = { test2 = "testvalue2" } }, { tags = { test3 = "testvalue3" } }, { tags = { "" = "testvalue4" } }]`),
			a+"[3].tags", "tag keys must not be empty")
	}
	add(src("SubnetSelectorTerms", "should fail when specifying id with tags"),
		suiteClass("subnet_selector_terms", `[{ id = "subnet-12345749", tags = { test = "testvalue" } }]`), "subnet_selector_terms[0].id", "is mutually exclusive with `tags`")
	add(src("SecurityGroupSelectorTerms", "should fail when specifying id with tags"),
		suiteClass("security_group_selector_terms", `[{ id = "sg-12345749", tags = { test = "testvalue" } }]`), "security_group_selector_terms[0].id", "is mutually exclusive with `tags`")
	add(src("SecurityGroupSelectorTerms", "should fail when specifying id with name"),
		suiteClass("security_group_selector_terms", `[{ id = "sg-12345749", name = "my-security-group" }]`), "security_group_selector_terms[0].id", "is mutually exclusive with `tags` and `name`")
	add(src("SecurityGroupSelectorTerms", "should fail when specifying name with tags"),
		suiteClass("security_group_selector_terms", `[{ name = "my-security-group", tags = { test = "testvalue" } }]`), "security_group_selector_terms[0].name", "`name` is mutually exclusive with `tags`")

	// AMISelectorTerms.
	ami := func(terms string) string { return suiteClass("ami_selector_terms", terms) }
	add(src("AMISelectorTerms", "should fail when a ami selector term has no values"), ami("[{}]"), "ami_selector_terms[0]", "a term needs one of")
	add(src("AMISelectorTerms", "should fail when a ami selector term has no tag map values"), ami("[{ tags = {} }]"), "ami_selector_terms[0].tags", "tags must not be empty")
	add(src("AMISelectorTerms", "should fail when a ami selector term has a tag map key that is empty"), ami(`[{ tags = { test = "" } }]`),
		`ami_selector_terms[0].tags["test"]`, `tag "test" has an empty value`)
	add(src("AMISelectorTerms", "should fail when a ami selector term has a tag map value that is empty"), ami(`[{ tags = { "" = "testvalue" } }]`),
		"ami_selector_terms[0].tags", "tag keys must not be empty")
	add(src("AMISelectorTerms", "should fail when the last ami selector is invalid"),
		ami(`[{ tags = { test = "testvalue" } }, { tags = { test2 = "testvalue2" } }, { tags = { test3 = "testvalue3" } }, { tags = { "" = "testvalue4" } }]`),
		"ami_selector_terms[3].tags", "tag keys must not be empty")
	others := []struct{ entry, hcl string }{
		{"alias", `alias = "al2023@latest"`}, {"tags", `tags = { test = "testvalue" }`}, {"name", `name = "my-custom-ami"`}, {"owner", `owner = "123456789"`},
	}
	for _, o := range others {
		add(src("AMISelectorTerms", "should fail when specifying id with other fields", o.entry), ami(`[{ id = "ami-1234749", `+o.hcl+` }]`),
			"ami_selector_terms[0].id", "cannot be combined with")
	}
	others[0] = struct{ entry, hcl string }{"id", `id = "ami-1234749"`}
	for _, o := range others {
		add(src("AMISelectorTerms", "should fail when specifying alias with other fields", o.entry), ami(`[{ alias = "al2023@latest", `+o.hcl+` }]`),
			"ami_selector_terms[0].alias", "cannot be combined with other fields")
	}
	add(src("AMISelectorTerms", "should fail when specifying alias with other terms"), ami(`[{ alias = "al2023@latest" }, { id = "ami-1234749" }]`),
		"ami_selector_terms[0].alias", "must be the only AMI selector term")
	for _, e := range [][2]string{{"missing family", "@latest"}, {"missing version", "al2023"}, {"missing version", "al2023@"}, {"invalid separator", "al2023-latest"}} {
		add(src("AMISelectorTerms", "should fail for incorrectly formatted aliases", e[0], e[1]), ami(fmt.Sprintf(`[{ alias = %q }]`, e[1])),
			"ami_selector_terms[0].alias", fmt.Sprintf("%q is not a valid alias", e[1]))
	}
	add(src("AMISelectorTerms", "should fail for an alias with an invalid family"), ami(`[{ alias = "ubuntu@latest" }]`),
		"ami_selector_terms[0].alias", `"ubuntu@latest" is not a valid alias`)
	for _, w := range []string{"Windows2019", "Windows2022", "Windows2025"} {
		add(src("AMISelectorTerms", "should fail when specifying non-latest versions with Windows aliases", w),
			ami(fmt.Sprintf(`[{ alias = "%s@v1.0.0" }]`, strings.ToLower(w))), "ami_selector_terms[0].alias", "Windows aliases only support @latest")
	}

	// MetadataOptions: the upstream object sets one field, the CRD defaults the others.
	add(src("MetadataOptions", "should fail for invalid for HTTPEndpoint"), suiteClass("metadata_options", metadataOptions("test", "disabled", "1", "required")),
		"metadata_options.http_endpoint", `must be one of enabled, disabled, got "test"`)
	add(src("MetadataOptions", "should fail for invalid for HTTPProtocolIPv6"), suiteClass("metadata_options", metadataOptions("enabled", "test", "1", "required")),
		"metadata_options.http_protocol_ipv6", `must be one of enabled, disabled, got "test"`)
	add(src("MetadataOptions", "should fail for invalid for HTTPPutResponseHopLimit"), suiteClass("metadata_options", metadataOptions("enabled", "disabled", "-5", "required")),
		"metadata_options.http_put_response_hop_limit", "must be between 1 and 64, got -5")
	add(src("MetadataOptions", "should fail for invalid for HTTPTokens"), suiteClass("metadata_options", metadataOptions("enabled", "disabled", "1", "test")),
		"metadata_options.http_tokens", `must be one of required, optional, got "test"`)

	// BlockDeviceMappings: the upstream objects here have no amiFamily (the alias implies it).
	bdm := func(m string) string { return suiteClass("ami_family", "", "block_device_mappings", m) }
	add(src("BlockDeviceMappings", "should fail if more than one root volume is specified"), bdm(`[
    { device_name = "map-device-1", ebs = { volume_size = "50G" }, root_volume = true },
    { device_name = "map-device-2", ebs = { volume_size = "50G" }, root_volume = true },
  ]`), "block_device_mappings[1].root_volume", "at most one block device mapping can be the root volume")
	for _, e := range [][2]string{
		{"should fail VolumeSize is less then 1Gi/1G", "1m"},
		{"should fail VolumeSize is greater then 64T", "100T"},
		{"should fail for VolumeSize that do not parse into quantity values", "0"},
	} {
		add(src("BlockDeviceMappings", e[0]), bdm(fmt.Sprintf(`[{ device_name = "map-device-1", ebs = { volume_size = %q }, root_volume = false }]`, e[1])),
			"block_device_mappings[0].ebs.volume_size", fmt.Sprintf("%q is not a volume size", e[1]))
	}

	// NetworkInterfaces.
	ni := func(ifs ...string) string {
		return suiteClass("network_interfaces", "[\n    "+strings.Join(ifs, ",\n    ")+",\n  ]")
	}
	nif := func(card, dev int, typ string) string {
		return fmt.Sprintf(`{ network_card_index = %d, device_index = %d, interface_type = %q }`, card, dev, typ)
	}
	add(src("NetworkInterfaces", "should fail with an invalid interface type"), ni(nif(0, 0, "efa")),
		"network_interfaces[0].interface_type", `must be "interface" or "efa-only", got "efa"`)
	add(src("NetworkInterfaces", "should fail with a negative NetworkCardIndex"), ni(nif(0, 0, "interface"), nif(-1, 0, "interface")),
		"network_interfaces[1].network_card_index", "must be 0 or more")
	add(src("NetworkInterfaces", "should fail with a negative DeviceIndex"), ni(nif(-1, 0, "interface"), nif(0, -1, "interface")),
		"network_interfaces[1].device_index", "must be 0 or more")
	add(src("NetworkInterfaces", "should fail with duplicate Network Interface and Device Index fields"),
		ni(nif(0, 0, "interface"), nif(0, 1, "efa-only"), nif(1, 0, "interface"), nif(1, 0, "efa-only")),
		"network_interfaces[3]", "duplicates network_interfaces[2]")
	add(src("NetworkInterfaces", "should fail with no primary network interface"), ni(nif(0, 1, "interface")),
		"network_interfaces", "must include the primary interface")
	add(src("NetworkInterfaces", "should fail when primary network interface is not ENA"), ni(nif(0, 0, "efa-only")),
		"network_interfaces", "must include the primary interface")
	add(src("NetworkInterfaces", "should fail when multiple EFA devices on one network card"), ni(nif(0, 0, "interface"), nif(1, 0, "efa-only"), nif(1, 1, "efa-only")),
		"network_interfaces[2].interface_type", "already has an efa-only interface")

	add(src("Role Immutability", "should fail if role is not defined"), suiteClass("role", ""), "role", "exactly one of")
	return cs
}

// nodeClassSuiteInvalidNew covers the attributes added for issue 14 (capacity reservations,
// volume initialization rate, connection tracking, CPU options, placement group): kept apart so
// that they run after the others.
func nodeClassSuiteInvalidNew() []suiteCase {
	src := func(names ...string) string { return srcOf(upClass, append([]string{"CEL/Validation"}, names...)...) }
	var cs []suiteCase
	add := func(source, cfg, path, msg string) {
		cs = append(cs, suiteCase{source: source, config: cfg, path: path, msg: msg})
	}

	// CapacityReservationSelectorTerms.
	crt := func(terms string) string { return suiteClass("capacity_reservation_selector_terms", terms) }
	const a = "capacity_reservation_selector_terms"
	add(src("CapacityReservationSelectorTerms", "should fail with a capacity reservation selector on a malformed id"), crt(`[{ id = "r-12345749" }]`),
		a+"[0].id", `"r-12345749" is not a capacity reservation id`)
	add(src("CapacityReservationSelectorTerms", "should fail when a capacity reservation selector term has no values"), crt(`[{}]`),
		a+"[0]", "a capacity reservation selector term needs")
	add(src("CapacityReservationSelectorTerms", "should fail when a capacity reservation selector term has no tag map values"), crt(`[{ tags = {} }]`),
		a+"[0].tags", "tags must not be empty")
	add(src("CapacityReservationSelectorTerms", "should fail when a capacity reservation selector term has a tag map key that is empty"), crt(`[{ tags = { test = "" } }]`),
		a+`[0].tags["test"]`, `tag "test" has an empty value`)
	add(src("CapacityReservationSelectorTerms", "should fail when a capacity reservation selector term has a tag map value that is empty"), crt(`[{ tags = { "" = "testvalue" } }]`),
		a+"[0].tags", "tag keys must not be empty")
	add(src("CapacityReservationSelectorTerms", "should fail when the last capacity reservation selector is invalid"),
		crt(`[{ tags = { test = "testvalue" } }, { tags = { test2 = "testvalue2" } }, { tags = { test3 = "testvalue3" } }, { tags = { "" = "testvalue4" } }]`),
		a+"[3].tags", "tag keys must not be empty")
	add(src("CapacityReservationSelectorTerms", "should fail when specifying id with tags in a single term"), crt(`[{ id = "cr-12345749", tags = { test = "testvalue" } }]`),
		a+"[0].id", "cannot be combined with")
	add(src("CapacityReservationSelectorTerms", "should fail when specifying id with ownerID in a single term"), crt(`[{ owner_id = "012345678901", id = "cr-12345749" }]`),
		a+"[0].id", "cannot be combined with")
	add(src("CapacityReservationSelectorTerms", "should fail when the ownerID is malformed"), crt(`[{ owner_id = "01234567890", tags = { test = "testvalue" } }]`),
		a+"[0].owner_id", `"01234567890" is not an AWS account id`)
	add(src("CapacityReservationSelectorTerms", "should fail when the ownerID is set by itself"), crt(`[{ owner_id = "012345678901" }]`),
		a+"[0]", "a capacity reservation selector term needs")
	add(src("CapacityReservationSelectorTerms", "should fail with invalid instanceMatchCriteria value"), crt(`[{ instance_match_criteria = "invalid" }]`),
		a+"[0].instance_match_criteria", `must be "open" or "targeted", got "invalid"`)
	add(src("CapacityReservationSelectorTerms", "should fail when specifying id with instanceMatchCriteria"), crt(`[{ id = "cr-12345749", instance_match_criteria = "open" }]`),
		a+"[0].id", "cannot be combined with")

	// BlockDeviceMappings: volumeInitializationRate. As upstream, the volume size is "0" (an
	// empty Quantity), which fails on its own; the rate must be reported as well.
	rate := func(ebs string) string {
		return suiteClass("ami_family", "", "block_device_mappings", `[{ device_name = "map-device-1", ebs = { volume_size = "0", `+ebs+` }, root_volume = false }]`)
	}
	const ratePath = "block_device_mappings[0].ebs.volume_initialization_rate"
	add(src("BlockDeviceMappings", "should fail if VolumeInitializationRate set but SnapshotID not specified"),
		rate(`volume_initialization_rate = 100`), ratePath, "applies to volumes restored from a snapshot")
	add(src("BlockDeviceMappings", "should fail if VolumeInitializationRate too low"),
		rate(`snapshot_id = "snap-1", volume_initialization_rate = 99`), ratePath, "must be between 100 and 300 MiB/s, got 99")
	add(src("BlockDeviceMappings", "should fail if VolumeInitializationRate too high"),
		rate(`snapshot_id = "snap-1", volume_initialization_rate = 888`), ratePath, "must be between 100 and 300 MiB/s, got 888")

	// ConnectionTracking.
	ct := func(body string) string { return suiteClass("connection_tracking", "{ "+body+" }") }
	add(src("ConnectionTracking", "should fail when connectionTracking is specified with no fields set"), ct(""),
		"connection_tracking", "set at least one of")
	for _, e := range []struct{ it, attr, v, msg string }{
		{"should fail when tcpEstablishedTimeout is below minimum (60s)", "tcp_established_timeout", "59", "must be between 60 and 432000 seconds, got 59"},
		{"should fail when tcpEstablishedTimeout is above maximum (432000s)", "tcp_established_timeout", "432001", "must be between 60 and 432000 seconds, got 432001"},
		{"should fail when udpStreamTimeout is below minimum (60s)", "udp_stream_timeout", "59", "must be between 60 and 180 seconds, got 59"},
		{"should fail when udpStreamTimeout is above maximum (180s)", "udp_stream_timeout", "181", "must be between 60 and 180 seconds, got 181"},
		{"should fail when udpTimeout is below minimum (30s)", "udp_timeout", "29", "must be between 30 and 60 seconds, got 29"},
		{"should fail when udpTimeout is above maximum (60s)", "udp_timeout", "61", "must be between 30 and 60 seconds, got 61"},
	} {
		add(src("ConnectionTracking", e.it), ct(e.attr+" = "+e.v), "connection_tracking."+e.attr, e.msg)
	}

	// CPUOptions.
	add(src("CPUOptions", "should fail with invalid nestedVirtualization value"), suiteClass("cpu_options", `{ nested_virtualization = "invalid" }`),
		"cpu_options.nested_virtualization", `must be "enabled" or "disabled", got "invalid"`)

	// placementGroupSelector: no upstream admission test; the CRD's rules.
	pg := func(body string) string { return suiteClass("placement_group_selector", "{ "+body+" }") }
	crd := func(rule string) string { return crdClass + ": spec.placementGroupSelector: " + rule }
	add(crd("expected at least one, got none, ['name', 'id']"), pg(""), "placement_group_selector", "set `id`")
	add(crd("'name' and 'id' are mutually exclusive"), pg(`name = "my-cluster-pg", id = "pg-cluster123"`), "placement_group_selector", "mutually exclusive")
	add(crd("id pattern ^pg-[0-9a-z]+$"), pg(`id = "cluster123"`), "placement_group_selector.id", `"cluster123" is not a placement group id`)
	add(crd("name minLength 1"), pg(`name = ""`), "placement_group_selector", "set `id`")
	return cs
}

func kubeletSuiteInvalid() []suiteCase {
	src := func(names ...string) string {
		return srcOf(upKubelet, append([]string{"ValidateKubeletConfig"}, names...)...)
	}
	var cs []suiteCase
	add := func(source, kubelet, path, msg string) {
		cs = append(cs, suiteCase{source: source, config: suiteClass("kubelet", "{ "+kubelet+" }"), path: path, msg: msg})
	}
	for _, e := range [][2]string{{"maxPods", "max_pods"}, {"podsPerCore", "pods_per_core"}, {"evictionMaxPodGracePeriod", "eviction_max_pod_grace_period"}} {
		add(src("should reject a negative", e[0]), e[1]+" = -1", "kubelet."+e[1], "must be 0 or more, got -1")
	}
	for _, e := range []struct{ entry, attr, v string }{
		{"imageGCHighThresholdPercent above 100", "image_gc_high_threshold_percent", "101"},
		{"imageGCHighThresholdPercent below 0", "image_gc_high_threshold_percent", "-1"},
		{"imageGCLowThresholdPercent above 100", "image_gc_low_threshold_percent", "101"},
		{"imageGCLowThresholdPercent below 0", "image_gc_low_threshold_percent", "-1"},
	} {
		add(src("should reject an out-of-range percentage for", e.entry), e.attr+" = "+e.v, "kubelet."+e.attr, "must be between 0 and 100, got "+e.v)
	}
	for _, e := range [][2]string{{"kubeReserved", "kube_reserved"}, {"systemReserved", "system_reserved"}} {
		add(src("should reject an unreservable resource in", e[0]), e[1]+` = { gpu = "1" }`, "kubelet."+e[1]+`["gpu"]`, `unknown resource "gpu"`)
	}
	for _, e := range [][2]string{{"kubeReserved", "kube_reserved"}, {"systemReserved", "system_reserved"}} {
		add(src("should reject a negative reservation in", e[0]), e[1]+` = { cpu = "-1" }`, "kubelet."+e[1]+`["cpu"]`, `"-1" is not a non-negative resource quantity`)
	}
	for _, e := range [][3]string{{"evictionHard", "eviction_hard", "5%"}, {"evictionSoft", "eviction_soft", "5%"}, {"evictionSoftGracePeriod", "eviction_soft_grace_period", "1m"}} {
		add(src("should reject an invalid eviction signal in", e[0]), fmt.Sprintf(`%s = { notASignal = %q }`, e[1], e[2]),
			"kubelet."+e[1]+`["notASignal"]`, `unknown eviction signal "notASignal"`)
	}
	for _, e := range [][2]string{{"evictionHard", "eviction_hard"}, {"evictionSoft", "eviction_soft"}} {
		add(src("should reject an eviction threshold that is neither a percentage nor a quantity in", e[0]), e[1]+` = { "memory.available" = "lots" }`,
			"kubelet."+e[1]+`["memory.available"]`, `"lots" is not a percentage or a quantity`)
	}
	add(src("should reject an evictionSoftGracePeriod that isn't a duration"),
		`eviction_soft = { "memory.available" = "10%" }, eviction_soft_grace_period = { "memory.available" = "soon" }`,
		`kubelet.eviction_soft_grace_period["memory.available"]`, `"soon" is not a duration`)
	add(src("should reject a negative evictionSoftGracePeriod"),
		`eviction_soft = { "memory.available" = "10%" }, eviction_soft_grace_period = { "memory.available" = "-1m" }`,
		`kubelet.eviction_soft_grace_period["memory.available"]`, `"-1m" is not a duration`)
	add(src("should reject an evictionSoft threshold with no matching grace period"),
		`eviction_soft = { "memory.available" = "10%" }, eviction_soft_grace_period = { "nodefs.available" = "1m" }`,
		`kubelet.eviction_soft["memory.available"]`, `needs a matching eviction_soft_grace_period["memory.available"]`)
	add(src("should reject an evictionSoftGracePeriod with no matching threshold"),
		`eviction_soft_grace_period = { "memory.available" = "1m" }`,
		`kubelet.eviction_soft_grace_period["memory.available"]`, `has no matching eviction_soft["memory.available"]`)
	add(src("should reject evictionSoft with no evictionSoftGracePeriod at all"),
		`eviction_soft = { "memory.available" = "10%" }`,
		`kubelet.eviction_soft["memory.available"]`, `needs a matching eviction_soft_grace_period["memory.available"]`)
	for _, e := range [][2]string{{"60", "80"}, {"70", "70"}} {
		add(src("should reject an imageGC high threshold at or below the low threshold", e[0]+"/"+e[1]),
			fmt.Sprintf("image_gc_high_threshold_percent = %s, image_gc_low_threshold_percent = %s", e[0], e[1]),
			"kubelet.image_gc_high_threshold_percent", fmt.Sprintf("must be greater than image_gc_low_threshold_percent (%s <= %s)", e[0], e[1]))
	}
	add(src("should report every violation rather than stopping at the first"),
		`pods_per_core = -1, kube_reserved = { gpu = "1", cpu = "-1" }, eviction_hard = { notASignal = "5%" }`,
		"kubelet.pods_per_core", "must be 0 or more, got -1")
	return cs
}

func nodeClassSuiteValid(f classFixture) []suiteCase {
	src := func(names ...string) string { return srcOf(upClass, append([]string{"CEL/Validation"}, names...)...) }
	var cs []suiteCase
	add := func(source, cfg string) { cs = append(cs, suiteCase{source: source, config: cfg}) }
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	myTags := fmt.Sprintf(`{ test = %q }`, f.testValue)

	add(src("should succeed if just specifying role"), suiteClass())
	add(src("should succeed if just specifying instance profile"), suiteClass("role", "", "instance_profile", `"test-instance-profile"`))
	add(src("UserData", "should succeed if user data is empty"), suiteClass())

	// AMIFamily.
	for _, fam := range append(slices.Clone(amiFamilies), "Custom") {
		add(src("AMIFamily", "should succeed with valid families", fam), suiteClass("ami_family", q(fam), "ami_selector_terms", `[{ id = "ami-0123456789abcdef" }]`))
	}
	for _, fam := range amiFamilies {
		alias := strings.ToLower(fam) + "@latest"
		add(src("AMIFamily", "should succeed when the amiFamily matches amiSelectorTerms[].alias", fmt.Sprintf("family %q with alias %q", fam, alias)),
			suiteClass("ami_family", q(fam), "ami_selector_terms", fmt.Sprintf(`[{ alias = %q }]`, alias)))
	}
	for _, fam := range amiFamilies {
		alias := strings.ToLower(fam) + "@latest"
		add(src("AMIFamily", "should succeed when the amiFamily is custom with amiSelectorTerms[].alias", fmt.Sprintf("family \"Custom\" with alias %q", alias)),
			suiteClass("ami_family", `"Custom"`, "ami_selector_terms", fmt.Sprintf(`[{ alias = %q }]`, alias)))
	}

	// Tags.
	add(src("Tags", "should succeed when tags are empty"), suiteClass("tags", "{}"))
	add(src("Tags", "should succeed if tags aren't in restricted tag keys"),
		suiteClass("tags", `{ "karpenter.sh/custom-key" = "value", "karpenter.sh/managed" = "true", "kubernetes.io/role/key" = "value" }`))

	// Selector terms: the fixture's tag value, subnet id, group id and group name stand in for
	// testvalue, subnet-12345749, sg-12345749 and testname, which select nothing here.
	add(src("SubnetSelectorTerms", "should succeed with a valid subnet selector on tags", "(tag value: the fixture's)"),
		suiteClass("subnet_selector_terms", "[{ tags = "+myTags+" }]"))
	add(src("SubnetSelectorTerms", "should succeed with a valid subnet selector on id", "(id: the fixture's)"),
		suiteClass("subnet_selector_terms", fmt.Sprintf(`[{ id = %q }]`, f.subnetID)))
	add(src("SecurityGroupSelectorTerms", "should succeed with a valid security group selector on tags", "(tag value: the fixture's)"),
		suiteClass("security_group_selector_terms", "[{ tags = "+myTags+" }]"))
	add(src("SecurityGroupSelectorTerms", "should succeed with a valid security group selector on id", "(id: the fixture's)"),
		suiteClass("security_group_selector_terms", fmt.Sprintf(`[{ id = %q }]`, f.groupID)))
	add(src("SecurityGroupSelectorTerms", "should succeed with a valid security group selector on name", "(name: the fixture's)"),
		suiteClass("security_group_selector_terms", fmt.Sprintf(`[{ name = %q }]`, f.groupName)))

	// AMISelectorTerms.
	ami := func(terms string) string { return suiteClass("ami_selector_terms", terms) }
	add(src("AMISelectorTerms", "should succeed with a valid ami selector on alias"), ami(`[{ alias = "al2023@latest" }]`))
	// The terms resolve at plan: the tags and name are the fixture image's (upstream: testvalue,
	// testname), the id is replaced by withTestImage. Terms naming an owner account that does
	// not exist are in nodeClassSuiteUnresolvable.
	add(src("AMISelectorTerms", "should succeed with a valid ami selector on tags"), ami(fmt.Sprintf(`[{ tags = %s }]`, myTags)))
	add(src("AMISelectorTerms", "should succeed with a valid ami selector on id"), ami(`[{ id = "ami-12345749" }]`))
	add(src("AMISelectorTerms", "should succeed with a valid ami selector on name"), ami(fmt.Sprintf(`[{ name = %q }]`, f.imageName)))
	for _, e := range [][3]string{
		{"al2 (latest)", "al2@latest", "AL2"}, {"al2 (pinned)", "al2@v20240625", "AL2"},
		{"al2023 (latest)", "al2023@latest", "AL2023"}, {"al2023 (pinned)", "al2023@v20240625", "AL2023"},
		{"bottlerocket (latest)", "bottlerocket@latest", "Bottlerocket"}, {"bottlerocket (pinned)", "bottlerocket@1.10.0", "Bottlerocket"},
		{"windows2019 (latest)", "windows2019@latest", "Windows2019"}, {"windows2022 (latest)", "windows2022@latest", "Windows2022"},
		{"windows2025 (latest)", "windows2025@latest", "Windows2025"},
	} {
		add(src("AMISelectorTerms", "should succeed for valid aliases", e[0]), suiteClass("ami_family", q(e[2]), "ami_selector_terms", fmt.Sprintf(`[{ alias = %q }]`, e[1])))
	}

	add(src("Kubelet", "should succeed for valid inputs"), suiteClass("kubelet", `{
    max_pods        = 110
    pods_per_core   = 10
    kube_reserved   = { cpu = "200m", memory = "100Mi" }
    system_reserved = { cpu = "200m", memory = "100Mi" }
    eviction_hard   = { "memory.available" = "5%" }
  }`))
	add(src("MetadataOptions", "should succeed for valid inputs"), suiteClass("metadata_options", metadataOptions("disabled", "enabled", "34", "optional")))

	bdm := func(m string) string { return suiteClass("ami_family", "", "block_device_mappings", m) }
	add(src("BlockDeviceMappings", "should succeed if more than one root volume is specified"), bdm(`[
    { device_name = "map-device-1", ebs = { volume_size = "500G" }, root_volume = true },
    { device_name = "map-device-2", ebs = { volume_size = "50T" }, root_volume = false },
  ]`))
	add(src("BlockDeviceMappings", "should succeed for valid VolumeSize in G"), bdm(`[{ device_name = "map-device-1", ebs = { volume_size = "58G" }, root_volume = false }]`))
	add(src("BlockDeviceMappings", "should succeed for valid VolumeSize in T"), bdm(`[{ device_name = "map-device-1", ebs = { volume_size = "45T" }, root_volume = false }]`))

	add(src("NetworkInterfaces", "should succeed with valid multiple network interfaces"), suiteClass("network_interfaces", `[
    { network_card_index = 0, device_index = 0, interface_type = "interface" },
    { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
    { network_card_index = 1, device_index = 0, interface_type = "efa-only" },
    { network_card_index = 1, device_index = 1, interface_type = "interface" },
  ]`))
	add(src("NetworkInterfaces", "should succeed when network interfaces is empty"), suiteClass("network_interfaces", "[]"))
	return cs
}

func kubeletSuiteValid() []suiteCase {
	src := func(names ...string) string {
		return srcOf(upKubelet, append([]string{"ValidateKubeletConfig"}, names...)...)
	}
	var cs []suiteCase
	add := func(source, cfg string) { cs = append(cs, suiteCase{source: source, config: cfg}) }
	k := func(body string) string { return suiteClass("kubelet", "{ "+body+" }") }
	add(src("should accept", "an empty configuration"), k(""))
	add(src("should accept", "a nil configuration"), suiteClass())
	add(src("should accept", "the fields Karpenter reads for scheduling"), k(`max_pods = 110, pods_per_core = 10,
    kube_reserved = { cpu = "200m", memory = "100Mi" }, system_reserved = { "ephemeral-storage" = "1Gi", pid = "1000" },
    eviction_hard = { "memory.available" = "5%" }`))
	add(src("should accept", "an eviction threshold as a quantity rather than a percentage"), k(`eviction_hard = { "nodefs.available" = "500Mi" }`))
	add(src("should accept", "matching evictionSoft and evictionSoftGracePeriod"),
		k(`eviction_soft = { "memory.available" = "10%" }, eviction_soft_grace_period = { "memory.available" = "1m" }`))
	add(src("should accept", "imageGC thresholds in the correct order"), k(`image_gc_high_threshold_percent = 80, image_gc_low_threshold_percent = 60`))
	add(src("should accept", "zero-valued fields"), k(`max_pods = 0, pods_per_core = 0, eviction_max_pod_grace_period = 0`))
	return cs
}

// nodeClassSuiteValidNew: the attributes added for issue 14, run after the others.
func nodeClassSuiteValidNew() []suiteCase {
	src := func(names ...string) string { return srcOf(upClass, append([]string{"CEL/Validation"}, names...)...) }
	var cs []suiteCase
	add := func(source, cfg string) { cs = append(cs, suiteCase{source: source, config: cfg}) }
	crt := func(terms string) string { return suiteClass("capacity_reservation_selector_terms", terms) }
	add(src("CapacityReservationSelectorTerms", "should succeed with a valid capacity reservation selector on tags"), crt(`[{ tags = { test = "testvalue" } }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed with a valid capacity reservation selector on id"), crt(`[{ id = "cr-12345749" }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed for a valid ownerID"), crt(`[{ owner_id = "012345678901", tags = { test = "testvalue" } }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed when capacity group selector terms is set to nil"), suiteClass())
	add(src("CapacityReservationSelectorTerms", "should succeed with a valid instanceMatchCriteria 'open'"), crt(`[{ instance_match_criteria = "open" }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed with a valid instanceMatchCriteria 'targeted'"), crt(`[{ instance_match_criteria = "targeted" }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed with instanceMatchCriteria combined with tags"),
		crt(`[{ instance_match_criteria = "open", tags = { test = "testvalue" } }]`))
	add(src("CapacityReservationSelectorTerms", "should succeed with instanceMatchCriteria combined with ownerID and tags"),
		crt(`[{ instance_match_criteria = "targeted", owner_id = "012345678901", tags = { test = "testvalue" } }]`))

	ct := func(body string) string { return suiteClass("connection_tracking", "{ "+body+" }") }
	add(src("ConnectionTracking", "should succeed with valid tcpEstablishedTimeout"), ct("tcp_established_timeout = 60"))
	add(src("ConnectionTracking", "should succeed with valid udpStreamTimeout"), ct("udp_stream_timeout = 120"))
	add(src("ConnectionTracking", "should succeed with valid udpTimeout"), ct("udp_timeout = 45"))
	add(src("ConnectionTracking", "should succeed with all valid connection tracking settings"),
		ct("tcp_established_timeout = 432000, udp_stream_timeout = 180, udp_timeout = 60"))

	add(src("CPUOptions", "should succeed with nestedVirtualization enabled"), suiteClass("cpu_options", `{ nested_virtualization = "enabled" }`))
	add(src("CPUOptions", "should succeed with nestedVirtualization disabled"), suiteClass("cpu_options", `{ nested_virtualization = "disabled" }`))
	add(src("CPUOptions", "should succeed with empty CPUOptions"), suiteClass("cpu_options", `{}`))

	// Placement groups and context have no upstream admission test: the values of other tests
	// (the placement group exists in the capacity stub, as in the upstream fake EC2 API).
	add(srcOf(upPlaceGrp, "NodeClass Placement Group Reconciler", "should resolve a cluster placement group by name"),
		suiteClass("placement_group_selector", `{ name = "my-cluster-pg" }`))
	add(srcOf(upPlaceGrp, "NodeClass Placement Group Reconciler", "should resolve a placement group by ID"),
		suiteClass("placement_group_selector", `{ id = "pg-cluster123" }`))
	add(srcOf(upHash, "Hash", "(BeforeEach fixture) context"), suiteClass("context", `"fake-context"`))
	add(srcOf(upHash, "Hash", "should change hash when static fields are updated", "Context"), suiteClass("context", `"context-2"`))
	return cs
}

// --- runners ---------------------------------------------------------------------------------

func suiteBadCases(cs []suiteCase) []badCase {
	out := make([]badCase, len(cs))
	for i, c := range cs {
		out[i] = badCase{name: c.source, config: c.config, path: c.path, msg: c.msg}
	}
	return out
}

// goodCase is one configuration that must plan.
type goodCase struct {
	name   string
	config string // everything after the header
}

var goodInputsTried atomic.Int64

// runGoodInputs plans every case in one test case (one PlanOnly step each) and expects each plan
// to succeed with changes; no client the provider built may make a mutating EC2 call. When a
// plan fails, the failing case and the provider's error diagnostics are logged.
func runGoodInputs(t *testing.T, header string, cases []goodCase) {
	t.Helper()
	calls := &callRecorder{}
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	var cur atomic.Int64
	cur.Store(-1)
	steps := make([]resource.TestStep, 0, len(cases))
	for i := range cases {
		steps = append(steps, resource.TestStep{
			PreConfig:          func() { diags.setCase(i); cur.Store(int64(i)) },
			Config:             header + withTestImage(cases[i].config),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		})
	}
	defer func() { // also runs when resource.Test stops the test at a failed step
		if i := int(cur.Load()); t.Failed() && i >= 0 {
			var lines []string
			for _, d := range diags.of(i) {
				lines = append(lines, fmt.Sprintf("%s on %q: %s", d.rpc, d.path, d.text))
			}
			t.Errorf("valid case %d %q did not plan; the provider returned:\n  %s", i, cases[i].name, strings.Join(lines, "\n  "))
		}
	}()
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(calls, diags),
		Steps:                    steps,
	})
	noMutatingCalls(t, calls, "planning valid configurations")
	goodInputsTried.Add(int64(len(cases)))
	t.Logf("%d valid configurations planned; EC2 calls made: %v", len(cases), calls.Calls("EC2."))
}

// upstreamImageIDs are the image ids of Karpenter's test fixtures; EC2 has none of them.
var upstreamImageIDs = regexp.MustCompile(`ami-0123456789abcdef0?\b|ami-01234567890abcdef\b|ami-12345749\b`)

// withTestImage puts an image the emulator has in place of the upstream fixtures' ids: an id
// term must resolve at plan.
func withTestImage(config string) string {
	return upstreamImageIDs.ReplaceAllLiteralString(config, testAMI())
}

// suiteEach reports whether every case runs in a test case of its own (KARPENTER_SUITE_EACH=1).
func suiteEach() bool { return os.Getenv("KARPENTER_SUITE_EACH") == "1" }

func runSuiteInvalid(t *testing.T, kind, header string, cs []suiteCase) {
	logSuiteCounts(t, kind, cs)
	if !suiteEach() {
		defer func() { // runBadInputs names the failed step only by number
			if t.Failed() {
				var lines []string
				for i, c := range cs {
					lines = append(lines, fmt.Sprintf("step %d: %s", i+1, c.source))
				}
				t.Logf("the steps:\n  %s", strings.Join(lines, "\n  "))
			}
		}()
		runBadInputs(t, header, suiteBadCases(cs))
		return
	}
	for i, c := range cs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			runBadInputs(t, header, suiteBadCases([]suiteCase{c}))
		})
	}
}

func runSuiteValid(t *testing.T, header string, cs []suiteCase) {
	logSuiteCounts(t, "valid", cs)
	good := make([]goodCase, len(cs))
	for i, c := range cs {
		good[i] = goodCase{name: c.source, config: c.config}
	}
	if !suiteEach() {
		runGoodInputs(t, header, good)
		return
	}
	for i, c := range good {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			runGoodInputs(t, header, []goodCase{c})
		})
	}
}

// logSuiteCounts logs how many cases come from each upstream file.
func logSuiteCounts(t *testing.T, kind string, cs []suiteCase) {
	n := map[string]int{}
	for _, c := range cs {
		file, _, _ := strings.Cut(c.source, ": ")
		n[file]++
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(n)) {
		parts = append(parts, fmt.Sprintf("%s: %d", f, n[f]))
	}
	t.Logf("%d %s cases (%s)", len(cs), kind, strings.Join(parts, "; "))
}

// TestAccKarpenterSuiteNodePool replays the NodePool admission suite.
func TestAccKarpenterSuiteNodePool(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	header := providerConfig(cluster)
	zones := []string{n.Subnets[0].Zone, n.Subnets[1].Zone, n.Subnets[2].Zone}
	t.Run("invalid", func(t *testing.T) { t.Parallel(); runSuiteInvalid(t, "invalid", header, nodePoolSuiteInvalid()) })
	t.Run("valid", func(t *testing.T) { t.Parallel(); runSuiteValid(t, header, nodePoolSuiteValid(zones)) })
	t.Run("valid_unlaunchable", func(t *testing.T) {
		t.Parallel()
		runSuiteInvalid(t, "admitted but unlaunchable", header, nodePoolSuiteUnlaunchable())
	})
}

// TestAccKarpenterSuiteNodeClass replays the EC2NodeClass admission suite and the kubelet
// validation suite.
func TestAccKarpenterSuiteNodeClass(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	testValue := acctest.RandomName("testvalue")
	disc := map[string]string{"karpenter.sh/discovery": cluster}
	n := acctest.NewNetwork(t, acctest.NetworkSpec{
		ExtraSubnetTags:        map[int]map[string]string{0: {"karpenter.sh/discovery": cluster, "test": testValue}, 1: disc, 2: disc},
		ExtraSecurityGroupTags: map[int]map[string]string{0: {"karpenter.sh/discovery": cluster, "test": testValue}},
	})
	f := classFixture{testValue: testValue, subnetID: n.Subnets[0].ID, groupID: n.SecurityGroups[0].ID, groupName: n.SecurityGroups[0].Name,
		imageName: "suite-" + testValue}
	acctest.CopyImage(t, "x86_64", f.imageName, map[string]string{"test": testValue})
	// LocalStack answers neither DescribeCapacityReservations nor DescribePlacementGroups: the
	// capacity stub does (no reservation; the upstream placement group), and forwards the rest.
	stub := acctest.NewCapacityStub(t)
	stub.SetPlacementGroups(acctest.StubPlacementGroup{ID: "pg-cluster123", Name: "my-cluster-pg", Strategy: "cluster", State: "available"})
	header := providerConfigEC2(cluster, stub.URL())
	invalid := slices.Concat(nodeClassSuiteInvalid(), nodeClassSuiteInvalidNew(), kubeletSuiteInvalid())
	valid := slices.Concat(nodeClassSuiteValid(f), nodeClassSuiteValidNew(), kubeletSuiteValid())
	t.Run("invalid", func(t *testing.T) { t.Parallel(); runSuiteInvalid(t, "invalid", header, invalid) })
	t.Run("valid", func(t *testing.T) { t.Parallel(); runSuiteValid(t, header, valid) })
	t.Run("valid_unresolvable", func(t *testing.T) {
		t.Parallel()
		runSuiteInvalid(t, "admitted but unresolvable", header, nodeClassSuiteUnresolvable(f))
	})
}
