package provider

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

const itDS = "data.karpenter_instance_types.test"

func instanceTypesConfig(body string) string {
	return providerConfig("") + fmt.Sprintf(`
data "karpenter_instance_types" "test" {
%s
}
`, body)
}

// itReqs renders requirements; each entry is key, operator, values (comma separated, may be
// empty) and an optional min_values ("" for none).
func itReqs(entries ...[4]string) string {
	var b strings.Builder
	b.WriteString("  requirements = [\n")
	for _, e := range entries {
		var vals []string
		for _, v := range strings.Split(e[2], ",") {
			if v != "" {
				vals = append(vals, fmt.Sprintf("%q", v))
			}
		}
		fmt.Fprintf(&b, "    { key = %q, operator = %q", e[0], e[1])
		if e[1] != "Exists" && e[1] != "DoesNotExist" {
			fmt.Fprintf(&b, ", values = [%s]", strings.Join(vals, ", "))
		}
		if e[3] != "" {
			fmt.Fprintf(&b, ", min_values = %s", e[3])
		}
		b.WriteString(" },\n")
	}
	b.WriteString("  ]")
	return b.String()
}

const (
	kFamily = "karpenter.k8s.aws/instance-family"
	kSize   = "karpenter.k8s.aws/instance-size"
	kCPU    = "karpenter.k8s.aws/instance-cpu"
	kMemory = "karpenter.k8s.aws/instance-memory"
	kGPU    = "karpenter.k8s.aws/instance-gpu-name"
	kZone   = "topology.kubernetes.io/zone"
)

// expectNames checks names and instance_types[*].name, in order.
func expectNames(names ...string) resource.TestCheckFunc {
	checks := []resource.TestCheckFunc{
		resource.TestCheckResourceAttr(itDS, "names.#", fmt.Sprint(len(names))),
		resource.TestCheckResourceAttr(itDS, "instance_types.#", fmt.Sprint(len(names))),
	}
	for i, n := range names {
		checks = append(checks,
			resource.TestCheckResourceAttr(itDS, fmt.Sprintf("names.%d", i), n),
			resource.TestCheckResourceAttr(itDS, fmt.Sprintf("instance_types.%d.name", i), n))
	}
	return resource.ComposeAggregateTestCheckFunc(checks...)
}

// One requirement per operator, on families whose EC2 data is stable: m5 (large 2 vCPU ...
// 24xlarge and metal 96 vCPU / 384 GiB), g4dn (one NVIDIA T4 kind per size).
func TestAccInstanceTypes_operators(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	m5 := [4]string{kFamily, "In", "m5", ""}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// In: one type, with its details and labels.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kCPU, "In", "2", ""})),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("m5.large"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.vcpu", "2"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.memory_mib", "8192"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.architecture", "amd64"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.hypervisor", "nitro"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.max_enis", "3"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.ipv4_per_eni", "10"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.efa_supported", "false"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.network_cards", "1"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.eni_limited_pods", "29"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.max_pods", "29"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.zones.#", "3"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.karpenter.k8s.aws/instance-category", "m"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.karpenter.k8s.aws/instance-generation", "5"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.karpenter.k8s.aws/instance-size", "large"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.karpenter.k8s.aws/instance-network-bandwidth", "750"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.kubernetes.io/os", "linux"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.labels.topology.kubernetes.io/region", acctest.Region()),
					resource.TestCheckResourceAttr(itDS, "ami_family", "AL2023"),
				),
			},
			{
				// NotIn.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kSize, "NotIn", "large,xlarge,2xlarge,4xlarge,8xlarge,12xlarge,16xlarge", ""})),
				Check:  expectNames("m5.24xlarge", "m5.metal"),
			},
			{
				// Exists: every g4dn has one GPU kind.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "g4dn,m5", ""}, [4]string{kGPU, "Exists", "", ""}, [4]string{kCPU, "Lte", "8", ""})),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("g4dn.2xlarge", "g4dn.xlarge"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.labels.karpenter.k8s.aws/instance-gpu-name", "t4"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.labels.karpenter.k8s.aws/instance-gpu-manufacturer", "nvidia"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.labels.karpenter.k8s.aws/instance-gpu-count", "1"),
				),
			},
			{
				// DoesNotExist.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "g4dn,m5", ""}, [4]string{kGPU, "DoesNotExist", "", ""}, [4]string{kCPU, "Lte", "4", ""})),
				Check:  expectNames("m5.large", "m5.xlarge"),
			},
			{
				// Gt: m5.24xlarge and m5.metal have 96 vCPUs; the metal type's hypervisor label is empty.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kCPU, "Gt", "64", ""})),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("m5.24xlarge", "m5.metal"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.hypervisor", ""),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.labels.karpenter.k8s.aws/instance-hypervisor", ""),
				),
			},
			{
				// Lt.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kCPU, "Lt", "4", ""})),
				Check:  expectNames("m5.large"),
			},
			{
				// Gte on memory: 384 GiB.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kMemory, "Gte", "393216", ""})),
				Check:  expectNames("m5.24xlarge", "m5.metal"),
			},
			{
				// Lte.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kCPU, "Lte", "4", ""})),
				Check:  expectNames("m5.large", "m5.xlarge"),
			},
			{
				// Custom node labels do not narrow the list.
				Config: instanceTypesConfig(itReqs(m5, [4]string{kCPU, "Lt", "4", ""}, [4]string{"example.com/team", "In", "payments", ""})),
				Check:  expectNames("m5.large"),
			},
		},
	})
}

func TestAccInstanceTypes_minValues(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	families := [4]string{kFamily, "In", "m5,c5,r5", "3"}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Satisfied: three families with a 2-vCPU size.
				Config: instanceTypesConfig(itReqs(families, [4]string{kCPU, "In", "2", ""})),
				Check:  expectNames("c5.large", "m5.large", "r5.large"),
			},
			{
				// Violated: no GPU in these families.
				Config:      instanceTypesConfig(itReqs(families, [4]string{kGPU, "Exists", "", ""})),
				ExpectError: capWordsRE(`offer 0 distinct value(s) of "karpenter.k8s.aws/instance-family" but min_values is 3`),
			},
			{
				// Violated after narrowing: 2 families left.
				Config:      instanceTypesConfig(itReqs(families, [4]string{kFamily, "NotIn", "r5", ""})),
				ExpectError: capWordsRE(`min_values not satisfied`),
			},
		},
	})
}

// i4g.8xlarge is not offered in ap-southeast-1c in LocalStack's data; the other i4g sizes are.
func TestAccInstanceTypes_zones(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	i4g := itReqs([4]string{kFamily, "In", "i4g", ""})
	all := []string{"i4g.16xlarge", "i4g.2xlarge", "i4g.4xlarge", "i4g.8xlarge", "i4g.large", "i4g.xlarge"}
	without8x := []string{"i4g.16xlarge", "i4g.2xlarge", "i4g.4xlarge", "i4g.large", "i4g.xlarge"}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				Config: instanceTypesConfig(i4g),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames(all...),
					resource.TestCheckResourceAttr(itDS, "instance_types.3.zones.#", "2"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.zones.#", "3"),
				),
			},
			{
				Config: instanceTypesConfig(i4g + `
  zones = ["ap-southeast-1c"]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames(without8x...),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.zones.#", "1"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.zones.0", "ap-southeast-1c"),
				),
			},
			{
				Config: instanceTypesConfig(i4g + `
  zones = ["ap-southeast-1c", "ap-southeast-1a"]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames(all...),
					resource.TestCheckResourceAttr(itDS, "instance_types.3.zones.#", "1"),
					resource.TestCheckResourceAttr(itDS, "instance_types.3.zones.0", "ap-southeast-1a"),
				),
			},
			{
				// A zone requirement is evaluated per offering, like the zones filter.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "i4g", ""}, [4]string{kZone, "NotIn", "ap-southeast-1a,ap-southeast-1b", ""})),
				Check:  expectNames(without8x...),
			},
			{
				Config: instanceTypesConfig(i4g + `
  zones = ["ap-southeast-1z"]`),
				ExpectError: capWordsRE(`"ap-southeast-1z" is not an availability zone of ap-southeast-1 with instance type offerings. The region's zones are: ap-southeast-1a, ap-southeast-1b, ap-southeast-1c.`),
			},
		},
	})
}

func TestAccInstanceTypes_capacity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{
				// Prefix delegation: the Xen m4.large stays with the VPC CNI's fallback to secondary
				// IPs (20 pods), m5.large gets 110.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "m4,m5", ""}, [4]string{kSize, "In", "large", ""}) + `
  prefix_delegation = true`),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("m4.large", "m5.large"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.max_pods", "20"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.eni_limited_pods", "29"),
					resource.TestCheckResourceAttr(itDS, "instance_types.1.max_pods", "110"),
				),
			},
			{
				// Without it both are listed.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "m4,m5", ""}, [4]string{kSize, "In", "large", ""})),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("m4.large", "m5.large"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.hypervisor", "xen"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.max_pods", "20"),
				),
			},
			{
				// The p5 EFA layout fits p5.48xlarge only among the p5 sizes.
				Config: instanceTypesConfig(itReqs([4]string{kFamily, "In", "p5", ""}) + "\n" + p5EFALayoutHCL),
				Check: resource.ComposeAggregateTestCheckFunc(
					expectNames("p5.48xlarge"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.eni_limited_pods", "51"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.network_cards", "32"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.efa_supported", "true"),
					resource.TestCheckResourceAttr(itDS, "instance_types.0.zones.#", "0"),
				),
			},
			{
				// No requirements: every type Karpenter can launch in the region (over a thousand here).
				Config: instanceTypesConfig(``),
				Check: func(s *terraform.State) error {
					rs := s.RootModule().Resources[itDS]
					if rs == nil {
						return fmt.Errorf("%s not in state", itDS)
					}
					var n int
					if _, err := fmt.Sscan(rs.Primary.Attributes["names.#"], &n); err != nil || n < 1000 {
						return fmt.Errorf("names.# = %q, want over 1000", rs.Primary.Attributes["names.#"])
					}
					for k, v := range rs.Primary.Attributes {
						if strings.HasPrefix(k, "names.") && strings.HasPrefix(v, "mac") {
							return fmt.Errorf("%s = %s: Mac types are not Karpenter types", k, v)
						}
					}
					return nil
				},
			},
		},
	})
}

// Invalid requirements are reported on requirements[i].<field> by ValidateConfig, before any
// EC2 call.
func TestAccInstanceTypes_invalidConfigMakesNoCall(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	rec := &callRecorder{}
	cases := []struct{ body, err string }{
		{itReqs([4]string{kCPU, "Gt", "a", ""}), `operator Gt requires a single integer value >= 0`},
		{itReqs([4]string{kCPU, "Gt", "1,2", ""}), `operator Gt requires exactly one value, got 2`},
		{itReqs([4]string{kFamily, "in", "m5", ""}), `unknown operator "in"`},
		{itReqs([4]string{kFamily, "In", "", ""}), `operator In requires at least one value`},
		{itReqs([4]string{kFamily, "In", "m5", "2"}), `min_values is 2 but operator In lists only 1 value(s)`},
		{itReqs([4]string{"karpenter.sh/nodepool", "In", "a", ""}), `is restricted`},
		{itReqs([4]string{"karpenter.k8s.aws/instance-famly", "In", "m5", ""}), `did you mean "karpenter.k8s.aws/instance-family"?`},
		{`  zones = ["ap-southeast-1a", "ap-southeast-1a"]`, `zone "ap-southeast-1a" is listed twice`},
		{`  reserved_enis = -2`, `must not be negative, got -2`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: instanceTypesConfig(c.body), ExpectError: capWordsRE(c.err)})
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

// The catalog is read once per provider process however many data sources need it: 5
// karpenter_pod_capacity and 2 karpenter_instance_types in one configuration. The provider
// block uses its own spelling of the endpoint, so this test's processes do not find a catalog
// another parallel test already loaded (the cache is keyed by endpoint, region and account).
func TestAccInstanceTypes_catalogLoadedOncePerProcess(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	t.Parallel()
	acctest.PreCheck(t)
	endpoint, ok := catalogTestEndpoint(acctest.Endpoint())
	if !ok {
		t.Skipf("cannot derive a second spelling of endpoint %s", acctest.Endpoint())
	}
	// Pages of one full load on this endpoint, measured with a fresh client.
	ctx := context.Background()
	probe, err := awsclient.New(ctx, awsclient.Settings{Region: acctest.Region(), EC2Endpoint: endpoint, STSEndpoint: endpoint,
		SkipCredentialsValidation: true, SkipRequestingAccountID: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probe.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	onePass := probe.Calls.Snapshot()
	wantTypes, wantOffers := onePass["EC2.DescribeInstanceTypes"], onePass["EC2.DescribeInstanceTypeOfferings"]

	var b strings.Builder
	fmt.Fprintf(&b, `
provider "karpenter" {
  region = %q
  endpoints = {
    ec2 = %q
    sts = %q
  }
}
`, acctest.Region(), endpoint, endpoint)
	for i, it := range []string{"m5.large", "m5.xlarge", "c5.18xlarge", "t3.micro", "p5.48xlarge"} {
		fmt.Fprintf(&b, "data \"karpenter_pod_capacity\" \"pc%d\" {\n  instance_type = %q\n}\n", i, it)
	}
	b.WriteString(`
data "karpenter_instance_types" "a" {
  requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5"] }]
}
data "karpenter_instance_types" "b" {
  requirements = [{ key = "karpenter.k8s.aws/instance-cpu", operator = "Lte", values = ["4"] }]
  prefix_delegation = true
}
`)
	rec := &callRecorder{}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(rec),
		Steps: []resource.TestStep{{
			Config: b.String(),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.pc0", "max_pods", "29"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.pc1", "max_pods", "58"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.pc2", "max_pods", "737"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.pc3", "max_pods", "4"),
				resource.TestCheckResourceAttr("data.karpenter_pod_capacity.pc4", "max_pods", "100"),
				resource.TestCheckResourceAttr("data.karpenter_instance_types.a", "names.#", "9"),
			),
		}},
	})

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var loaded, totalTypes, totalOffers int
	for i, c := range rec.clients {
		calls := c.Calls.Snapshot()
		types, offers := calls["EC2.DescribeInstanceTypes"], calls["EC2.DescribeInstanceTypeOfferings"]
		if types == 0 && offers == 0 {
			continue
		}
		loaded++
		totalTypes += types
		totalOffers += offers
		if types != wantTypes || offers != wantOffers {
			t.Errorf("client %d made %d DescribeInstanceTypes and %d DescribeInstanceTypeOfferings calls; one load is %d and %d",
				i, types, offers, wantTypes, wantOffers)
		}
	}
	t.Logf("%d provider processes, %d loaded the catalog: %d DescribeInstanceTypes pages and %d DescribeInstanceTypeOfferings pages in total (one load: %d and %d)",
		len(rec.clients), loaded, totalTypes, totalOffers, wantTypes, wantOffers)
	if loaded != 1 || totalTypes != wantTypes || totalOffers != wantOffers {
		t.Errorf("want exactly one catalog load per provider process and one process loading in this test binary; got %d loads, %d/%d pages",
			loaded, totalTypes, totalOffers)
	}
}

// catalogTestEndpoint swaps 127.0.0.1 and localhost so the URL differs but reaches the same
// server.
func catalogTestEndpoint(endpoint string) (string, bool) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", false
	}
	switch u.Hostname() {
	case "127.0.0.1":
		u.Host = strings.Replace(u.Host, "127.0.0.1", "localhost", 1)
	case "localhost":
		u.Host = strings.Replace(u.Host, "localhost", "127.0.0.1", 1)
	default:
		return "", false
	}
	return u.String(), true
}

// Unit tests: no Terraform, no EC2 (a fake catalog).

// itReq is one requirement object; values is nil, capUnknown{} or []any.
func itReq(key, op string, values any, minValues any) map[string]any {
	if v, ok := values.([]any); ok && v == nil {
		values = nil
	}
	return map[string]any{"key": key, "operator": op, "values": values, "min_values": minValues}
}

func TestInstanceTypesValidateConfig_paths(t *testing.T) {
	cases := []struct {
		name  string
		attrs map[string]any
		want  []string
	}{
		{"valid", map[string]any{"requirements": []any{itReq(kCPU, "Gte", []any{"4"}, nil), itReq(kFamily, "In", []any{"m5", "c5"}, 2)}}, nil},
		{"none", map[string]any{}, nil},
		{"fields", map[string]any{"requirements": []any{
			itReq(kCPU, "Gt", []any{"four"}, nil),
			itReq(kFamily, "Inn", []any{"m5"}, nil),
			itReq(kFamily, "In", []any{"m5"}, 2),
			itReq("karpenter.k8s.aws/nope", "Exists", nil, nil),
		}}, []string{"requirements[0].values", "requirements[1].operator", "requirements[2].min_values", "requirements[3].key"}},
		{"unknown requirement values are skipped", map[string]any{"requirements": []any{
			itReq(kCPU, "Gt", capUnknown{}, nil),
			itReq(kFamily, "In", []any{capUnknown{}}, 3),
		}}, nil},
		{"zones", map[string]any{"zones": []any{"ap-southeast-1a", "", "ap-southeast-1a", capUnknown{}}}, []string{"zones[1]", "zones[2]"}},
		{"cni", map[string]any{"kubelet_max_pods": -3}, []string{"kubelet_max_pods"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := &instanceTypesDataSource{}
			diags := capValidate(t, ds, c.attrs)
			if got := capErrorPaths(diags); !slices.Equal(got, c.want) {
				t.Fatalf("error paths %v, want %v\n%s", got, c.want, capDiagText(diags))
			}
		})
	}
}

func TestInstanceTypesRead_fake(t *testing.T) {
	meta, fake := capFakeMeta()
	ds := &instanceTypesDataSource{meta: meta}
	read := func(attrs map[string]any) (launchplan.InstanceTypesResult, diag.Diagnostics) {
		t.Helper()
		resp := capRead(t, ds, attrs)
		var m launchplan.InstanceTypesResult
		if !resp.Diagnostics.HasError() {
			if err := decodeAnswer(resp.State.Raw, &m); err != nil || !resp.State.Raw.IsFullyKnown() {
				resp.Diagnostics.AddError("state", fmt.Sprintf("%v: %v", resp.State.Raw, err))
			}
		}
		return m, resp.Diagnostics
	}
	names := func(m launchplan.InstanceTypesResult) []string { return m.Names }

	// No requirements: everything, sorted; per-type values.
	m, diags := read(map[string]any{})
	if diags.HasError() || len(diags.Warnings()) != 0 {
		t.Fatal(capDiagText(diags))
	}
	if want := []string{"c5.metal", "c7g.large", "m4.large", "m5.large", "m5.xlarge", "p5.48xlarge", "t2.micro"}; !slices.Equal(names(m), want) {
		t.Fatalf("names %v", names(m))
	}
	c7g := m.InstanceTypes[1]
	if c7g.Architecture != "arm64" || len(c7g.Zones) != 1 || c7g.MaxPods != 29 ||
		c7g.Labels["kubernetes.io/arch"] != "arm64" {
		t.Errorf("c7g.large: %+v", c7g)
	}

	// Prefix delegation keeps the two Xen types with the VPC CNI's fallback: their secondary-IP
	// counts (m4.large 20), while the Nitro m5.large gets 110.
	plainM4 := m.InstanceTypes[2].MaxPods
	m, diags = read(map[string]any{"prefix_delegation": true})
	if diags.HasError() || len(diags.Warnings()) != 0 {
		t.Fatal(capDiagText(diags))
	}
	if !slices.Contains(names(m), "m4.large") || !slices.Contains(names(m), "t2.micro") || !slices.Contains(names(m), "c5.metal") {
		t.Errorf("names %v", names(m))
	}
	if m4, m5 := m.InstanceTypes[2], m.InstanceTypes[3]; m4.Name != "m4.large" || m4.MaxPods != plainM4 || plainM4 != 20 ||
		m5.MaxPods != 110 {
		t.Errorf("m4.large %v (plain %d), m5.large %v", m4.MaxPods, plainM4, m5.MaxPods)
	}

	// Windows: amd64 only, os label windows.
	m, _ = read(map[string]any{"ami_family": "Windows2022", "requirements": []any{itReq("kubernetes.io/os", "In", []any{"windows"}, nil)}})
	if slices.Contains(names(m), "c7g.large") || len(m.InstanceTypes) == 0 || m.InstanceTypes[0].MaxPods != 110 {
		t.Errorf("windows: %v", names(m))
	}

	errCases := []struct {
		name  string
		attrs map[string]any
		path  string
		has   string
	}{
		{"min_values", map[string]any{"requirements": []any{
			itReq(kFamily, "In", []any{"m5", "m4", "c7g"}, 3), itReq(kCPU, "Gt", []any{"2"}, nil),
		}}, "requirements[0].min_values", `offer 1 distinct value(s) of "karpenter.k8s.aws/instance-family" but min_values is 3`},
		{"unknown zone", map[string]any{"zones": []any{"ap-southeast-1b", "ap-southeast-1c"}}, "zones[1]",
			`"ap-southeast-1c" is not an availability zone of ap-southeast-1 with instance type offerings. The region's zones are: ap-southeast-1a, ap-southeast-1b.`},
	}
	for _, c := range errCases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := read(c.attrs)
			if got := capErrorPaths(diags); !slices.Equal(got, []string{c.path}) {
				t.Fatalf("error paths %v, want [%s]\n%s", got, c.path, capDiagText(diags))
			}
			if !strings.Contains(capDiagText(diags), c.has) {
				t.Errorf("diagnostic lacks %q:\n%s", c.has, capDiagText(diags))
			}
		})
	}

	// Zones filter and a zone requirement; a zone-id requirement warns that it is not evaluated.
	m, diags = read(map[string]any{"zones": []any{"ap-southeast-1a"}, "requirements": []any{
		itReq("topology.k8s.aws/zone-id", "In", []any{"apse1-az1"}, nil),
		itReq("example.com/team", "In", []any{"a"}, nil),
	}})
	if w := diags.Warnings(); len(w) != 1 || !strings.Contains(w[0].Detail(), "topology.k8s.aws/zone-id") {
		t.Errorf("warnings: %s", capDiagText(diags))
	}
	if slices.Contains(names(m), "c7g.large") || slices.Contains(names(m), "p5.48xlarge") || !slices.Contains(names(m), "m5.large") {
		t.Errorf("zone a: %v", names(m))
	}
	if n := fake.Calls("DescribeInstanceTypes"); n != 1 {
		t.Errorf("DescribeInstanceTypes called %d times", n)
	}
}
