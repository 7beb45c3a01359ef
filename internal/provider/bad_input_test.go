package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
)

// badCase is one invalid configuration: it must fail at plan with an error diagnostic on
// exactly `path` whose text contains the words of `msg`.
type badCase struct {
	name   string
	config string // everything after the group's header (provider block and fixtures)
	path   string // attribute path in Terraform notation: template.requirements[0].values, tags["aws:owner"]
	msg    string // words of the error text, matched with any whitespace (Terraform wraps lines)
}

// recordedDiag is an error diagnostic the provider returned while a case was running.
type recordedDiag struct {
	rpc, path, text string
	detail          string // warnings: text is the summary
}

// diagRecorder keeps the error diagnostics of every RPC, by case.
type diagRecorder struct {
	mu       sync.Mutex
	cur      int
	diags    map[int][]recordedDiag
	warnings []recordedDiag // of every case, in order
}

func (r *diagRecorder) setCase(i int) {
	r.mu.Lock()
	r.cur = i
	r.mu.Unlock()
}

func (r *diagRecorder) add(rpc string, diags []*tfprotov6.Diagnostic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range diags {
		if d != nil && d.Severity == tfprotov6.DiagnosticSeverityWarning {
			r.warnings = append(r.warnings, recordedDiag{rpc: rpc, path: attrPathString(d.Attribute), text: d.Summary, detail: d.Detail})
		}
		if d == nil || d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		r.diags[r.cur] = append(r.diags[r.cur], recordedDiag{rpc: rpc, path: attrPathString(d.Attribute), text: d.Summary + ": " + d.Detail})
	}
}

func (r *diagRecorder) of(i int) []recordedDiag {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedDiag(nil), r.diags[i]...)
}

// attrPathString writes a protocol attribute path in Terraform notation.
func attrPathString(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		default:
			b.WriteString("[?]")
		}
	}
	return b.String()
}

// diagServer passes every call to the provider and records the error diagnostics of the calls
// that validate, configure, plan and read.
type diagServer struct {
	tfprotov6.ProviderServer
	rec *diagRecorder
}

func (s diagServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateProviderConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateProviderConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s diagServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	resp, err := s.ProviderServer.ConfigureProvider(ctx, req)
	if resp != nil {
		s.rec.add("ConfigureProvider", resp.Diagnostics)
	}
	return resp, err
}

func (s diagServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateResourceConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s diagServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	resp, err := s.ProviderServer.ValidateDataResourceConfig(ctx, req)
	if resp != nil {
		s.rec.add("ValidateDataResourceConfig", resp.Diagnostics)
	}
	return resp, err
}

func (s diagServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.rec.add("PlanResourceChange", resp.Diagnostics)
	}
	return resp, err
}

func (s diagServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.rec.add("ReadDataSource", resp.Diagnostics)
	}
	return resp, err
}

// badInputFactories serves the provider with the call recorder and the diagnostic recorder.
func badInputFactories(calls *callRecorder, diags *diagRecorder) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"karpenter": func() (tfprotov6.ProviderServer, error) {
			// What Terraform gets: paths it can place (diagnostics.go).
			srv, err := serverOf(func() *karpenterProvider {
				p := &karpenterProvider{version: "test", newClient: calls.newClient}
				p.newClient = policyRecorded(p, p.newClient) // the published policy decides these calls too
				return p
			})()
			if err != nil {
				return nil, err
			}
			return diagServer{ProviderServer: srv, rec: diags}, nil
		},
	}
}

// mutatingCall reports EC2 operations that change something.
func mutatingCall(op string) bool {
	if _, name, ok := strings.Cut(op, "."); ok { // EC2.CreateFleet, IAM.CreateInstanceProfile
		op = name
	}
	for _, p := range []string{"Create", "Delete", "Modify", "Run", "Terminate", "Authorize", "Revoke", "Associate", "Attach", "Replace",
		"Add", "Remove", "Tag", "Untag"} {
		if strings.HasPrefix(op, p) {
			return true
		}
	}
	return false
}

var badInputsTried atomic.Int64

// runBadInputs plans every case in one test case (one step each, PlanOnly) and then checks, per
// case, that Terraform failed with the message and that the provider put an error diagnostic
// with that message on exactly the case's attribute path; and that no client the provider
// built made a mutating EC2 call.
func runBadInputs(t *testing.T, header string, cases []badCase) {
	t.Helper()
	calls := &callRecorder{}
	diags := &diagRecorder{diags: map[int][]recordedDiag{}}
	steps := make([]resource.TestStep, 0, len(cases))
	for i, c := range cases {
		steps = append(steps, resource.TestStep{
			PreConfig:   func() { diags.setCase(i) },
			Config:      header + withTestImage(c.config),
			PlanOnly:    true,
			ExpectError: capWordsRE(c.msg),
		})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: badInputFactories(calls, diags),
		Steps:                    steps,
	})
	for i, c := range cases {
		re := capWordsRE(c.msg)
		got := diags.of(i)
		ok := false
		// The diagnostic is on the part of the path Terraform resolves to a source range, and
		// names the full path first in its detail when that is longer.
		at := resolvableString(c.path)
		for _, d := range got {
			if d.path == at && re.MatchString(d.text) && (at == c.path || strings.Contains(d.text, ": "+c.path+": ")) {
				ok = true
				break
			}
		}
		if !ok {
			var lines []string
			for _, d := range got {
				lines = append(lines, fmt.Sprintf("%s on %q: %s", d.rpc, d.path, d.text))
			}
			t.Errorf("case %d %q: no error diagnostic on %s naming %s and matching %q; the provider returned:\n  %s", i, c.name, at, c.path, c.msg,
				strings.Join(lines, "\n  "))
		}
	}
	noMutatingCalls(t, calls, "invalid configurations")
	badInputsTried.Add(int64(len(cases)))
	t.Logf("%d invalid configurations tried; EC2 calls made: %v", len(cases), calls.Calls("EC2."))
}

// noMutatingCalls fails the test when any client the provider built made a mutating EC2 call.
func noMutatingCalls(t *testing.T, calls *callRecorder, what string) {
	t.Helper()
	noMutatingCallsOf(t, calls, "", what) // every service: EC2, IAM, ...
}

// noMutatingCallsOf is noMutatingCalls for the calls of one service prefix ("EC2.").
func noMutatingCallsOf(t *testing.T, calls *callRecorder, prefix, what string) {
	t.Helper()
	var mutating []string
	for op, n := range calls.Calls(prefix) {
		if mutatingCall(op) {
			mutating = append(mutating, fmt.Sprintf("%s x%d", op, n))
		}
	}
	sort.Strings(mutating)
	if len(mutating) > 0 {
		t.Errorf("%s made mutating AWS calls: %s", what, strings.Join(mutating, ", "))
	}
}

func TestMutatingCall(t *testing.T) {
	for op, want := range map[string]bool{
		"EC2.CreateLaunchTemplate": true, "EC2.DeleteLaunchTemplate": true, "EC2.ModifyLaunchTemplate": true, "EC2.RunInstances": true,
		"EC2.TerminateInstances": true, "EC2.AuthorizeSecurityGroupIngress": true, "EC2.RevokeSecurityGroupEgress": true, "EC2.CreateFleet": true,
		"EC2.DescribeSubnets": false, "EC2.DescribeInstanceTypes": false, "EC2.DescribeLaunchTemplateVersions": false,
		"IAM.CreateInstanceProfile": true, "IAM.AddRoleToInstanceProfile": true, "IAM.RemoveRoleFromInstanceProfile": true,
		"IAM.TagInstanceProfile": true, "IAM.DeleteInstanceProfile": true, "IAM.GetRole": false, "IAM.GetInstanceProfile": false,
		"STS.GetCallerIdentity": false, "SSM.GetParameter": false,
	} {
		if mutatingCall(op) != want {
			t.Errorf("mutatingCall(%q) = %v", op, !want)
		}
	}
	p := tftypes.NewAttributePath().WithAttributeName("template").WithAttributeName("requirements").WithElementKeyInt(0).WithAttributeName("values")
	if got := attrPathString(p); got != "template.requirements[0].values" {
		t.Errorf("attrPathString = %q", got)
	}
	if got := attrPathString(tftypes.NewAttributePath().WithAttributeName("tags").WithElementKeyString("aws:owner")); got != `tags["aws:owner"]` {
		t.Errorf("attrPathString = %q", got)
	}
}

// TestAccBadInput: invalid configurations across the provider block, both resources and the
// data sources, each rejected at plan on its attribute path, without a mutating EC2 call.
func TestAccBadInput(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	t.Cleanup(func() { t.Logf("bad inputs tried: %d", badInputsTried.Load()) })
	t.Run("provider", func(t *testing.T) { t.Parallel(); badInputProvider(t) })
	t.Run("data_sources", func(t *testing.T) { t.Parallel(); badInputDataSources(t) })
	t.Run("node_class", func(t *testing.T) { t.Parallel(); badInputNodeClass(t) })
	t.Run("node_pool", func(t *testing.T) { t.Parallel(); badInputNodePool(t) })
}

func badInputProvider(t *testing.T) {
	block := func(settings string) string {
		return fmt.Sprintf(`
provider "karpenter" {
  region = %q
  endpoints = {
    ec2 = %q
    sts = %q
  }
%s
}

data "karpenter_pod_capacity" "x" {
  instance_type = "m5.large"
}
`, acctest.Region(), acctest.Endpoint(), acctest.Endpoint(), settings)
	}
	runBadInputs(t, "", []badCase{
		{"max_retries zero", block(`  max_retries = 0`), "max_retries", "value must be between 1 and 100, got: 0"},
		{"max_retries above 100", block(`  max_retries = 101`), "max_retries", "value must be between 1 and 100, got: 101"},
		{"max_retries negative", block(`  max_retries = -3`), "max_retries", "value must be between 1 and 100, got: -3"},
		{"catalog_cache ttl not a duration", block(`  catalog_cache = { ttl = "an hour" }`), "catalog_cache.ttl", `"an hour" is not a duration such as 30m, 6h or 0s`},
		{"catalog_cache ttl negative", block(`  catalog_cache = { ttl = "-5m" }`), "catalog_cache.ttl", `"-5m" is negative; use 0s to turn the cache off`},
		{"access_key without secret_key", block(`  access_key = "AKIAEXAMPLEONLY"`), "secret_key", "access_key and secret_key must be set together"},
		{"secret_key without access_key", block(`  secret_key = "only-the-secret"`), "access_key", "access_key and secret_key must be set together"},
		{"cluster endpoint over http", block(`  cluster_endpoint = "http://example.eks.amazonaws.com"`), "cluster_endpoint", `"http://example.eks.amazonaws.com" is not an https URL`},
		{"cluster CA not base64 PEM", block(`  cluster_certificate_authority_data = "not-a-bundle"`), "cluster_certificate_authority_data", "expected the base64 of a PEM certificate bundle"},
		{"service CIDR not a CIDR", block(`  cluster_service_cidr = "172.20.0.0/33"`), "cluster_service_cidr", `"172.20.0.0/33" is not an IPv4 CIDR`},
		{"feature gate of no release", block(`  karpenter_feature_gates = ["NodeOverlay", "NodeOverlays"]`), "karpenter_feature_gates[1]",
			`"NodeOverlays" is not a feature gate of any Karpenter release`},
		{"feature gate of a later release", block("  karpenter_version = \"1.14\"\n  karpenter_feature_gates = [\"NodeOverlay\", \"NodeClassCEL\"]"),
			"karpenter_feature_gates[1]", "Karpenter 1.14 has no feature gate NodeClassCEL (a gate of Karpenter 1.15)"},
		{"a 1.14–1.15 gate under 1.13", block("  karpenter_version = \"1.13\"\n  karpenter_feature_gates = [\"CapacityBuffer=false\"]"),
			"karpenter_feature_gates[0]", "Karpenter 1.13 has no feature gate CapacityBuffer (a gate of Karpenter 1.14–1.15)"},
	})
}

func badInputDataSources(t *testing.T) {
	pc := func(body string) string { return "\ndata \"karpenter_pod_capacity\" \"bad\" {\n" + body + "\n}\n" }
	it := func(body string) string { return "\ndata \"karpenter_instance_types\" \"bad\" {\n" + body + "\n}\n" }
	sn := func(terms string) string {
		return "\ndata \"karpenter_subnets\" \"bad\" {\n  selector_terms = " + terms + "\n}\n"
	}
	sg := func(terms string) string {
		return "\ndata \"karpenter_security_groups\" \"bad\" {\n  selector_terms = " + terms + "\n}\n"
	}
	req := func(r string) string { return it("  requirements = [" + r + "]") }
	runBadInputs(t, providerConfig(""), []badCase{
		{"pod capacity: unknown AMI family", pc(`  instance_type = "m5.large"` + "\n" + `  ami_family = "AL3"`), "ami_family", `unknown AMI family "AL3"`},
		{"pod capacity: negative reserved_enis", pc(`  instance_type = "m5.large"` + "\n  reserved_enis = -1"), "reserved_enis", "must not be negative, got -1"},
		{"pod capacity: negative kubelet_max_pods", pc(`  instance_type = "m5.large"` + "\n  kubelet_max_pods = -5"), "kubelet_max_pods", "must not be negative, got -5"},
		{"pod capacity: negative kubelet_pods_per_core", pc(`  instance_type = "m5.large"` + "\n  kubelet_pods_per_core = -1"), "kubelet_pods_per_core", "must not be negative, got -1"},
		{"pod capacity: negative warm_ip_target", pc(`  instance_type = "m5.large"` + "\n  warm_ip_target = -3"), "warm_ip_target", "must not be negative, got -3"},
		{"pod capacity: negative branch_interfaces", pc(`  instance_type = "m5.large"` + "\n  branch_interfaces = -2"), "branch_interfaces", "must not be negative, got -2"},
		{"pod capacity: empty instance type", pc(`  instance_type = ""`), "instance_type", "instance_type must name an EC2 instance type"},
		{"pod capacity: instance type typo", pc(`  instance_type = "m5.lrage"`), "instance_type", `"m5.lrage" is not an EC2 instance type`},
		{"pod capacity: unknown interface type", pc(`  instance_type = "m5.large"
  network_interfaces = [{ network_card_index = 0, device_index = 0, interface_type = "efa" }]`), "network_interfaces[0]", `interface type "efa" must be`},
		{"pod capacity: interfaces without the primary", pc(`  instance_type = "m5.large"
  network_interfaces = [{ network_card_index = 0, device_index = 1, interface_type = "efa-only" }]`), "network_interfaces", "must include the primary interface"},
		{"instance types: unknown operator", req(`{ key = "karpenter.k8s.aws/instance-family", operator = "Like", values = ["m5"] }`),
			"requirements[0].operator", `unknown operator "Like"`},
		{"instance types: Gt with two values", req(`{ key = "karpenter.k8s.aws/instance-cpu", operator = "Gt", values = ["2", "4"] }`),
			"requirements[0].values", "operator Gt requires exactly one value, got 2"},
		{"instance types: min_values above the values", req(`{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5", "c5"], min_values = 3 }`),
			"requirements[0].min_values", "min_values is 3 but operator In lists only 2 value(s)"},
		{"instance types: restricted label domain", req(`{ key = "karpenter.sh/foo", operator = "Exists" }`),
			"requirements[0].key", `label domain "karpenter.sh" is restricted`},
		{"instance types: capacity type typo", req(`{ key = "karpenter.sh/capacity-type", operator = "In", values = ["spott"] }`),
			"requirements[0].values", `invalid capacity type "spott"`},
		{"instance types: empty zone", it(`  zones = [""]`), "zones[0]", "zone names must not be empty"},
		{"instance types: duplicate zone", it(`  zones = ["ap-southeast-1a", "ap-southeast-1a"]`), "zones[1]", `zone "ap-southeast-1a" is listed twice`},
		{"instance types: zone typo", it(`  zones = ["ap-southeast-1z"]`), "zones[0]", `"ap-southeast-1z" is not an availability zone`},
		{"subnets: empty selector terms", sn(`[]`), "selector_terms", "must contain at least 1 elements and at most 30 elements, got: 0"},
		{"subnets: oversized selector terms", sn(`[for i in range(31) : { id = "subnet-${i}" }]`), "selector_terms", "at most 30 elements, got: 31"},
		{"subnets: id with tags", sn(`[{ id = "subnet-0abc", tags = { tier = "private" } }]`), "selector_terms[0].id", "`id` is mutually exclusive with `tags`"},
		{"subnets: bad id", sn(`[{ id = "sub-123" }]`), "selector_terms[0].id", `"sub-123" is not a subnet id`},
		{"subnets: empty tags", sn(`[{ tags = {} }]`), "selector_terms[0].tags", "tags must not be empty"},
		{"subnets: too many tags", sn(`[{ tags = { for i in range(21) : "k${i}" => "v" } }]`), "selector_terms[0].tags", "at most 20 tags per term, got 21"},
		{"subnets: empty tag value", sn(`[{ tags = { Name = "" } }]`), `selector_terms[0].tags["Name"]`, `tag "Name" has an empty value`},
		{"security groups: id with name", sg(`[{ id = "sg-0abc", name = "nodes" }]`), "selector_terms[0].id", "`id` is mutually exclusive with `tags` and `name`"},
		{"security groups: bad id", sg(`[{ id = "group-1" }]`), "selector_terms[0].id", `"group-1" is not a security group id`},
		{"security groups: empty term", sg(`[{}]`), "selector_terms[0]", "a security group selector term needs one of `tags`, `id` or `name`"},
	})
}

func badInputNodeClass(t *testing.T) {
	cluster := acctest.RandomName("cluster")
	class := func(body string) string {
		return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}
`, body)
	}
	// AMI cases replace the whole class.
	amiClass := func(attrs string) string {
		return "\nresource \"karpenter_node_class\" \"test\" {\n  name = \"default\"\n  role = \"KarpenterNodeRole\"\n" + attrs + "\n}\n"
	}
	md := func(hop, tokens string) string {
		return fmt.Sprintf(`  metadata_options = { http_endpoint = "enabled", http_protocol_ipv6 = "disabled", http_put_response_hop_limit = %s, http_tokens = %q }`, hop, tokens)
	}
	runBadInputs(t, providerConfig(cluster), []badCase{
		{"empty subnet selector terms", class(`  subnet_selector_terms = []`), "subnet_selector_terms", "must contain at least 1 elements and at most 30 elements, got: 0"},
		{"oversized subnet selector terms", class(`  subnet_selector_terms = [for i in range(31) : { id = "subnet-${i}" }]`), "subnet_selector_terms", "got: 31"},
		{"subnet term with id and tags", class(`  subnet_selector_terms = [{ id = "subnet-0abc", tags = { a = "b" } }]`), "subnet_selector_terms[0].id", "`id` is mutually exclusive with `tags`"},
		{"bad subnet id", class(`  subnet_selector_terms = [{ tags = { a = "b" } }, { id = "subnet_0abc" }]`), "subnet_selector_terms[1].id", `"subnet_0abc" is not a subnet id`},
		{"too many tags in a term", class(`  subnet_selector_terms = [{ tags = { for i in range(21) : "k${i}" => "v" } }]`), "subnet_selector_terms[0].tags", "at most 20 tags per term, got 21"},
		{"empty tags in a term", class(`  subnet_selector_terms = [{ tags = {} }]`), "subnet_selector_terms[0].tags", "tags must not be empty"},
		{"security group term with id and name", class(`  security_group_selector_terms = [{ id = "sg-0abc", name = "nodes" }]`), "security_group_selector_terms[0].id", "`id` is mutually exclusive"},
		{"bad security group id", class(`  security_group_selector_terms = [{ id = "sg_0abc" }]`), "security_group_selector_terms[0].id", `"sg_0abc" is not a security group id`},
		{"aws: tag key", class(`  tags = { "aws:owner" = "x" }`), `tags["aws:owner"]`, `tag keys starting with "aws:" are reserved by AWS`},
		{"AWS: tag key in another case", class(`  tags = { "AWS:Team" = "x" }`), `tags["AWS:Team"]`, `tag keys starting with "aws:" are reserved by AWS`},
		{"reserved Karpenter tag key", class(`  tags = { "karpenter.sh/nodepool" = "x" }`), `tags["karpenter.sh/nodepool"]`, `tag key "karpenter.sh/nodepool" is set by Karpenter`},
		{"kubernetes.io/cluster tag key", class(`  tags = { "kubernetes.io/cluster/mine" = "owned" }`), `tags["kubernetes.io/cluster/mine"]`, `are managed by Karpenter`},
		{"unknown AMI family", amiClass(`  ami_family = "AL3"` + "\n" + `  ami_selector_terms = [{ id = "ami-0123456789abcdef0" }]`), "ami_family", `unknown AMI family "AL3"`},
		{"unknown alias family", amiClass(`  ami_selector_terms = [{ alias = "ubuntu@latest" }]`), "ami_selector_terms[0].alias", `"ubuntu@latest" is not a valid alias`},
		{"Windows alias with a version", amiClass(`  ami_selector_terms = [{ alias = "windows2022@v1.2.3" }]`), "ami_selector_terms[0].alias", "Windows aliases only support @latest"},
		{"bad AMI id", amiClass(`  ami_family = "AL2023"` + "\n" + `  ami_selector_terms = [{ id = "img-123" }]`), "ami_selector_terms[0].id", `"img-123" is not an AMI id`},
		{"alias beside another term", amiClass(`  ami_selector_terms = [{ alias = "al2023@latest" }, { id = "ami-0123456789abcdef0" }]`), "ami_selector_terms[0].alias", "must be the only AMI selector term"},
		{"role and instance profile", class(`  instance_profile = "KarpenterNodeProfile"`), "instance_profile", "`role` and `instance_profile` are mutually exclusive"},
		{"hop limit zero", class(md("0", "required")), "metadata_options.http_put_response_hop_limit", "must be between 1 and 64, got 0"},
		{"hop limit 65", class(md("65", "required")), "metadata_options.http_put_response_hop_limit", "must be between 1 and 64, got 65"},
		{"unknown http_tokens", class(md("1", "maybe")), "metadata_options.http_tokens", `must be one of required, optional, got "maybe"`},
		{"negative ip_prefix_count", class(`  ip_prefix_count = -1`), "ip_prefix_count", "must be 0 or more, got -1"},
		{"negative reserved ENIs", class(`  networking = { reserved_enis = -1 }`), "networking.reserved_enis", "must be 0 or more, got -1"},
		{"negative warm prefix target", class(`  networking = { warm_prefix_target = -1 }`), "networking.warm_prefix_target", "must not be negative, got -1"},
		{"negative kubelet max_pods", class(`  kubelet = { max_pods = -1 }`), "kubelet.max_pods", "must be 0 or more, got -1"},
		{"volume size in Mi", class(`  block_device_mappings = [{ device_name = "/dev/xvda", ebs = { volume_size = "100Mi" } }]`),
			"block_device_mappings[0].ebs.volume_size", `"100Mi" is not a volume size`},
		{"unknown interface type", class(`  network_interfaces = [{ network_card_index = 0, device_index = 0, interface_type = "efa" }]`),
			"network_interfaces[0].interface_type", `must be "interface" or "efa-only", got "efa"`},
		{"efa with explicit interfaces", class(`  efa = true
  network_interfaces = [{ network_card_index = 0, device_index = 0, interface_type = "interface" }]`), "efa", "cannot be combined with `network_interfaces`"},
		{"name not a DNS subdomain", strings.Replace(class(""), `name               = "default"`, `name               = "Default_Class"`, 1), "name", `"Default_Class" is not a valid Kubernetes object name`},
		{"bad pod subnet id", class(`  networking = { custom_networking = { pod_subnet_selector_terms = [{ id = "pod-subnet-1" }] } }`),
			"networking.custom_networking.pod_subnet_selector_terms[0].id", `"pod-subnet-1" is not a subnet id`},
		{"user data over 16 KB", class(fmt.Sprintf("  user_data = %q", strings.Repeat("x", 20000))), "user_data", "user data is 20000 bytes; EC2 accepts at most 16384 bytes (16 KB) before base64 encoding"},
		{"empty tags in an AMI term", amiClass(`  ami_family = "AL2023"` + "\n" + `  ami_selector_terms = [{ tags = {} }]`), "ami_selector_terms[0].tags", "tags must not be empty"},
	})
}

func badInputNodePool(t *testing.T) {
	cluster := acctest.RandomName("cluster")
	discoveryNetwork(t, cluster)
	pool := func(classBody, poolBody string) string {
		return fmt.Sprintf(`
resource "karpenter_node_class" "test" {
  name               = "default"
  role               = "KarpenterNodeRole"
  ami_selector_terms = [{ alias = "al2023@latest" }]
%s
}

resource "karpenter_node_pool" "test" {
  name       = "general"
  node_class = karpenter_node_class.test.resolved
%s
}
`, classBody, poolBody)
	}
	reqs := func(r ...string) string {
		return "  template = {\n    requirements = [\n      " + strings.Join(r, ",\n      ") + ",\n    ]\n  }"
	}
	m5 := `{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large"] }`
	runBadInputs(t, providerConfig(cluster), []badCase{
		{"unknown operator", pool("", reqs(`{ key = "karpenter.k8s.aws/instance-family", operator = "Equals", values = ["m5"] }`)),
			"template.requirements[0].operator", `unknown operator "Equals"`},
		{"Gt with two values", pool("", reqs(m5, `{ key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["4", "5"] }`)),
			"template.requirements[1].values", "operator Gt requires exactly one value, got 2"},
		{"Gt with a non-integer", pool("", reqs(`{ key = "karpenter.k8s.aws/instance-cpu", operator = "Gt", values = ["four"] }`)),
			"template.requirements[0].values", `operator Gt requires a single integer value >= 0, got "four"`},
		{"min_values above the values", pool("", reqs(`{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5", "c5"], min_values = 3 }`)),
			"template.requirements[0].min_values", "min_values is 3 but operator In lists only 2 value(s)"},
		{"min_values above 50", pool("", reqs(`{ key = "karpenter.k8s.aws/instance-family", operator = "Exists", min_values = 51 }`)),
			"template.requirements[0].min_values", "min_values must be between 1 and 50, got 51"},
		{"zone typo", pool("", reqs(m5, `{ key = "topology.kubernetes.io/zone", operator = "In", values = ["ap-southeast-1a", "ap-southeast-1z"] }`)),
			"template.requirements[1].values", `zone "ap-southeast-1z" has no subnet of node class "default"`},
		{"restricted hostname key", pool("", reqs(`{ key = "kubernetes.io/hostname", operator = "In", values = ["node-1"] }`)),
			"template.requirements[0].key", `label "kubernetes.io/hostname" is restricted`},
		{"capacity type typo", pool("", reqs(`{ key = "karpenter.sh/capacity-type", operator = "In", values = ["spott"] }`)),
			"template.requirements[0].values", `invalid capacity type "spott"`},
		{"EFA class with only non-EFA types", pool("  efa = true", reqs(`{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "c5.large"] }`)),
			"template.requirements", `none can be launched: 2 instance types without EFA support, which node class "default" requires`},
		{"replicas with weight", pool("", reqs(m5)+"\n  replicas = 2\n  weight = 10"), "weight", "`weight` is not allowed on a static pool"},
		{"negative replicas", pool("", reqs(m5)+"\n  replicas = -1"), "replicas", "value must be at least 0, got: -1"},
		{"replicas with a cpu limit", pool("", reqs(m5)+"\n  replicas = 1\n  limits = { cpu = \"10\" }"), `limits["cpu"]`, "a static pool (with `replicas`) may only limit `nodes`"},
		{"weight zero", pool("", reqs(m5)+"\n  weight = 0"), "weight", "value must be between 1 and 100, got: 0"},
		{"unknown consolidation policy", pool("", reqs(m5)+"\n  disruption = {\n    consolidation_policy = \"Sometimes\"\n    consolidate_after = \"30s\"\n  }"),
			"disruption.consolidation_policy", `"Sometimes" is not a consolidation policy`},
		{"bad consolidate_after", pool("", reqs(m5)+"\n  disruption = {\n    consolidation_policy = \"WhenEmpty\"\n    consolidate_after = \"soon\"\n  }"),
			"disruption.consolidate_after", `"soon" is not a duration like 30s or Never`},
		{"budget above 100%", pool("", reqs(m5)+"\n  disruption = {\n    consolidation_policy = \"WhenEmpty\"\n    consolidate_after = \"30s\"\n    budgets = [{ nodes = \"110%\" }]\n  }"),
			"disruption.budgets[0].nodes", `"110%" is not a node count or a percentage`},
		{"junk limit", pool("", reqs(m5)+"\n  limits = { cpu = \"lots\" }"), `limits["cpu"]`, `"lots" is not a non-negative quantity`},
		{"negative limit", pool("", reqs(m5)+"\n  limits = { memory = \"-1Gi\" }"), `limits["memory"]`, `"-1Gi" is not a non-negative quantity`},
		{"expire_after in days", pool("", strings.Replace(reqs(m5), "  }", "    expire_after = \"30d\"\n  }", 1)), "template.expire_after", `"30d" is not a duration like 720h or Never`},
		{"unknown taint effect", pool("", strings.Replace(reqs(m5), "  }", "    taints = [{ key = \"gpu\", effect = \"Sometimes\" }]\n  }", 1)),
			"template.taints[0].effect", `value must be one of`},
		{"pool name not a DNS subdomain", strings.Replace(pool("", reqs(m5)), `name       = "general"`, `name       = "General_Pool"`, 1), "name", `"General_Pool" is not a valid Kubernetes object name`},
		// Refused only by the CRD (Kubernetes' validator over the embedded schema), before any EC2 call.
		{"taint key with upper-case domain", pool("", strings.Replace(reqs(m5), "  }", "    taints = [{ key = \"Test.com/test\", effect = \"NoSchedule\" }]\n  }", 1)),
			"template.taints[0].key", `spec.template.spec.taints[0].key: Invalid value: "Test.com/test"`},
		{"taint key with upper-case domain on a static pool (no manifest, still admitted)",
			pool("", strings.Replace(reqs(m5), "  }", "    taints = [{ key = \"Test.com/test\", effect = \"NoSchedule\" }]\n  }", 1)+"\n  replicas = 2"),
			"template.taints[0].key", `spec.template.spec.taints[0].key: Invalid value: "Test.com/test"`},
		{"budget schedule of one field", pool("", reqs(m5)+"\n  disruption = {\n    consolidation_policy = \"WhenEmpty\"\n    consolidate_after = \"30s\"\n    budgets = [{ nodes = \"1\", schedule = \"*\", duration = \"1h\" }]\n  }"),
			"disruption.budgets[0].schedule", `spec.disruption.budgets[0].schedule: Invalid value: "*": spec.disruption.budgets[0].schedule in body should match`},
		{"startup taint value", pool("", strings.Replace(reqs(m5), "  }", "    startup_taints = [{ key = \"example.com/init\", value = \"???\", effect = \"NoSchedule\" }]\n  }", 1)),
			"template.startup_taints[0].value", `spec.template.spec.startupTaints[0].value: Invalid value: "???"`},
	})
}

// resolvableString is the part of a path in Terraform's notation that Terraform resolves to a
// source range: the top-level attribute and one index or key ("template.taints[0].key" →
// "template", `tags["a"]` → itself).
func resolvableString(p string) string {
	end := strings.IndexAny(p, ".[")
	if end < 0 {
		return p
	}
	if p[end] == '[' {
		if end2 := strings.Index(p[end:], "]"); end2 >= 0 {
			return p[:end+end2+1]
		}
	}
	return p[:end]
}
