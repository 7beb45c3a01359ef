package provider

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/acctest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
)

// LocalStack has no Pricing API and one constant spot price, so these tests put
// acctest.PricingStub in front of it as the provider's `pricing` and `ec2` endpoints: it
// answers GetProducts and DescribeSpotPriceHistory from the prices a test seeds and forwards
// every other EC2 call to LocalStack (recording CreateFleet).

// withPricingStub is a provider block whose EC2 and Pricing API endpoints are the stub.
func withPricingStub(cluster string, stub *acctest.PricingStub) string {
	cfg := providerConfigEC2(cluster, stub.URL())
	return strings.Replace(cfg, "  endpoints = {\n", fmt.Sprintf("  endpoints = {\n    pricing = %q\n", stub.URL()), 1)
}

// sixTypes are seeded with us-east-1's on-demand prices, whose order is not size order:
// m6g.large < t3.large < c5.large < m5.large, where (vCPUs, memory, name) puts c5.large first.
var sixTypes = map[string]float64{
	"m6g.large": 0.077, "t3.large": 0.0832, "c5.large": 0.085, "m5.large": 0.096, "c5.xlarge": 0.17, "m5.xlarge": 0.192,
}

func sixTypesPool(capacityTypes, extra string) string {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range sixTypes {
			if !yield(n) {
				return
			}
		}
	})
	return fmt.Sprintf(`
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = %s },
      { key = "karpenter.sh/capacity-type", operator = "In", values = %s },
    ]
  }
  limits = { cpu = "100" }
%s`, hclList(names), capacityTypes, extra)
}

func hclList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestAccNodePool_pricesOrderTheLaunch: the plan's launch order is Karpenter's price order from
// the Pricing API's and EC2's prices, not size order; a spot offering cheaper than any on-demand
// one puts a bigger type first; the cost bound and the source are in the summary.
func TestAccNodePool_pricesOrderTheLaunch(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	stub := acctest.NewPricingStub(t)
	// Karpenter's on-demand read is two queries, shared and bare metal, and an empty answer to
	// either is a failure: the stub serves one metal type besides the six.
	seeded := maps.Clone(sixTypes)
	seeded["m5.metal"] = 4.608
	stub.SetOnDemand(acctest.Region(), seeded)
	spot := map[string]map[string]float64{}
	for name, od := range sixTypes {
		spot[name] = map[string]float64{}
		for _, s := range n.Subnets {
			spot[name][s.Zone] = od * 0.9
		}
	}
	spot["m5.xlarge"][n.Subnets[1].Zone] = 0.041 // a bigger type, cheapest of all as spot in zone b
	stub.SetSpot(spot)

	class := `  subnet_selector_terms = [{ tags = { "karpenter.sh/discovery" = "` + cluster + `" } }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = "` + cluster + `" } }]
`
	cfg := func(pool string) string {
		return strings.Replace(poolConfig(cluster, class, pool), providerConfig(cluster), withPricingStub(cluster, stub), 1)
	}
	const source = "AWS Pricing API and EC2 spot price history"
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: withDetails(cfg(sixTypesPool(`["on-demand"]`, ""))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"), knownvalue.StringExact(
						"m6g.large 0.077 on-demand, t3.large 0.0832 on-demand, c5.large 0.085 on-demand, m5.large 0.096 on-demand, "+
							"c5.xlarge 0.17 on-demand and 1 more (USD/h)")),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("instance_types"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("m6g.large"), knownvalue.StringExact("t3.large"), knownvalue.StringExact("c5.large"),
						knownvalue.StringExact("m5.large"), knownvalue.StringExact("c5.xlarge"), knownvalue.StringExact("m5.xlarge"),
					})),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("prices").AtMapKey("t3.large"), knownvalue.Float64Exact(0.0832)),
					// cpu 100 at the cheapest type, m6g.large (2 vCPUs): 50 nodes x 0.077.
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("cost"),
						knownvalue.StringExact("cpu 100 → at most 50 × m6g.large, 3.85 USD/h on-demand")),
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("prices"), knownvalue.StringExact(source)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(s *terraform.State) error {
						a, err := poolAttrs(s, nodePoolRes)
						if err != nil {
							return err
						}
						for k, v := range a {
							if strings.HasPrefix(k, "warnings.") && strings.Contains(v, "table") {
								return fmt.Errorf("a price warning with live prices: %s", v)
							}
						}
						if stub.Calls("GetProducts") == 0 || stub.Calls("DescribeSpotPriceHistory") == 0 {
							return fmt.Errorf("prices not read through the stub: %s", stub)
						}
						return nil
					},
				),
			},
			{
				// Spot allowed: m5.xlarge's spot offering in zone b (0.041) is the cheapest offering
				// of all, so the bigger type leads; the others follow at 0.9 x on-demand, but for
				// Karpenter's spot filter: m5.large's spot (0.0864) is dearer than the cheapest on-demand
				// offering (m6g.large, 0.077), so it launches on demand only, at 0.096.
				Config: withDetails(cfg(sixTypesPool(`["spot", "on-demand"]`, ""))),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"), knownvalue.StringExact(
						"m5.xlarge 0.041 spot, m6g.large 0.0693 spot, t3.large 0.07488 spot, c5.large 0.0765 spot, m5.large 0.096 on-demand "+
							"and 1 more (USD/h)")),
				}},
			},
		},
	})
}

// TestAccNodePool_pricesFallBackToKarpentersTable: without a Pricing API (LocalStack answers it
// with an error), the plan orders by Karpenter's embedded table and says so.
func TestAccNodePool_pricesFallBackToKarpentersTable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	class := fmt.Sprintf("  subnet_selector_terms = [{ id = %q }]\n  security_group_selector_terms = [{ id = %q }]\n", n.Subnets[0].ID, n.SecurityGroups[0].ID)
	cfg := poolConfig(cluster, class, sixTypesPool(`["on-demand"]`, ""))
	got := planWarnings(t, cfg)
	wantWarning(t, got, launchplan.SummaryPriceFallback, "", "Karpenter "+pricing.FallbackKarpenterVersion,
		pricing.FallbackGenerated, "us-east-1 prices", "pricing:GetProducts")
	if d := distinct(got[launchplan.SummaryPriceFallback]); len(d) != 1 {
		t.Errorf("fallback warnings: %v, want one", d)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("prices"), knownvalue.StringRegexp(regexp.MustCompile(
					`^Karpenter `+regexp.QuoteMeta(pricing.FallbackKarpenterVersion)+`'s on-demand table of `+pricing.FallbackGenerated+` \(us-east-1 prices\)$`))),
				// The table's us-east-1 prices: m6g.large before t3.large before c5.large.
				plancheck.ExpectKnownValue(nodePoolRes, tfjsonpath.New("summary").AtMapKey("first_instance_types"),
					knownvalue.StringRegexp(regexp.MustCompile(`^m6g\.large [0-9.]+ on-demand, t3\.large [0-9.]+ on-demand, c5\.large `))),
			}},
		}},
	})
}

// distinct drops repeats: Terraform plans a resource more than once in one run.
func distinct(list []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(list)))
}

// seededPrice is a made-up on-demand price per type that follows neither size nor name.
func seededPrice(name string) float64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return 0.01 + float64(h.Sum32()%5000)/1000
}

// TestAccNodePool_staticFleetGetsTheSixtyCheapest: a static pool's CreateFleet (seen through the
// stub) carries exactly the 60 cheapest eligible types of each zone, with their prices as
// priorities and the lowest-price strategy, as Karpenter's CreateFleet does.
func TestAccNodePool_staticFleetGetsTheSixtyCheapest(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	pool := acctest.RandomName("cheap")
	discoveryNetwork(t, cluster)
	ctx := context.Background()
	od := map[string]float64{}
	p := ec2.NewDescribeInstanceTypesPaginator(acctest.EC2(t), &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(100)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.InstanceTypes {
			od[string(it.InstanceType)] = seededPrice(string(it.InstanceType))
		}
	}
	if len(od) < 200 {
		t.Fatalf("the emulator lists %d instance types; the test needs a broad catalog", len(od))
	}
	stub := acctest.NewPricingStub(t)
	stub.SetOnDemand(acctest.Region(), od)

	cfg := strings.Replace(staticConfig(cluster, pool, 1), providerConfigEC2(cluster, awsLikeEC2().URL()), withPricingStub(cluster, stub), 1)
	// Broad requirements: generic (no GPU, no metal) x86 types of three categories, on demand.
	cfg = strings.Replace(cfg, `requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge"] }]`,
		`requirements = [
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "karpenter.k8s.aws/instance-hypervisor", operator = "In", values = ["nitro"] },
      { key = "karpenter.k8s.aws/instance-gpu-count", operator = "DoesNotExist" },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]`, 1)
	cfg = withDetails(strings.Replace(cfg, `  replicas   = 1`, "  replicas   = 1", 1))

	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				expectInstances(t, cluster, pool, 1),
				func(s *terraform.State) error {
					a, err := poolAttrs(s, nodePoolRes)
					if err != nil {
						return err
					}
					eligible, _ := strconv.Atoi(a["instance_types.#"])
					if eligible <= launchplan.MaxInstanceTypes {
						return fmt.Errorf("%d eligible types: the test needs more than %d", eligible, launchplan.MaxInstanceTypes)
					}
					// The 60 cheapest eligible types, by the seeded prices, ties by name.
					names := make([]string, eligible)
					for i := range names {
						names[i] = a[fmt.Sprintf("instance_types.%d", i)]
					}
					sort.SliceStable(names, func(i, j int) bool {
						if od[names[i]] != od[names[j]] {
							return od[names[i]] < od[names[j]]
						}
						return names[i] < names[j]
					})
					want := names[:launchplan.MaxInstanceTypes]
					reqs := stub.CreateFleetRequests()
					if len(reqs) != 1 {
						return fmt.Errorf("%d CreateFleet requests, want 1", len(reqs))
					}
					form := reqs[0]
					if got := form.Get("OnDemandOptions.AllocationStrategy"); got != "lowest-price" {
						return fmt.Errorf("on-demand allocation strategy %q, want lowest-price", got)
					}
					var got []string
					for c := 1; form.Has(fmt.Sprintf("LaunchTemplateConfigs.%d.LaunchTemplateSpecification.LaunchTemplateId", c)); c++ {
						for o := 1; ; o++ {
							k := fmt.Sprintf("LaunchTemplateConfigs.%d.Overrides.%d.", c, o)
							if !form.Has(k + "InstanceType") {
								break
							}
							typ := form.Get(k + "InstanceType")
							prio, _ := strconv.ParseFloat(form.Get(k+"Priority"), 64)
							if math.Abs(prio-od[typ]) > 1e-9 {
								return fmt.Errorf("override %s priority %v, want its price %v", typ, prio, od[typ])
							}
							got = append(got, typ)
						}
					}
					slices.Sort(got)
					sorted := slices.Sorted(slices.Values(want))
					if !slices.Equal(got, sorted) {
						return fmt.Errorf("CreateFleet overrides (%d):\n%v\nwant the 60 cheapest:\n%v", len(got), got, sorted)
					}
					return nil
				},
			),
		}},
	})
}

// TestAccNodePool_workloadFit: a workload's fit in a /24 at plan: one that fits, one whose IPs do
// not, and the same one stopped by a cpu limit, each with its binding constraint named.
func TestAccNodePool_workloadFit(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cluster := acctest.RandomName("cluster")
	n := discoveryNetwork(t, cluster)
	a := n.Subnets[0] // a /24: 251 free addresses
	class := fmt.Sprintf("  subnet_selector_terms = [{ id = %q }]\n  security_group_selector_terms = [{ id = %q }]\n", a.ID, n.SecurityGroups[0].ID)
	pool := func(cpu string) string {
		return fmt.Sprintf(`
  template = {
    requirements = [
      { key = "node.kubernetes.io/instance-type", operator = "In", values = ["c5.xlarge", "m5.large"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
  limits = { cpu = %q }
  workloads = {
    web   = { cpu = "250m", memory = "256Mi", replicas = 20 }
    batch = { cpu = "50m", memory = "64Mi", replicas = 1500 }
  }
`, cpu)
	}
	roomy := poolConfig(cluster, class, pool("1000"))
	got := planWarnings(t, roomy)
	wantWarning(t, got, launchplan.SummaryWorkloadDoesNotFit, `workloads["batch"]`, "IPs in zone "+a.Zone, "1,500 pods of 50m/64Mi")
	if d := distinct(got[launchplan.SummaryWorkloadDoesNotFit]); len(d) != 1 {
		t.Errorf("does-not-fit warnings %v, want batch's alone", d)
	}
	fit := func(name string) tfjsonpath.Path { return tfjsonpath.New("workload_fit").AtMapKey(name) }
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: factories(nil),
		CheckDestroy:             checkClusterClean(t, cluster),
		Steps: []resource.TestStep{
			{
				Config: roomy,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, fit("web").AtMapKey("fits"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("fits"), knownvalue.Bool(false)),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("binding"),
						knownvalue.StringRegexp(regexp.MustCompile(`^IPs in zone `+regexp.QuoteMeta(a.Zone)+`: needs [0-9,]+, 251 free$`))),
					// c5.xlarge: 56 of its 58 pods are batch's (two daemonsets) at 0.17 USD/h beats m5.large's 27 at
					// 0.096: 1500 pods take 27 nodes.
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("instance_type"), knownvalue.StringExact("c5.xlarge")),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("pods_per_node"), knownvalue.Int64Exact(56)),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("bound_by"), knownvalue.StringExact("max pods")),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("nodes"), knownvalue.Int64Exact(27)),
				}},
				Check: resource.TestMatchResourceAttr(nodePoolRes, "workload_fit.web.summary", regexp.MustCompile(`^20 pods of 250m/256Mi → `)),
			},
			{
				// A cpu limit of 10 allows two c5.xlarge: web's two nodes fit, batch's 27 do not, and the
				// limit is what binds now.
				Config: poolConfig(cluster, class, pool("10")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(nodePoolRes, fit("web").AtMapKey("fits"), knownvalue.Bool(true)),
					plancheck.ExpectKnownValue(nodePoolRes, fit("batch").AtMapKey("binding"),
						knownvalue.StringExact("limits: cpu 10 allows 2 nodes of c5.xlarge, 27 needed")),
				}},
			},
		},
	})
}
