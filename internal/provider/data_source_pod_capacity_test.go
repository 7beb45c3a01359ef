package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

const podCapDS = "data.karpenter_pod_capacity.test"

func podCapacityConfig(body string) string {
	return providerConfig("") + fmt.Sprintf(`
data "karpenter_pod_capacity" "test" {
%s
}
`, body)
}

// capWordsRE matches the words in order with any whitespace between them: Terraform wraps
// long diagnostics across lines.
func capWordsRE(s string) *regexp.Regexp {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(strings.Join(words, `\s+`))
}

func checkPodCap(kv ...string) resource.TestCheckFunc {
	var checks []resource.TestCheckFunc
	for i := 0; i+1 < len(kv); i += 2 {
		checks = append(checks, resource.TestCheckResourceAttr(podCapDS, kv[i], kv[i+1]))
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}

// p5EFALayoutHCL is the primary interface plus efa-only on card 0 device 1 and on device 0 of
// cards 1..31: 32 efa-only interfaces.
const p5EFALayoutHCL = `  network_interfaces = concat(
    [
      { network_card_index = 0, device_index = 0, interface_type = "interface" },
      { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
    ],
    [for c in range(1, 32) : { network_card_index = c, device_index = 0, interface_type = "efa-only" }],
  )`

// The worked numbers of m5.large: 3 ENIs of 10 IPv4 on its single card.
func TestAccPodCapacity_m5Large(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Defaults: 3 x (10 - 1) + 2 = 29, the eni-max-pods.txt value; Karpenter agrees.
				Config: podCapacityConfig(`  instance_type = "m5.large"`),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPodCap("eni_limited_pods", "29", "max_pods", "29", "karpenter_assumed_pods", "29",
						"consistent", "true", "reason", "", "usable_enis", "3", "ipv4_per_eni", "10", "pod_ips_per_eni", "9",
						"efa_interfaces", "0", "ami_family", "AL2023", "vpc_ips_at_max_pods", "30",
						"pod_subnet_ips_at_max_pods", "0", "warnings.#", "0",
						"formula", "(3 ENIs - 0 reserved - 0 efa-only) x (10 IPv4 - 1) + 2 = 29"),
					resource.TestCheckNoResourceAttr(podCapDS, "pod_eni"),
				),
			},
			{
				// Prefix delegation: 3 x 9 x 16 + 2 = 434, capped at 110 for 2 vCPUs; Karpenter still assumes 29.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  prefix_delegation = true`),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPodCap("eni_limited_pods", "29", "max_pods", "110", "karpenter_assumed_pods", "29",
						"consistent", "false", "pod_ips_per_eni", "144"),
					resource.TestMatchResourceAttr(podCapDS, "reason", regexp.MustCompile(`does not model prefix delegation.*set kubelet max_pods = 110`)),
					resource.TestMatchResourceAttr(podCapDS, "formula", regexp.MustCompile(`x 16 \+ 2 = 434, capped at 110 for 2 vCPUs`)),
				),
			},
			{
				// Prefix delegation with the fix the reason names: consistent again.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  prefix_delegation = true
  kubelet_max_pods  = 110`),
				Check: checkPodCap("max_pods", "110", "karpenter_assumed_pods", "110", "consistent", "true", "reason", ""),
			},
			{
				// Custom networking without RESERVED_ENIS: the kubelet gets (3 - 1) x 9 + 2 = 20, Karpenter assumes 29.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  custom_networking = true`),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPodCap("eni_limited_pods", "29", "max_pods", "20", "karpenter_assumed_pods", "29",
						"consistent", "false", "usable_enis", "2",
						"reason", "custom networking uses the primary ENI for the node, set reserved_enis = 1 (or kubelet max_pods = 20)"),
					resource.TestCheckResourceAttrSet(podCapDS, "pod_subnet_ips_at_max_pods"),
				),
			},
			{
				// Custom networking with reserved_enis = 1: both 20.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  custom_networking = true
  reserved_enis     = 1`),
				Check: checkPodCap("eni_limited_pods", "20", "max_pods", "20", "karpenter_assumed_pods", "20",
					"consistent", "true", "reason", "", "usable_enis", "2"),
			},
			{
				// Security groups for pods without branch_interfaces: a warning, and pod_eni stays unknown (null).
				Config: podCapacityConfig(`  instance_type = "m5.large"
  security_groups_for_pods = true
  reserved_enis            = 1
  kubelet_pods_per_core    = 5`),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPodCap("max_pods", "10", "karpenter_assumed_pods", "10", "consistent", "true", "warnings.#", "1"),
					resource.TestMatchResourceAttr(podCapDS, "warnings.0", regexp.MustCompile(`branch_interfaces is not set`)),
					resource.TestCheckNoResourceAttr(podCapDS, "pod_eni"),
				),
			},
			{
				Config: podCapacityConfig(`  instance_type = "m5.large"
  security_groups_for_pods = true
  reserved_enis            = 1
  branch_interfaces        = 9
  ami_family               = "Bottlerocket"`),
				Check: checkPodCap("pod_eni", "9", "max_pods", "20", "ami_family", "Bottlerocket", "warnings.#", "0"),
			},
		},
	})
}

func TestAccPodCapacity_p5EFA(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// 32 cards of 2 ENIs: only the default card counts, 2 x 49 + 2 = 100; EFA advertises the type's 32.
				Config: podCapacityConfig(`  instance_type = "p5.48xlarge"`),
				Check: checkPodCap("eni_limited_pods", "100", "max_pods", "100", "efa_interfaces", "32",
					"usable_enis", "2", "ipv4_per_eni", "50"),
			},
			{
				// The efa-only layout: the card-0 efa-only interface takes one ENI, (2 - 1) x 49 + 2 = 51.
				Config: podCapacityConfig(`  instance_type = "p5.48xlarge"
` + p5EFALayoutHCL),
				Check: checkPodCap("eni_limited_pods", "51", "max_pods", "51", "karpenter_assumed_pods", "51",
					"consistent", "true", "efa_interfaces", "32", "usable_enis", "1"),
			},
			{
				// An explicit empty list means no EFA interfaces at all.
				Config: podCapacityConfig(`  instance_type = "p5.48xlarge"
  network_interfaces = []`),
				Check: checkPodCap("eni_limited_pods", "100", "efa_interfaces", "0"),
			},
		},
	})
}

func TestAccPodCapacity_errors(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config:      podCapacityConfig(`  instance_type = "m5.larg"`),
				ExpectError: capWordsRE(`"m5.larg" is not an EC2 instance type in ap-southeast-1`),
			},
			{
				Config:      podCapacityConfig(`  instance_type = "m5.larg"`),
				ExpectError: capWordsRE(`Did you mean "m5.large"`),
			},
			{
				// Every default-card ENI reserved.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  reserved_enis = 3`),
				ExpectError: capWordsRE(`No ENI left for pods on m5.large`),
			},
			{
				// An efa-only interface on a type without EFA.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  network_interfaces = [
    { network_card_index = 0, device_index = 0, interface_type = "interface" },
    { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
  ]`),
				ExpectError: capWordsRE(`EFA is not supported`),
			},
		},
	})
}

// Static mistakes are caught by ValidateConfig, before any EC2 call.
func TestAccPodCapacity_invalidConfigMakesNoCall(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	rec := &callRecorder{}
	cases := []struct{ body, err string }{
		{`  instance_type = ""`, `instance_type must name an EC2 instance type`},
		{`  instance_type = "m5.large"
  ami_family = "Ubuntu"`, `unknown AMI family "Ubuntu"`},
		{`  instance_type = "m5.large"
  reserved_enis = -1`, `must not be negative, got -1`},
		{`  instance_type = "m5.large"
  kubelet_max_pods = -5`, `Invalid kubelet_max_pods`},
		{`  instance_type = "m5.large"
  kubelet_pods_per_core = -1`, `Invalid kubelet_pods_per_core`},
		{`  instance_type = "m5.large"
  network_interfaces = [{ network_card_index = 0, device_index = 1, interface_type = "efa-only" }]`,
			`must include the primary interface`},
		{`  instance_type = "m5.large"
  network_interfaces = [
    { network_card_index = 0, device_index = 0, interface_type = "interface" },
    { network_card_index = 1, device_index = 0, interface_type = "efa" },
  ]`, `interface type "efa" must be "interface" or "efa-only"`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: podCapacityConfig(c.body), ExpectError: capWordsRE(c.err)})
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps:                    steps,
	})
	if calls := rec.Calls("EC2."); len(calls) != 0 {
		t.Fatalf("invalid configurations made EC2 calls: %v", calls)
	}
}

// Unit tests: no Terraform, no EC2 (a fake catalog).

func TestPodCapacityValidateConfig_paths(t *testing.T) {
	cases := []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"valid", map[string]any{"instance_type": "m5.large", "reserved_enis": 1, "ami_family": "Bottlerocket"}, nil},
		{"empty type", map[string]any{"instance_type": ""}, []string{"instance_type"}},
		{"unknown type is fine", map[string]any{"instance_type": capUnknown{}}, nil},
		{"bad family", map[string]any{"instance_type": "m5.large", "ami_family": "al2023"}, []string{"ami_family"}},
		{"negatives", map[string]any{"instance_type": "m5.large", "reserved_enis": -1, "kubelet_max_pods": -1,
			"kubelet_pods_per_core": -1, "branch_interfaces": -1},
			[]string{"reserved_enis", "kubelet_max_pods", "kubelet_pods_per_core", "branch_interfaces"}},
		{"unknown values are not validated", map[string]any{"instance_type": "m5.large", "reserved_enis": capUnknown{},
			"network_interfaces": []any{iface(0, 1, "efa-only"), map[string]any{"network_card_index": capUnknown{}, "device_index": 0, "interface_type": "x"}}}, nil},
		{"interface entry", map[string]any{"instance_type": "m5.large",
			"network_interfaces": []any{iface(0, 0, "interface"), iface(1, 0, "efa")}}, []string{"network_interfaces[1]"}},
		{"duplicate entry", map[string]any{"instance_type": "m5.large",
			"network_interfaces": []any{iface(0, 0, "interface"), iface(0, 0, "efa-only")}}, []string{"network_interfaces[1]"}},
		{"no primary", map[string]any{"instance_type": "m5.large",
			"network_interfaces": []any{iface(0, 1, "efa-only")}}, []string{"network_interfaces"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := &podCapacityDataSource{} // unconfigured: an API call would panic
			diags := capValidate(t, ds, c.attrs)
			if got := capErrorPaths(diags); !slices.Equal(got, c.want) {
				t.Fatalf("error paths %v, want %v\n%s", got, c.want, capDiagText(diags))
			}
		})
	}
}

func TestPodCapacityRead_fake(t *testing.T) {
	meta, fake := capFakeMeta()
	ds := &podCapacityDataSource{meta: meta}

	resp := capRead(t, ds, map[string]any{"instance_type": "m5.large", "custom_networking": true})
	if resp.Diagnostics.HasError() {
		t.Fatal(capDiagText(resp.Diagnostics))
	}
	var got catalog.PodCapacityResult
	if err := decodeAnswer(resp.State.Raw, &got); err != nil || !resp.State.Raw.IsFullyKnown() {
		t.Fatalf("state %v: %v", resp.State.Raw, err)
	}
	if got.ENILimitedPods != 29 || got.MaxPods != 20 || got.Consistent ||
		!strings.Contains(got.Reason, "set reserved_enis = 1") || got.AMIFamily != "AL2023" ||
		got.PodENI != nil || len(got.Warnings) != 0 {
		t.Errorf("m5.large custom networking: %+v", got)
	}

	// Warnings go to both the attribute and the diagnostics.
	resp = capRead(t, ds, map[string]any{"instance_type": "m5.large", "security_groups_for_pods": true})
	if w := resp.Diagnostics.Warnings(); len(w) != 1 || !strings.Contains(w[0].Detail(), "branch_interfaces") {
		t.Errorf("warnings: %s", capDiagText(resp.Diagnostics))
	}

	errCases := []struct {
		name  string
		attrs map[string]any
		path  string
		has   []string
	}{
		{"unknown type", map[string]any{"instance_type": "m5.larg"}, "instance_type",
			[]string{`"m5.larg" is not an EC2 instance type in ap-southeast-1 (7 types known)`, `Did you mean "m5.large"`}},
		{"interfaces do not fit", map[string]any{"instance_type": "m5.large",
			"network_interfaces": []any{iface(0, 0, "interface"), iface(1, 0, "efa-only")}}, "network_interfaces",
			[]string{"network card 1 does not exist"}},
		{"no ENI left", map[string]any{"instance_type": "t2.micro", "reserved_enis": 2}, "reserved_enis",
			[]string{"no ENI left for pods"}},
	}
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			resp := capRead(t, ds, c.attrs)
			if got := capErrorPaths(resp.Diagnostics); !slices.Equal(got, []string{c.path}) {
				t.Fatalf("error paths %v, want [%s]\n%s", got, c.path, capDiagText(resp.Diagnostics))
			}
			text := capDiagText(resp.Diagnostics)
			for _, h := range c.has {
				if !strings.Contains(text, h) {
					t.Errorf("diagnostic lacks %q:\n%s", h, text)
				}
			}
		})
	}
	// Bare metal reports no hypervisor and takes prefix delegation.
	if resp := capRead(t, ds, map[string]any{"instance_type": "c5.metal", "prefix_delegation": true}); resp.Diagnostics.HasError() {
		t.Errorf("c5.metal with prefix delegation: %s", capDiagText(resp.Diagnostics))
	}
	if types, offers := fake.Calls("DescribeInstanceTypes"), fake.Calls("DescribeInstanceTypeOfferings"); types != 1 || offers != 1 {
		t.Errorf("%d reads made %d DescribeInstanceTypes and %d offering calls; want one load", 7, types, offers)
	}
}

// EKS Auto Mode: auto_mode with any VPC CNI, kubelet or EC2NodeClass input is an error on that
// input, a bad prefix size on auto_mode.ipv4_prefix_size; no EC2 call (the data source is not
// configured).
func TestPodCapacityValidateConfig_autoMode(t *testing.T) {
	auto := map[string]any{"ipv4_prefix_size": nil, "pod_subnets": nil}
	cases := []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"auto_mode alone", map[string]any{"instance_type": "m5.large", "auto_mode": auto}, nil},
		{"32 with pod subnets", map[string]any{"instance_type": "m5.large",
			"auto_mode": map[string]any{"ipv4_prefix_size": "32", "pod_subnets": true}}, nil},
		{"bad prefix size", map[string]any{"instance_type": "m5.large",
			"auto_mode": map[string]any{"ipv4_prefix_size": "/28", "pod_subnets": nil}}, []string{"auto_mode.ipv4_prefix_size"}},
		{"VPC CNI inputs", map[string]any{"instance_type": "m5.large", "auto_mode": auto,
			"prefix_delegation": true, "custom_networking": true, "warm_prefix_target": 1, "kubelet_max_pods": 110},
			[]string{"prefix_delegation", "custom_networking", "warm_prefix_target", "kubelet_max_pods"}},
		{"EC2NodeClass inputs", map[string]any{"instance_type": "m5.large", "auto_mode": auto,
			"ami_family": "AL2023", "reserved_enis": 1, "network_interfaces": []any{iface(0, 0, "interface")}},
			[]string{"ami_family", "reserved_enis", "network_interfaces"}},
		{"the same inputs without auto_mode", map[string]any{"instance_type": "m5.large",
			"prefix_delegation": true, "custom_networking": true, "warm_prefix_target": 1, "kubelet_max_pods": 110}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diags := capValidate(t, &podCapacityDataSource{}, c.attrs)
			if got := capErrorPaths(diags); !slices.Equal(got, c.want) {
				t.Fatalf("error paths %v, want %v\n%s", got, c.want, capDiagText(diags))
			}
		})
	}
}

func TestPodCapacityRead_autoMode(t *testing.T) {
	meta, _ := capFakeMeta()
	ds := &podCapacityDataSource{meta: meta}
	read := func(typ string, auto map[string]any) (catalog.PodCapacityResult, datasource.ReadResponse) {
		t.Helper()
		resp := capRead(t, ds, map[string]any{"instance_type": typ, "auto_mode": auto})
		var got catalog.PodCapacityResult
		if !resp.Diagnostics.HasError() {
			if err := decodeAnswer(resp.State.Raw, &got); err != nil {
				t.Fatal(err)
			}
		}
		return got, resp
	}
	cases := []struct {
		typ                                string
		auto                               map[string]any
		maxPods, nodeIPs, podIPs, prefixes int
		formula                            string
	}{
		// 3 x 9 x 16 + 2 = 434, capped at 110: 7 /28s on the primary ENI, 1 + 112 addresses.
		{"m5.large", map[string]any{"ipv4_prefix_size": nil, "pod_subnets": nil}, 110, 113, 0, 7,
			"EKS Auto Mode, /28 prefixes: 3 ENIs x (10 IPv4 - 1) x 16 + 2 = 434, capped at 110"},
		// "32": 3 x 9 + 2 = 29; 27 secondary addresses on the 3 ENIs, 3 + 27.
		{"m5.large", map[string]any{"ipv4_prefix_size": "32", "pod_subnets": false}, 29, 30, 0, 0, ""},
		// Pod subnets: the primary ENI keeps the node's address; (3 - 1) x 9 + 2 = 20, all in the pod subnets.
		{"m5.large", map[string]any{"ipv4_prefix_size": "32", "pod_subnets": true}, 20, 1, 20, 0, ""},
		{"m5.large", map[string]any{"ipv4_prefix_size": "Auto", "pod_subnets": true}, 110, 1, 113, 7, ""},
	}
	for _, c := range cases {
		got, resp := read(c.typ, c.auto)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%v: %s", c.auto, capDiagText(resp.Diagnostics))
		}
		if got.MaxPods != c.maxPods || got.KarpenterAssumedPods != c.maxPods || !got.Consistent || got.VPCIPsAtMaxPods != c.nodeIPs ||
			got.PodSubnetIPsAtMaxPods != c.podIPs || got.PrefixesAtMaxPods != c.prefixes || got.AMIFamily != "" {
			t.Errorf("%s %v: %+v", c.typ, c.auto, got)
		}
		if c.formula != "" && got.Formula != c.formula {
			t.Errorf("formula %q, want %q", got.Formula, c.formula)
		}
	}
	// Auto Mode launches no 1-vCPU or micro type: an error on instance_type, naming the page.
	_, resp := read("t2.micro", map[string]any{"ipv4_prefix_size": nil, "pod_subnets": nil})
	if got := capErrorPaths(resp.Diagnostics); !slices.Equal(got, []string{"instance_type"}) ||
		!strings.Contains(capDiagText(resp.Diagnostics), "automode-learn-instances") {
		t.Errorf("t2.micro: %v\n%s", got, capDiagText(resp.Diagnostics))
	}
	// Without auto_mode the read reports prefix delegation's /28s too, and the family.
	resp = capRead(t, ds, map[string]any{"instance_type": "m5.large", "prefix_delegation": true})
	var got catalog.PodCapacityResult
	if err := decodeAnswer(resp.State.Raw, &got); err != nil || got.PrefixesAtMaxPods != 7 || got.AMIFamily != "AL2023" {
		t.Errorf("prefix delegation: %+v, %v", got, err)
	}
}

// EKS Auto Mode against EC2's data for m5.large: the ENI figure capped at 110, the /28s a full
// node takes, the VPC CNI inputs refused on their own attribute (the failing steps first: the
// post-test destroy plans the last configuration) and a type Auto Mode does not launch.
func TestAccPodCapacity_autoMode(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config: podCapacityConfig(`  instance_type     = "m5.large"
  auto_mode         = {}
  prefix_delegation = true`),
				ExpectError: regexp.MustCompile(`(?s)Invalid prefix_delegation.*does not apply with auto_mode`),
			},
			{
				Config: podCapacityConfig(`  instance_type = "t3.micro"
  auto_mode     = {}`),
				ExpectError: capWordsRE("t3.micro is not available in EKS Auto Mode"),
			},
			{
				// 3 x (10 - 1) x 16 + 2 = 434, capped at 110: 7 /28s on the primary ENI, 1 + 112 addresses.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  auto_mode     = {}`),
				Check: checkPodCap("max_pods", "110", "karpenter_assumed_pods", "110", "consistent", "true", "reason", "",
					"vpc_ips_at_max_pods", "113", "pod_subnet_ips_at_max_pods", "0", "prefixes_at_max_pods", "7", "ami_family", "",
					"formula", "EKS Auto Mode, /28 prefixes: 3 ENIs x (10 IPv4 - 1) x 16 + 2 = 434, capped at 110"),
			},
			{
				// Secondary IPs in the pod subnets: (3 - 1) x 9 + 2 = 20.
				Config: podCapacityConfig(`  instance_type = "m5.large"
  auto_mode     = { ipv4_prefix_size = "32", pod_subnets = true }`),
				Check: checkPodCap("max_pods", "20", "vpc_ips_at_max_pods", "1", "pod_subnet_ips_at_max_pods", "20", "prefixes_at_max_pods", "0"),
			},
		},
	})
}
