package manifest

// The cases of TestRuntimeValidateKarpenterCore and TestRuntimeValidateAWS are translated from
// the specs that call NodePool.RuntimeValidate in
//   - sigs.k8s.io/karpenter v1.14.3, pkg/apis/v1/nodepool_validation_cel_test.go
//     (Describe "CEL/Validation"), and
//   - github.com/aws/karpenter-provider-aws v1.15.2, pkg/apis/v1/nodepool_validation_cel_test.go
//     (Describe "CEL/Validation"; the file is the same in v1.9.3).
// Subtest names are the upstream Context/It (or DescribeTable/Entry) text; where an It loops over
// several inputs, each input is a nested subtest. Random inputs upstream (randomdata) are fixed
// strings here. TestRuntimeValidateVersions and TestRuntimeValidateMore are this package's own.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"sigs.k8s.io/yaml"
)

// rvCase is one RuntimeValidate case: patch is YAML merged over the base NodePool (maps merge,
// lists and scalars replace); want lists the fields of the violations in order (duplicates
// folded), nil when the NodePool must pass.
type rvCase struct {
	name, variant string
	patch         string
	want          []string
	minor         int
}

// Base NodePools of the upstream BeforeEach blocks.
const (
	rvCoreBase = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: Exists}
`
	rvAWSBase = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: Exists}
`
)

const (
	rvTaint0 = "spec.template.spec.taints[0]"
	rvReq0   = "spec.template.spec.requirements[0]"
	rvLabels = "spec.template.metadata.labels"
)

// rvLong is 250 lowercase alphanumerics, like strings.ToLower(randomdata.Alphanumeric(250)).
var rvLong = strings.Repeat("abcde12345", 25)

// rvCoreWellKnown is sigs.k8s.io/karpenter v1.14.3's WellKnownLabels without karpenter.sh/nodepool
// and karpenter.sh/capacity-type (the set "should allow well known label exceptions" loops over).
var rvCoreWellKnown = []string{
	"topology.kubernetes.io/zone", "topology.kubernetes.io/region", "node.kubernetes.io/instance-type",
	"kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/windows-build",
}

// rvAWSWellKnown are the labels aws/karpenter-provider-aws v1.15.2 adds to WellKnownLabels
// (pkg/apis/v1/labels.go init).
var rvAWSWellKnown = []string{
	"karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/capacity-reservation-type",
	"karpenter.k8s.aws/capacity-reservation-interruptible", "karpenter.k8s.aws/instance-hypervisor",
	"karpenter.k8s.aws/instance-encryption-in-transit-supported", "karpenter.k8s.aws/instance-category",
	"karpenter.k8s.aws/instance-capability-flex", "karpenter.k8s.aws/instance-family",
	"karpenter.k8s.aws/instance-generation", "karpenter.k8s.aws/instance-size",
	"karpenter.k8s.aws/instance-local-nvme", "karpenter.k8s.aws/instance-cpu",
	"karpenter.k8s.aws/instance-cpu-manufacturer", "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
	"karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-ebs-bandwidth",
	"karpenter.k8s.aws/instance-network-bandwidth", "karpenter.k8s.aws/instance-gpu-name",
	"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
	"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-accelerator-name",
	"karpenter.k8s.aws/instance-accelerator-manufacturer", "karpenter.k8s.aws/instance-accelerator-count",
	"topology.k8s.aws/zone-id", "karpenter.k8s.aws/instance-tenancy", "node.kubernetes.io/windows-build",
	"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition",
}

func taintCase(name, variant, taints string, want ...string) rvCase {
	return rvCase{name: name, variant: variant, patch: "spec: {template: {spec: {taints: " + taints + "}}}", want: want}
}

func reqCase(name, variant, reqs string, want ...string) rvCase {
	return rvCase{name: name, variant: variant, patch: "spec: {template: {spec: {requirements: " + reqs + "}}}", want: want}
}

func labelCase(name, variant, labels string, want ...string) rvCase {
	return rvCase{name: name, variant: variant, patch: "spec: {template: {metadata: {labels: " + labels + "}}}", want: want}
}

func TestRuntimeValidateKarpenterCore(t *testing.T) {
	var cases []rvCase
	cases = append(cases, rvCoreDisruptionAndTaintCases()...)
	cases = append(cases, rvCoreRequirementCases()...)
	cases = append(cases, rvCoreLabelCases()...)
	cases = append(cases, rvCoreReplicaCases()...)
	runRVCases(t, rvCoreBase, cases)
}

func rvCoreDisruptionAndTaintCases() []rvCase {
	var cases []rvCase
	for _, policy := range []string{"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"} {
		cases = append(cases, rvCase{name: "Disruption/should pass RuntimeValidate for valid consolidationPolicy/" + policy,
			patch: "spec: {disruption: {consolidationPolicy: " + policy + "}}"})
	}
	const invalidKeys = "Taints/should fail for invalid taint keys"
	const tooLong = "Taints/should fail at runtime for taint keys that are too long"
	return append(cases,
		taintCase("Taints/should succeed for valid taints", "", `[
			{key: a, value: b, effect: NoSchedule}, {key: c, value: d, effect: NoExecute},
			{key: e, value: f, effect: PreferNoSchedule}, {key: Test, value: f, effect: PreferNoSchedule},
			{key: test.com/Test, value: f, effect: PreferNoSchedule}, {key: test.com.com/test, value: f, effect: PreferNoSchedule},
			{key: key-only, effect: NoExecute}]`),
		taintCase(invalidKeys, "test.com.com}", `[{key: "test.com.com}", effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(invalidKeys, "Test.com-test", `[{key: Test.com/test, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(invalidKeys, "test-test-test", `[{key: test/test/test, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(invalidKeys, "test-", `[{key: test/, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(invalidKeys, "-test", `[{key: /test, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(tooLong, "prefix", `[{key: test.com.test.`+rvLong+`/test, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase(tooLong, "name", `[{key: test.com.test/test-`+rvLong+`, effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase("Taints/should fail for missing taint key", "", `[{effect: NoSchedule}]`, rvTaint0+".key"),
		taintCase("Taints/should fail for invalid taint value", "", `[{key: invalid-value, effect: NoSchedule, value: "???"}]`, rvTaint0+".value"),
		taintCase("Taints/should fail for invalid taint effect", "", `[{key: invalid-effect, effect: "???"}]`, rvTaint0+".effect"),
		taintCase("Taints/should not fail for same key with different effects", "", `[{key: a, effect: NoSchedule}, {key: a, effect: NoExecute}]`),
	)
}

func rvCoreRequirementCases() []rvCase {
	const invalidKeys = "Requirements/should fail for invalid requirement keys"
	const tooLong = "Requirements/should fail at runtime for requirement keys that are too long"
	cases := []rvCase{
		reqCase("Requirements/should succeed for valid requirement keys", "",
			`[{key: Test, operator: Exists}, {key: test.com/Test, operator: Exists}, {key: test.com.com/test, operator: Exists}, {key: key-only, operator: Exists}]`),
		reqCase(invalidKeys, "test.com.com}", `[{key: "test.com.com}", operator: Exists}]`, rvReq0+".key"),
		reqCase(invalidKeys, "Test.com-test", `[{key: Test.com/test, operator: Exists}]`, rvReq0+".key"),
		reqCase(invalidKeys, "test-test-test", `[{key: test/test/test, operator: Exists}]`, rvReq0+".key"),
		reqCase(invalidKeys, "test-", `[{key: test/, operator: Exists}]`, rvReq0+".key"),
		reqCase(invalidKeys, "-test", `[{key: /test, operator: Exists}]`, rvReq0+".key"),
		reqCase(tooLong, "prefix", `[{key: test.com.test.`+rvLong+`/test, operator: Exists}]`, rvReq0+".key"),
		reqCase(tooLong, "name", `[{key: test.com.test/test-`+rvLong+`, operator: Exists}]`, rvReq0+".key"),
		reqCase("Requirements/should fail for the karpenter.sh/nodepool label", "",
			`[{key: karpenter.sh/nodepool, operator: In, values: [sillyname]}]`, rvReq0+".key"),
		reqCase("Requirements/should allow supported ops", "", `[
			{key: topology.kubernetes.io/zone, operator: In, values: [test]},
			{key: topology.kubernetes.io/zone, operator: Gt, values: ["1"]},
			{key: topology.kubernetes.io/zone, operator: Lt, values: ["1"]},
			{key: topology.kubernetes.io/zone, operator: NotIn},
			{key: topology.kubernetes.io/zone, operator: Exists}]`),
		reqCase("Requirements/should fail for unsupported ops", "unknown",
			`[{key: topology.kubernetes.io/zone, operator: unknown, values: [test]}]`, rvReq0+".operator"),
		// RestrictedLabelDomains is karpenter.sh in core; the AWS provider adds karpenter.k8s.aws.
		reqCase("Requirements/should fail for restricted domains", "karpenter.sh",
			`[{key: karpenter.sh/test, operator: In, values: [test]}]`, rvReq0+".key"),
		reqCase("Requirements/should fail for restricted domains", "karpenter.k8s.aws",
			`[{key: karpenter.k8s.aws/test, operator: In, values: [test]}]`, rvReq0+".key"),
		reqCase("Requirements/should fail for restricted labels", "kubernetes.io-hostname",
			`[{key: kubernetes.io/hostname/test, operator: In, values: [test]}]`, rvReq0+".key"),
		reqCase("Requirements/should allow non-empty set after removing overlapped value", "", `[
			{key: topology.kubernetes.io/zone, operator: In, values: [test, foo]},
			{key: topology.kubernetes.io/zone, operator: NotIn, values: [test, bar]}]`),
		reqCase("Requirements/should allow empty requirements", "", `[]`),
	}
	for _, domain := range []string{"kubernetes.io", "k8s.io"} {
		cases = append(cases,
			reqCase("Requirements/should allow kubernetes domains", domain, `[{key: `+domain+`/test, operator: In, values: [test]}]`),
			reqCase("Requirements/should allow kubernetes subdomains exceptions", domain, `[{key: subdomain.`+domain+`/test, operator: In, values: [test]}]`))
	}
	for _, label := range rvCoreWellKnown {
		cases = append(cases, reqCase("Requirements/should allow well known label exceptions", label, `[{key: `+label+`, operator: In, values: [test]}]`))
	}
	return append(cases, rvNumericCases()...)
}

// rvNumericCases are "should fail with invalid GT or LT values" and "... GTE or LTE values".
func rvNumericCases() []rvCase {
	var cases []rvCase
	for _, ops := range [][2]string{{"Gt", "Lt"}, {"Gte", "Lte"}} {
		name := fmt.Sprintf("Requirements/should fail with invalid %s or %s values", strings.ToUpper(ops[0]), strings.ToUpper(ops[1]))
		for _, op := range ops {
			for _, v := range []struct {
				variant, values string
				want            []string
			}{
				{"no values", `[]`, []string{rvReq0 + ".values"}},
				{"two values", `["1", "2"]`, []string{rvReq0 + ".values"}},
				{"not an integer", `[a]`, []string{rvReq0 + ".values"}},
				{"negative", `["-1"]`, []string{rvReq0 + ".values[0]", rvReq0 + ".values"}},
			} {
				cases = append(cases, reqCase(name, op+" "+v.variant,
					`[{key: topology.kubernetes.io/zone, operator: `+op+`, values: `+v.values+`}]`, v.want...))
			}
		}
	}
	return cases
}

func rvCoreLabelCases() []rvCase {
	cases := []rvCase{
		labelCase("Labels/should allow unrecognized labels", "", `{foo: sillyname}`),
		labelCase("Labels/should fail for the karpenter.sh/nodepool label", "", `{karpenter.sh/nodepool: sillyname}`, rvLabels+"[karpenter.sh/nodepool]"),
		labelCase("Labels/should fail for invalid label keys", "", `{spaces are not allowed: sillyname}`, rvLabels+"[spaces are not allowed]"),
		labelCase("Labels/should fail at runtime for label keys that are too long", "prefix",
			`{test.com.test.`+rvLong+`/test: sillyname}`, rvLabels+"[test.com.test."+rvLong+"/test]"),
		labelCase("Labels/should fail at runtime for label keys that are too long", "name",
			`{test.com.test/test-`+rvLong+`: sillyname}`, rvLabels+"[test.com.test/test-"+rvLong+"]"),
		labelCase("Labels/should fail for invalid label values", "", `{sillyname: / is not allowed}`, rvLabels+"[sillyname]"),
		labelCase("Labels/should fail for restricted label domains", "karpenter.sh", `{karpenter.sh/unknown: sillyname}`, rvLabels+"[karpenter.sh/unknown]"),
		labelCase("Labels/should fail for restricted label domains", "karpenter.k8s.aws", `{karpenter.k8s.aws/unknown: sillyname}`, rvLabels+"[karpenter.k8s.aws/unknown]"),
		labelCase("Labels/should allow labels kOps require", "", `{kops.k8s.io/instancegroup: karpenter-nodes, kops.k8s.io/gpu: "1"}`),
	}
	for _, domain := range []string{"kubernetes.io", "k8s.io"} {
		cases = append(cases,
			labelCase("Labels/should allow labels in kubernetes domains", domain, `{`+domain+`: test-value}`),
			labelCase("Labels/should allow labels prefixed with the kubernetes domain", domain, `{`+domain+`/key: test-value}`),
			labelCase("Labels/should allow subdomain labels in restricted domains exceptions list", domain, `{subdomain.`+domain+`: test-value}`),
			labelCase("Labels/should allow subdomain labels prefixed with the kubernetes domain", domain, `{subdomain.`+domain+`/key: test-value}`))
	}
	return cases
}

func rvCoreReplicaCases() []rvCase {
	const compatible = "Replicas/should succeed for compatible fields/"
	withReplicas := func(entry, patch string) rvCase {
		return rvCase{name: compatible + entry, patch: patch + "\n---\nspec: {replicas: 10}"}
	}
	return []rvCase{
		{name: "Replicas/Valid Replicas Values/should succeed when replicas is set to a positive value", patch: "spec: {replicas: 5}"},
		{name: "Replicas/Valid Replicas Values/should succeed when replicas is set to zero", patch: "spec: {replicas: 0}"},
		{name: "Replicas/Valid Replicas Values/should succeed when replicas is set to a large value", patch: "spec: {replicas: 1000}"},
		withReplicas("limits.nodes", `spec: {limits: {nodes: "100"}}`),
		withReplicas("disruption with multiple budgets", `spec:
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 5m
    budgets:
    - {nodes: 20%, schedule: "0 9 * * mon-fri", duration: 8h, reasons: [Drifted, Empty]}
    - {nodes: 30%, schedule: "0 22 * * sat,sun", duration: 4h, reasons: [Underutilized]}
    - {nodes: "5"}`),
		withReplicas("template labels", `spec: {template: {metadata: {labels: {environment: production}}}}`),
		withReplicas("template annotations", `spec: {template: {metadata: {annotations: {example.com/last-updated: "2024-01-01"}}}}`),
		withReplicas("taints", `spec: {template: {spec: {taints: [{key: gpu-workload, value: enabled, effect: NoSchedule}]}}}`),
		withReplicas("startup taints", `spec: {template: {spec: {startupTaints: [{key: example.com/initializing, value: "true", effect: NoSchedule}]}}}`),
		withReplicas("requirements", `spec: {template: {spec: {requirements: [
  {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, m5.2xlarge, c5.large, c5.xlarge, r5.large, r5.xlarge], minValues: 3},
  {key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a, us-west-2b, us-west-2c]},
  {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]},
  {key: kubernetes.io/arch, operator: In, values: [amd64]},
  {key: karpenter.k8s.aws/instance-memory, operator: Gt, values: ["8192"]},
  {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["64"]}]}}}`),
		withReplicas("expireAfter", `spec: {template: {spec: {expireAfter: 72h}}}`),
		withReplicas("terminationGracePeriod", `spec: {template: {spec: {terminationGracePeriod: 300s}}}`),
		{name: "Replicas/Update Scenarios/should succeed when increasing replicas in a NodePool", patch: "spec: {replicas: 5}"},
	}
}

func TestRuntimeValidateAWS(t *testing.T) {
	const capacityType = `{key: karpenter.sh/capacity-type, operator: In, values: `
	const tenancy = `[{key: karpenter.sh/capacity-type, operator: Exists}, {key: karpenter.k8s.aws/instance-tenancy, operator: In, values: `
	cases := []rvCase{
		reqCase("Requirements/should fail validation with only invalid capacity types", "", `[`+capacityType+`[xspot]}]`, rvReq0+".values"),
		reqCase("Requirements/should pass validation with valid capacity types", "", `[`+capacityType+`[on-demand]}]`),
		reqCase("Requirements/should fail open if invalid and valid capacity types are present", "", `[`+capacityType+`[on-demand, xspot]}]`),
		reqCase("Requirements/should fail validation with only invalid tenancy types", "", tenancy+`[xdedicated]}]`, "spec.template.spec.requirements[1].values"),
		reqCase("Requirements/should pass validation with valid tenancy types", "", tenancy+`[default]}]`),
		reqCase("Requirements/should fail open if invalid and valid tenancy types are present", "", tenancy+`[default, xdedicated]}]`),
	}
	for _, label := range rvUnique(rvCoreWellKnown, rvAWSWellKnown) {
		if label != "karpenter.k8s.aws/instance-tenancy" {
			cases = append(cases, reqCase("Requirements/should allow well known label exceptions", label, `[{key: `+label+`, operator: In, values: [test]}]`))
		}
	}
	for _, label := range rvUnique(rvCoreWellKnown, []string{"karpenter.sh/capacity-type"}, rvAWSWellKnown) {
		cases = append(cases, labelCase("Labels/should allow well known label exceptions", label, `{`+label+`: test}`))
	}
	runRVCases(t, rvAWSBase, cases)
}

// rvUnique concatenates lists, dropping repeats (windows-build is in the core and the AWS set).
func rvUnique(lists ...[]string) []string {
	var out []string
	for _, s := range slices.Concat(lists...) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestRuntimeValidateVersions covers the one rule that differs between the Karpenter versions
// ported: the AWS provider's well-known labels (capacity-reservation-interruptible from v1.10,
// placement-group-id and -partition from v1.11).
func TestRuntimeValidateVersions(t *testing.T) {
	var cases []rvCase
	for _, c := range []struct {
		label string
		since int
	}{
		{"karpenter.k8s.aws/capacity-reservation-interruptible", 10},
		{"karpenter.k8s.aws/placement-group-id", 11},
		{"karpenter.k8s.aws/placement-group-partition", 11},
		{"karpenter.k8s.aws/instance-family", 9},
	} {
		for _, minor := range []int{9, 10, 11, 15, 0} {
			var want, wantLabel []string
			if minor != 0 && minor < c.since {
				want, wantLabel = []string{rvReq0 + ".key"}, []string{rvLabels + "[" + c.label + "]"}
			}
			variant := fmt.Sprintf("%s@1.%d", c.label, minor)
			rc := reqCase("requirement", variant, `[{key: `+c.label+`, operator: Exists}]`, want...)
			lc := labelCase("label", variant, `{`+c.label+`: "true"}`, wantLabel...)
			rc.minor, lc.minor = minor, minor
			cases = append(cases, rc, lc)
		}
	}
	runRVCases(t, rvAWSBase, cases)
}

func TestRuntimeValidateMore(t *testing.T) {
	cases := []rvCase{
		{name: "duplicate key and effect across taints and startupTaints", patch: `spec: {template: {spec: {
			taints: [{key: a, effect: NoSchedule}, {key: b, effect: NoSchedule}],
			startupTaints: [{key: a, effect: NoSchedule}]}}}`, want: []string{"spec.template.spec.startupTaints[0]"}},
		taintCase("duplicate key and effect within taints", "", `[{key: a, value: x, effect: NoSchedule}, {key: a, value: y, effect: NoSchedule}]`,
			"spec.template.spec.taints[1]"),
		taintCase("taint value is checked as a qualified name", "", `[{key: a, value: a/b/c, effect: NoSchedule}]`, rvTaint0+".value"),
		taintCase("taint value with a DNS prefix is a qualified name", "", `[{key: a, value: example.com/b, effect: NoSchedule}]`),
		reqCase("In without values", "", `[{key: topology.kubernetes.io/zone, operator: In, values: []}]`, rvReq0+".values"),
		reqCase("minValues above the number of In values", "", `[{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 2}]`,
			rvReq0+".minValues"),
		reqCase("minValues above the number of known capacity types", "", `[{key: karpenter.sh/capacity-type, operator: In, values: [spot, xspot], minValues: 2}]`,
			rvReq0+".values"),
		reqCase("invalid value reported at its index", "", `[{key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a, "a b"]}]`,
			rvReq0+".values[1]"),
		reqCase("ec2nodeclass label is not well known", "", `[{key: karpenter.k8s.aws/ec2nodeclass, operator: Exists}]`, rvReq0+".key"),
		reqCase("subdomain of a restricted domain", "", `[{key: foo.karpenter.sh/x, operator: Exists}]`, rvReq0+".key"),
		reqCase("domain that only ends like a restricted one", "", `[{key: notkarpenter.sh/x, operator: Exists}]`),
		reqCase("hostname", "", `[{key: kubernetes.io/hostname, operator: Exists}]`, rvReq0+".key"),
		labelCase("hostname label", "", `{kubernetes.io/hostname: node-1}`, rvLabels+"[kubernetes.io/hostname]"),
		reqCase("nodepool key with NotIn", "", `[{key: karpenter.sh/nodepool, operator: NotIn, values: [a]}]`, rvReq0+".key"),
		{name: "values of the wrong type are skipped", patch: `spec: {template: {spec: {requirements: [{key: topology.kubernetes.io/zone, operator: In, values: [1, "a b"]}]}}}`,
			want: []string{rvReq0 + ".values[1]"}},
	}
	runRVCases(t, rvAWSBase, cases)

	t.Run("label violations use a KeyStep", func(t *testing.T) {
		got := RuntimeValidate(NodePoolKind, rvObject(t, rvAWSBase, `spec: {template: {metadata: {labels: {karpenter.sh/foo: x}}}}`), 0)
		want := Path{{Name: "spec"}, {Name: "template"}, {Name: "metadata"}, {Name: "labels"}, {Kind: KeyStep, Name: "karpenter.sh/foo"}}
		if len(got) != 1 || !slices.Equal(got[0].Field, want) {
			t.Fatalf("got %v, want one violation at %#v", got, want)
		}
	})
	t.Run("EC2NodeClass has no runtime validation", func(t *testing.T) {
		if got := RuntimeValidate(EC2NodeClassKind, map[string]any{"spec": map[string]any{}}, 15); got != nil {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("malformed objects do not panic", func(t *testing.T) {
		for _, obj := range []map[string]any{nil, {"spec": "x"}, {"spec": map[string]any{"template": []any{}}},
			{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"taints": []any{"x", nil}, "requirements": "x"}}}}} {
			if got := RuntimeValidate(NodePoolKind, obj, 15); got != nil {
				t.Errorf("%v: got %v", obj, got)
			}
		}
	})
	t.Run("messages say what is wrong", func(t *testing.T) {
		got := RuntimeValidate(NodePoolKind, rvObject(t, rvAWSBase, `spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/instance-familly, operator: Exists}]}}}`), 15)
		if len(got) != 1 || !strings.Contains(got[0].Message, `did you mean "karpenter.k8s.aws/instance-family"?`) {
			t.Fatalf("got %v", got)
		}
		got = RuntimeValidate(NodePoolKind, rvObject(t, rvAWSBase, `spec: {template: {spec: {requirements: [{key: karpenter.k8s.aws/placement-group-id, operator: Exists}]}}}`), 9)
		if len(got) != 1 || !strings.Contains(got[0].Message, "well known from Karpenter v1.11") {
			t.Fatalf("got %v", got)
		}
	})
}

func runRVCases(t *testing.T, base string, cases []rvCase) {
	t.Helper()
	for _, c := range cases {
		name := c.name
		if c.variant != "" {
			name += "/" + c.variant
		}
		t.Run(name, func(t *testing.T) {
			got := RuntimeValidate(NodePoolKind, rvObject(t, base, c.patch), c.minor)
			var fields []string
			for _, v := range got {
				if f := v.Field.String(); !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
				if v.Message == "" {
					t.Errorf("%s: empty message", v.Field)
				}
			}
			for _, v := range got {
				t.Log(v)
			}
			if !slices.Equal(fields, c.want) {
				t.Fatalf("violations at %q, want %q:\n%v", fields, c.want, got)
			}
		})
	}
}

// rvObject is base with patch (YAML documents separated by ---) merged over it, as JSON decodes it, after the NodePool CRD's
// defaulting.
func rvObject(t *testing.T, base, patch string) map[string]any {
	t.Helper()
	obj := rvDecode(t, base)
	for _, doc := range strings.Split(patch, "\n---\n") {
		rvMerge(obj, rvDecode(t, doc))
	}
	crds, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	structuraldefaulting.Default(obj, crds[NodePoolKind].structural)
	return obj
}

func rvDecode(t *testing.T, doc string) map[string]any {
	t.Helper()
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("yaml: %v\n%s", err, doc)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("json: %v", err)
	}
	return out
}

// rvMerge merges src into dst: maps recursively, anything else replaced.
func rvMerge(dst, src map[string]any) {
	for k, v := range src {
		sub, ok := v.(map[string]any)
		if d, isMap := dst[k].(map[string]any); ok && isMap {
			rvMerge(d, sub)
			continue
		}
		dst[k] = v
	}
}
