package launchplan

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// These tests translate Karpenter's own tests of how it orders and truncates a NodeClaim's
// instance types into this planner's terms. Each subtest carries the name of the upstream case
// it translates and the file it comes from:
//
//   - core: kubernetes-sigs/karpenter, pkg/controllers/provisioning/scheduling/instance_selection_test.go
//     ("selection") and pkg/controllers/provisioning/suite_test.go ("provisioning"), exercising
//     InstanceTypes.OrderByPrice, Truncate and SatisfiesMinValues in pkg/cloudprovider/types.go;
//   - aws: aws/karpenter-provider-aws, pkg/providers/instance/suite_test.go, with the offering
//     prices of pkg/providers/pricing and pkg/providers/instancetype/offering.
//
// Upstream schedules pods; a pool plan has none, so the pod-side variants ("pod arch = ...")
// become pool requirements, and "the node launched" becomes the first type of the plan.

// Small instance types for hand-built catalogs; the network values only need to be valid.
func koType(name string, vcpus, mib int, arch string) catalog.InstanceType {
	return itype(name, vcpus, mib, arch, "nitro", 1, 3, 10)
}

func koT3Large() catalog.InstanceType  { return koType("t3.large", 2, 8192, "x86_64") }
func koC5Large() catalog.InstanceType  { return koType("c5.large", 2, 4096, "x86_64") }
func koM6gLarge() catalog.InstanceType { return koType("m6g.large", 2, 8192, "arm64") }

// koEverywhere is one spot price in each of the fixture's three zones.
func koEverywhere(v float64) map[string]float64 {
	return map[string]float64{zoneA: v, zoneB: v, zoneC: v}
}

func koZonal(a, b, c float64) map[string]float64 {
	return map[string]float64{zoneA: a, zoneB: b, zoneC: c}
}

func koPrices(od map[string]float64, spot map[string]map[string]float64) *pricing.Prices {
	return &pricing.Prices{Region: "us-west-2", OnDemand: od, Spot: spot,
		OnDemandSource: pricing.SourcePricingAPI, SpotSource: pricing.SourceSpotAPI}
}

// koInput is the base input with its own catalog, prices and requirements.
// koInput is the suites' NodePool: like Karpenter's instance-type suite's, it requires
// on-demand capacity unless the case names capacity types itself.
func koInput(types []catalog.InstanceType, prices *pricing.Prices, reqs ...requirements.Requirement) Input {
	in := baseInput()
	in.Catalog = catalog.New(types)
	in.Prices = prices
	if !slices.ContainsFunc(reqs, func(r requirements.Requirement) bool { return r.Key == requirements.LabelCapacityType }) {
		reqs = append(reqs, koCapacity(requirements.CapacityTypeOnDemand))
	}
	in.Requirements = reqs
	return in
}

func koMin(r requirements.Requirement, n int) requirements.Requirement {
	r.MinValues = &n
	return r
}

func koCapacity(cts ...string) requirements.Requirement {
	return req(requirements.LabelCapacityType, requirements.OpIn, cts...)
}

func koZones(op requirements.Operator, zones ...string) requirements.Requirement {
	return req(requirements.LabelZone, op, zones...)
}

// koKeys writes each type's sort key as "name price capacity-type", with the zone for spot
// (on-demand prices are regional, so their zone is only the first of a tie).
func koKeys(p Plan) []string {
	out := make([]string, len(p.InstanceTypes))
	for i, t := range p.InstanceTypes {
		out[i] = t.Name + " " + FormatPrice(t.Price) + " " + t.PriceCapacityType
		if t.PriceCapacityType == pricing.Spot {
			out[i] += " " + t.PriceZone
		}
	}
	return out
}

// koOptions writes each CreateFleet override as "capacity-type type zone price".
func koOptions(p Plan) map[string]string {
	out := map[string]string{}
	for _, o := range p.LaunchPlan {
		out[o.CapacityType+" "+o.InstanceType+" "+o.Zone] = FormatPrice(o.Price)
	}
	return out
}

// koLaunched are the distinct instance types of the launch plan.
func koLaunched(p Plan) map[string]bool {
	out := map[string]bool{}
	for _, o := range p.LaunchPlan {
		out[o.InstanceType] = true
	}
	return out
}

// koFleet is n two-vCPU types named n01.large, n02.large, ... offered in zones, each priced by
// price(i) on demand.
func koFleet(n int, zones []string, price func(i int) float64) ([]catalog.InstanceType, map[string]float64) {
	types := make([]catalog.InstanceType, n)
	od := make(map[string]float64, n)
	for i := range types {
		t := koType(fmt.Sprintf("n%02d.large", i+1), 2, 8192, "x86_64")
		t.Zones = append([]string(nil), zones...)
		types[i] = t
		od[t.Name] = price(i)
	}
	return types, od
}

// The five-type catalog of the ordering tests, with us-east-1's on-demand prices (m6g.large is
// the cheapest, though size and name order put it elsewhere) and spot prices that differ by zone.
func koFiveTypes() []catalog.InstanceType {
	return []catalog.InstanceType{koT3Large(), koC5Large(), m5Large(), koM6gLarge(), m5XLarge()}
}

func koFivePrices() *pricing.Prices {
	return koPrices(
		map[string]float64{"m6g.large": 0.077, "t3.large": 0.0832, "c5.large": 0.085, "m5.large": 0.096, "m5.xlarge": 0.192},
		map[string]map[string]float64{
			"c5.large":  koZonal(0.020, 0.050, 0.060),
			"m5.large":  koZonal(0.045, 0.030, 0.035),
			"t3.large":  koZonal(0.040, 0.040, 0.025),
			"m6g.large": koZonal(0.050, 0.055, 0.060),
			"m5.xlarge": koZonal(0.080, 0.075, 0.090),
		})
}

// TestKarpenterCheapestInstances: the plan's first type is the one with the cheapest offering the
// pool's arch, zone and capacity-type requirements allow, and every override stays inside them.
// Upstream asserts the launched node's price equals the minimum; here the whole order is checked.
func TestKarpenterCheapestInstances(t *testing.T) {
	arch := requirements.LabelArch
	tests := []struct {
		name  string
		reqs  []requirements.Requirement
		want  []string // koKeys
		cts   []string // capacity types the overrides may use
		zones []string // zones the overrides may use
	}{
		{
			// Karpenter's default capacity type is on-demand; size order would start with c5.large.
			name:  "selection/should schedule on one of the cheapest instances",
			want:  []string{"m6g.large 0.077 on-demand", "t3.large 0.0832 on-demand", "c5.large 0.085 on-demand", "m5.large 0.096 on-demand", "m5.xlarge 0.192 on-demand"},
			cts:   []string{"on-demand"},
			zones: allZones,
		},
		{
			// The suite's node pool: spot and on-demand, arm64 and amd64. Every type's cheapest
			// offering is spot, each in a different zone.
			name: "selection/should schedule on one of the cheapest instances (suite node pool: spot and on-demand, arm64 and amd64)",
			reqs: []requirements.Requirement{koCapacity("spot", "on-demand"), req(arch, requirements.OpIn, "arm64", "amd64")},
			want: []string{"c5.large 0.02 spot us-west-2a", "t3.large 0.025 spot us-west-2c", "m5.large 0.03 spot us-west-2b",
				"m6g.large 0.05 spot us-west-2a", "m5.xlarge 0.075 spot us-west-2b"},
			cts:   []string{"spot", "on-demand"},
			zones: allZones,
		},
		{
			name:  "selection/should schedule on one of the cheapest instances (prov arch = amd64)",
			reqs:  []requirements.Requirement{req(arch, requirements.OpIn, "amd64")},
			want:  []string{"t3.large 0.0832 on-demand", "c5.large 0.085 on-demand", "m5.large 0.096 on-demand", "m5.xlarge 0.192 on-demand"},
			cts:   []string{"on-demand"},
			zones: allZones,
		},
		{
			name:  "selection/should schedule on one of the cheapest instances (prov arch = arm64)",
			reqs:  []requirements.Requirement{req(arch, requirements.OpIn, "arm64")},
			want:  []string{"m6g.large 0.077 on-demand"},
			cts:   []string{"on-demand"},
			zones: allZones,
		},
		{
			// Zone B alone: m5.large's zone B spot price is the cheapest; c5.large's 0.02 is in zone A.
			name: "selection/should schedule on one of the cheapest instances (prov zone = test-zone-2)",
			reqs: []requirements.Requirement{koCapacity("spot", "on-demand"), koZones(requirements.OpIn, zoneB)},
			want: []string{"m5.large 0.03 spot us-west-2b", "t3.large 0.04 spot us-west-2b", "c5.large 0.05 spot us-west-2b",
				"m6g.large 0.055 spot us-west-2b", "m5.xlarge 0.075 spot us-west-2b"},
			cts:   []string{"spot", "on-demand"},
			zones: []string{zoneB},
		},
		{
			name: "selection/should schedule on one of the cheapest instances (prov ct = spot)",
			reqs: []requirements.Requirement{koCapacity("spot")},
			want: []string{"c5.large 0.02 spot us-west-2a", "t3.large 0.025 spot us-west-2c", "m5.large 0.03 spot us-west-2b",
				"m6g.large 0.05 spot us-west-2a", "m5.xlarge 0.075 spot us-west-2b"},
			cts:   []string{"spot"},
			zones: allZones,
		},
		{
			name: "selection/should schedule on one of the cheapest instances (prov ct = ondemand, prov zone = test-zone-1)",
			reqs: []requirements.Requirement{koCapacity("on-demand"), koZones(requirements.OpIn, zoneA)},
			want: []string{"m6g.large 0.077 on-demand", "t3.large 0.0832 on-demand", "c5.large 0.085 on-demand", "m5.large 0.096 on-demand",
				"m5.xlarge 0.192 on-demand"},
			cts:   []string{"on-demand"},
			zones: []string{zoneA},
		},
		{
			name: "selection/should schedule on one of the cheapest instances (prov ct = spot, pod zone = test-zone-2)",
			reqs: []requirements.Requirement{koCapacity("spot"), koZones(requirements.OpIn, zoneB)},
			want: []string{"m5.large 0.03 spot us-west-2b", "t3.large 0.04 spot us-west-2b", "c5.large 0.05 spot us-west-2b",
				"m6g.large 0.055 spot us-west-2b", "m5.xlarge 0.075 spot us-west-2b"},
			cts:   []string{"spot"},
			zones: []string{zoneB},
		},
		{
			// c5.large is the cheapest type anywhere (0.02 in zone A), but zone A is excluded: it
			// sorts by its zone B price, behind t3.large's zone C price.
			name: "selection/should schedule on one of the cheapest instances (prov ct = spot, zone NotIn test-zone-1)",
			reqs: []requirements.Requirement{koCapacity("spot"), koZones(requirements.OpNotIn, zoneA)},
			want: []string{"t3.large 0.025 spot us-west-2c", "m5.large 0.03 spot us-west-2b", "c5.large 0.05 spot us-west-2b",
				"m6g.large 0.055 spot us-west-2b", "m5.xlarge 0.075 spot us-west-2b"},
			cts:   []string{"spot"},
			zones: []string{zoneB, zoneC},
		},
		{
			name:  "selection/should schedule on one of the cheapest instances (prov ct = ondemand/test-zone-1/arm64)",
			reqs:  []requirements.Requirement{koCapacity("on-demand"), koZones(requirements.OpIn, zoneA), req(arch, requirements.OpIn, "arm64")},
			want:  []string{"m6g.large 0.077 on-demand"},
			cts:   []string{"on-demand"},
			zones: []string{zoneA},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustBuild(t, koInput(koFiveTypes(), koFivePrices(), tc.reqs...))
			if got := koKeys(plan); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("order:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if len(plan.LaunchPlan) == 0 {
				t.Fatal("empty launch plan")
			}
			for _, o := range plan.LaunchPlan {
				if !slices.Contains(tc.cts, o.CapacityType) || !slices.Contains(tc.zones, o.Zone) {
					t.Errorf("override %s %s %s is outside capacity types %v and zones %v", o.CapacityType, o.InstanceType, o.Zone, tc.cts, tc.zones)
				}
			}
		})
	}
}

// TestKarpenterCapacityTypeDecidesPrice: only the capacity types the pool allows price a type, so
// a cheap spot offering orders a type first only when spot is allowed.
func TestKarpenterCapacityTypeDecidesPrice(t *testing.T) {
	// Upstream's two types: spot order and on-demand order disagree.
	spotOrder := func() *pricing.Prices {
		return koPrices(map[string]float64{"c5.large": 1.0, "m5.large": 1.3},
			map[string]map[string]float64{"c5.large": koZonal(0.21, 0.2, 0.22), "m5.large": koZonal(0.1, 0.11, 0.12)})
	}
	// A bigger type whose spot price is below a smaller type's.
	bigSpot := func() *pricing.Prices {
		return koPrices(map[string]float64{"m5.large": 0.096, "m5.xlarge": 0.192},
			map[string]map[string]float64{"m5.large": koZonal(0.07, 0.072, 0.075), "m5.xlarge": koZonal(0.055, 0.05, 0.06)})
	}
	bigSpotNoSmallSpot := func() *pricing.Prices {
		p := bigSpot()
		delete(p.Spot, "m5.large")
		return p
	}
	twoTypes := []catalog.InstanceType{koC5Large(), m5Large()}
	m5s := []catalog.InstanceType{m5Large(), m5XLarge()}
	tests := []struct {
		name    string
		types   []catalog.InstanceType
		prices  *pricing.Prices
		reqs    []requirements.Requirement
		want    []string // koKeys
		options map[string]string
	}{
		{
			name:   "selection/should schedule on cheaper on-demand instance even when spot price ordering would place other instance types first",
			types:  twoTypes,
			prices: spotOrder(),
			reqs:   []requirements.Requirement{koCapacity("on-demand")},
			want:   []string{"c5.large 1 on-demand", "m5.large 1.3 on-demand"},
		},
		{
			name:   "selection/should schedule on cheaper on-demand instance ... (spot and on-demand allowed: spot order wins)",
			types:  twoTypes,
			prices: spotOrder(),
			reqs:   []requirements.Requirement{koCapacity("on-demand", "spot")},
			want:   []string{"m5.large 0.1 spot us-west-2a", "c5.large 0.2 spot us-west-2b"},
		},
		{
			name:   "selection/should schedule on one of the cheapest instances (pod ct = spot)",
			types:  twoTypes,
			prices: spotOrder(),
			reqs:   []requirements.Requirement{koCapacity("spot")},
			want:   []string{"m5.large 0.1 spot us-west-2a", "c5.large 0.2 spot us-west-2b"},
		},
		{
			name:   "OrderByPrice: on-demand only keeps size order for m5",
			types:  m5s,
			prices: bigSpot(),
			want:   []string{"m5.large 0.096 on-demand", "m5.xlarge 0.192 on-demand"},
		},
		{
			name:   "OrderByPrice: a bigger type's cheaper spot offering puts it first when spot is allowed",
			types:  m5s,
			prices: bigSpot(),
			reqs:   []requirements.Requirement{koCapacity("spot", "on-demand")},
			want:   []string{"m5.xlarge 0.05 spot us-west-2b", "m5.large 0.07 spot us-west-2a"},
		},
		{
			// m5.large has no spot price: its spot offerings are unavailable, its on-demand ones
			// price it. Karpenter launches spot (m5.xlarge offers it), and CreateFleet carries
			// only spot overrides, so m5.large is not in them.
			name:   "OrderByPrice: a type without spot prices is priced by its on-demand offerings",
			types:  m5s,
			prices: bigSpotNoSmallSpot(),
			reqs:   []requirements.Requirement{koCapacity("spot", "on-demand")},
			want:   []string{"m5.xlarge 0.05 spot us-west-2b", "m5.large 0.096 on-demand"},
			options: map[string]string{
				"spot m5.xlarge us-west-2a": "0.055", "spot m5.xlarge us-west-2b": "0.05", "spot m5.xlarge us-west-2c": "0.06",
			},
		},
		{
			// Karpenter prices a reservation at on-demand / 10,000,000, which would order it
			// first; the provider manages no reservations, so only on-demand prices count.
			name:   "offering: reserved requested without reservations orders by on-demand",
			types:  m5s,
			prices: bigSpot(),
			reqs:   []requirements.Requirement{koCapacity("reserved", "on-demand")},
			want:   []string{"m5.large 0.096 on-demand", "m5.xlarge 0.192 on-demand"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustBuild(t, koInput(tc.types, tc.prices, tc.reqs...))
			if got := koKeys(plan); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("order:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if tc.options != nil {
				if got := koOptions(plan); !reflect.DeepEqual(got, tc.options) {
					t.Errorf("overrides = %v, want %v", got, tc.options)
				}
			}
		})
	}

	// The reserved price itself, as Karpenter's reserved-capacity resolver sets it.
	if v, ok := bigSpot().Price("m5.large", pricing.Reserved, zoneA); !ok || v != 0.096/10_000_000 {
		t.Errorf("reserved m5.large = %v, %v; want 0.096 / 10,000,000", v, ok)
	}
}

// TestKarpenterOverridePrices: each CreateFleet override carries its own offering's price (the
// Priority Karpenter sets from the offering), not the type's cheapest; with spot allowed and
// offered, Karpenter launches spot and sends only spot overrides (getCapacityType).
func TestKarpenterOverridePrices(t *testing.T) {
	in := koInput([]catalog.InstanceType{koC5Large(), m5Large()}, koFivePrices(),
		koCapacity("spot", "on-demand"), koZones(requirements.OpIn, zoneB, zoneC))
	plan := mustBuild(t, in)
	want := map[string]string{
		"spot m5.large us-west-2b": "0.03", "spot m5.large us-west-2c": "0.035",
		"spot c5.large us-west-2b": "0.05", "spot c5.large us-west-2c": "0.06",
	}
	if got := koOptions(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("overrides = %v, want %v", got, want)
	}
	// The provider's own CreateFleet for a static pool offers both.
	in.Bootstrap, in.Replicas = demoBootstrap, intPtr(2)
	in.Class.AMIs = []nodeclass.AMI{{ID: "ami-x86", Architecture: "amd64"}}
	if got := koOptions(mustBuild(t, in)); len(got) != 8 || got["on-demand m5.large us-west-2b"] != "0.096" {
		t.Errorf("a static pool's overrides = %v, want spot and on-demand", got)
	}
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"m5.large", "c5.large"}) {
		t.Errorf("order = %v, want m5.large (spot 0.03 in zone B) before c5.large (0.05)", got)
	}
}

// TestKarpenterUnpricedOfferings: an offering without a price is unavailable (the AWS provider's
// offering resolver), so a type with no priced offering among the allowed zones and capacity
// types is not launched, and the plan names it.
func TestKarpenterUnpricedOfferings(t *testing.T) {
	base := func() *pricing.Prices {
		return koPrices(map[string]float64{"c5.large": 0.085, "m5.large": 0.096, "t3.large": 0.0832},
			map[string]map[string]float64{"c5.large": koEverywhere(0.035), "m5.large": koEverywhere(0.04), "t3.large": koEverywhere(0.03)})
	}
	types := []catalog.InstanceType{koC5Large(), m5Large(), koT3Large()}
	tests := []struct {
		name    string
		edit    func(p *pricing.Prices)
		reqs    []requirements.Requirement
		want    []string // type names
		dropped []string // fragments of the "dropped" warning; nil: none
		options map[string]string
	}{
		{
			name:    "spot pool, no spot price for c5.large",
			edit:    func(p *pricing.Prices) { delete(p.Spot, "c5.large") },
			reqs:    []requirements.Requirement{koCapacity("spot")},
			want:    []string{"t3.large", "m5.large"},
			dropped: []string{"dropped 1 instance type with no spot price in the pool's zones", "treats as unavailable", "(c5.large; prices from"},
		},
		{
			name:    "spot price only in an excluded zone",
			edit:    func(p *pricing.Prices) { p.Spot["c5.large"] = map[string]float64{zoneA: 0.001} },
			reqs:    []requirements.Requirement{koCapacity("spot"), koZones(requirements.OpIn, zoneB, zoneC)},
			want:    []string{"t3.large", "m5.large"},
			dropped: []string{"dropped 1 instance type with no spot price", "(c5.large;"},
		},
		{
			// The same price with zone A allowed: c5.large is first, and launches only there.
			name: "spot price in one allowed zone",
			edit: func(p *pricing.Prices) { p.Spot["c5.large"] = map[string]float64{zoneA: 0.001} },
			reqs: []requirements.Requirement{koCapacity("spot"), koZones(requirements.OpIn, zoneA, zoneB)},
			want: []string{"c5.large", "t3.large", "m5.large"},
			options: map[string]string{
				"spot c5.large us-west-2a": "0.001",
				"spot t3.large us-west-2a": "0.03", "spot t3.large us-west-2b": "0.03",
				"spot m5.large us-west-2a": "0.04", "spot m5.large us-west-2b": "0.04",
			},
		},
		{
			name:    "on-demand pool, no on-demand price for t3.large",
			edit:    func(p *pricing.Prices) { delete(p.OnDemand, "t3.large") },
			want:    []string{"c5.large", "m5.large"},
			dropped: []string{"dropped 1 instance type with no on-demand price", "(t3.large;"},
		},
		{
			name:    "spot and on-demand pool, no price at all for c5.large",
			edit:    func(p *pricing.Prices) { delete(p.OnDemand, "c5.large"); delete(p.Spot, "c5.large") },
			reqs:    []requirements.Requirement{koCapacity("on-demand", "spot")},
			want:    []string{"t3.large", "m5.large"},
			dropped: []string{"dropped 1 instance type with no spot or on-demand price", "(c5.large;"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			tc.edit(p)
			plan := mustBuild(t, koInput(types, p, tc.reqs...))
			if got := typeNames(plan); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("types = %v, want %v", got, tc.want)
			}
			if tc.dropped != nil && !hasProblem(plan.Warnings, "template.requirements", tc.dropped...) {
				t.Errorf("warnings = %v, want a dropped warning with %q", plan.Warnings, tc.dropped)
			}
			if tc.dropped == nil && hasSummary(plan.Warnings, SummaryTypesDropped) {
				t.Errorf("unexpected dropped warning: %v", plan.Warnings)
			}
			if tc.options != nil {
				if got := koOptions(plan); !reflect.DeepEqual(got, tc.options) {
					t.Errorf("overrides = %v, want %v", got, tc.options)
				}
			}
		})
	}

	t.Run("no type has a price", func(t *testing.T) {
		p := base()
		p.Spot = nil
		_, errs := Build(koInput(types, p, koCapacity("spot")))
		if !hasProblem(errs, "template.requirements", "3 instance types match the requirements but none can be launched",
			"3 instance types with no spot price", "c5.large, m5.large, t3.large") {
			t.Errorf("errors = %v", errs)
		}
	})
}

// TestKarpenterTiesByName: Karpenter's sort leaves equal prices in no particular order; the plan
// breaks the tie by name, which is neither size nor catalog order here.
func TestKarpenterTiesByName(t *testing.T) {
	prices := koPrices(map[string]float64{"t3.large": 0.1, "m5.xlarge": 0.1, "c5.large": 0.1, "m6g.large": 0.05}, nil)
	in := koInput([]catalog.InstanceType{koT3Large(), m5XLarge(), koC5Large(), koM6gLarge()}, prices)
	plan := mustBuild(t, in)
	want := []string{"m6g.large", "c5.large", "m5.xlarge", "t3.large"}
	if got := typeNames(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("types = %v, want %v", got, want)
	}
}

// TestKarpenterTruncateKeepsTheSixtyCheapest: of 100 eligible types, the 60 cheapest (not the 60
// smallest, nor the first 60 by name) form the launch plan, as Truncate(…, 60) keeps them.
func TestKarpenterTruncateKeepsTheSixtyCheapest(t *testing.T) {
	if MaxInstanceTypes != 60 {
		t.Fatalf("MaxInstanceTypes = %d, Karpenter's maxInstanceTypes is 60", MaxInstanceTypes)
	}
	in := baseInput()
	in.Catalog = syntheticCatalog(100)
	// Type i costs 0.01 × (200 − i): the later types are the cheaper ones.
	name := func(i int) string { return fmt.Sprintf("x%d.s%d", i/7+1, i%7) }
	od := map[string]float64{}
	for i := range 100 {
		od[name(i)] = 0.01 * float64(200-i)
	}
	in.Prices = koPrices(od, nil)
	plan := mustBuild(t, in)

	if len(plan.InstanceTypes) != 100 {
		t.Fatalf("%d eligible types, want 100", len(plan.InstanceTypes))
	}
	for _, c := range []struct {
		at         int
		name, cost string
	}{{0, "x15.s1", "1.01"}, {59, "x6.s5", "1.6"}, {60, "x6.s4", "1.61"}, {99, "x1.s0", "2"}} {
		if tp := plan.InstanceTypes[c.at]; tp.Name != c.name || FormatPrice(tp.Price) != c.cost {
			t.Errorf("type %d = %s at %s, want %s at %s", c.at, tp.Name, FormatPrice(tp.Price), c.name, c.cost)
		}
	}
	launched := koLaunched(plan)
	want := map[string]bool{}
	for i := 40; i < 100; i++ {
		want[name(i)] = true
	}
	if !reflect.DeepEqual(launched, want) {
		var extra, missing []string
		for n := range launched {
			if !want[n] {
				extra = append(extra, n)
			}
		}
		for n := range want {
			if !launched[n] {
				missing = append(missing, n)
			}
		}
		t.Errorf("launch plan has %d types; not among the 60 cheapest: %v; missing: %v", len(launched), extra, missing)
	}
	// Types 42, 45, …, 99 (20 of them) are offered in two zones, the other 40 in three.
	if len(plan.LaunchPlan) != 20*2+40*3 {
		t.Errorf("%d overrides, want %d", len(plan.LaunchPlan), 20*2+40*3)
	}
	for _, o := range plan.LaunchPlan {
		if o.Price != od[o.InstanceType] {
			t.Errorf("override %s %s: price %v, want the offering's %v", o.InstanceType, o.Zone, o.Price, od[o.InstanceType])
		}
	}
	if o := koOptions(plan); o["on-demand x15.s1 us-west-2a"] != "1.01" || o["on-demand x6.s5 us-west-2c"] != "1.6" {
		t.Errorf("overrides of x15.s1 and x6.s5: %q, %q", o["on-demand x15.s1 us-west-2a"], o["on-demand x6.s5 us-west-2c"])
	}
}

// TestKarpenterMinValuesAfterTruncation: min_values is checked on the 60 types Truncate keeps,
// not on every eligible type: Strict fails the plan at the requirement's min_values, BestEffort
// launches the 60 and warns.
func TestKarpenterMinValuesAfterTruncation(t *testing.T) {
	it := requirements.LabelInstanceType
	// 61 types in zones A and B; the most expensive, n61.large, is the one cut.
	fleet := func() ([]catalog.InstanceType, *pricing.Prices) {
		types, od := koFleet(61, []string{zoneA, zoneB}, func(i int) float64 { return 0.05 + 0.001*float64(i) })
		return types, koPrices(od, nil)
	}
	// The same, with n61.large offered in zone C too: the 61 offer three zones, the 60 cheapest two.
	zoneCut := func() ([]catalog.InstanceType, *pricing.Prices) {
		types, p := fleet()
		types[60].Zones = allZones
		return types, p
	}
	// 60 amd64 types and m6g.large (arm64) at a price that puts it last, or first.
	withArm := func(armPrice float64) func() ([]catalog.InstanceType, *pricing.Prices) {
		return func() ([]catalog.InstanceType, *pricing.Prices) {
			types, od := koFleet(60, allZones, func(i int) float64 { return 0.05 + 0.001*float64(i) })
			od["m6g.large"] = armPrice
			return append(types, koM6gLarge()), koPrices(od, nil)
		}
	}
	tests := []struct {
		name       string
		setup      func() ([]catalog.InstanceType, *pricing.Prices)
		reqs       []requirements.Requirement
		bestEffort bool
		path       string   // "" : no min_values finding
		frags      []string // of the error (Strict) or warning (BestEffort)
		first      string
		notLaunch  string // a type the launch plan must leave out
	}{
		{
			name:  "selection/schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement after truncation",
			setup: fleet,
			reqs:  []requirements.Requirement{req(requirements.LabelArch, requirements.OpIn, "amd64"), koMin(req(it, requirements.OpExists), 61)},
			path:  "template.requirements[1].min_values",
			frags: []string{"the 60 cheapest of 61 eligible instance types", "only 60 distinct values", `"` + it + `"`, "below min_values 61",
				"will not launch"},
		},
		{
			name:       "provisioning/should schedule even when minValues requirement is not met (BestEffort, after truncation)",
			setup:      fleet,
			reqs:       []requirements.Requirement{req(requirements.LabelArch, requirements.OpIn, "amd64"), koMin(req(it, requirements.OpExists), 61)},
			bestEffort: true,
			path:       "template.requirements[1].min_values",
			frags:      []string{"only 60 distinct values", "BestEffort", "launches them anyway"},
			first:      "n01.large",
			notLaunch:  "n61.large",
		},
		{
			name:      "selection/should schedule respecting the minValues from instance-type requirements (60 of 61 suffice)",
			setup:     fleet,
			reqs:      []requirements.Requirement{koMin(req(it, requirements.OpExists), 60)},
			first:     "n01.large",
			notLaunch: "n61.large",
		},
		{
			// Two operators on one key: the larger min_values (61) decides, at its own index.
			name:  "selection/should schedule and pick the max of minValues of InstanceTypes if multiple operators are used for the same requirement. (after truncation)",
			setup: fleet,
			reqs:  []requirements.Requirement{koMin(req(it, requirements.OpExists), 1), koMin(req(it, requirements.OpExists), 61)},
			path:  "template.requirements[1].min_values",
			frags: []string{"only 60 distinct values", "below min_values 61"},
		},
		{
			// The arm64 type is the most expensive: the 60 kept are all amd64.
			name:  "selection/should schedule and respect multiple requirement keys with minValues (arm64 type cut)",
			setup: withArm(9.99),
			reqs:  []requirements.Requirement{koMin(req(it, requirements.OpExists), 1), koMin(req(requirements.LabelArch, requirements.OpExists), 2)},
			path:  "template.requirements[1].min_values",
			frags: []string{"the 60 cheapest of 61", "only 1 distinct values", `"` + requirements.LabelArch + `"`, "below min_values 2"},
		},
		{
			name:      "selection/should schedule and respect multiple requirement keys with minValues",
			setup:     withArm(0.01),
			reqs:      []requirements.Requirement{koMin(req(it, requirements.OpExists), 1), koMin(req(requirements.LabelArch, requirements.OpExists), 2)},
			first:     "m6g.large",
			notLaunch: "n60.large",
		},
		{
			name:  "aws/should return an ICE error when instance type truncation fails minValues validation (zone, after truncation)",
			setup: zoneCut,
			reqs:  []requirements.Requirement{koMin(koZones(requirements.OpIn, allZones...), 3)},
			path:  "template.requirements[0].min_values",
			frags: []string{"the 60 cheapest of 61", "only 2 distinct values", `"` + requirements.LabelZone + `"`, "below min_values 3", "will not launch"},
		},
		{
			name:       "provisioning/should schedule even when zone minValues requirement is not met (BestEffort, after truncation)",
			setup:      zoneCut,
			reqs:       []requirements.Requirement{koMin(koZones(requirements.OpIn, allZones...), 3)},
			bestEffort: true,
			path:       "template.requirements[0].min_values",
			frags:      []string{"only 2 distinct values", `"` + requirements.LabelZone + `"`, "launches them anyway"},
			first:      "n01.large",
			notLaunch:  "n61.large",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			types, prices := tc.setup()
			in := koInput(types, prices, tc.reqs...)
			in.MinValuesBestEffort = tc.bestEffort
			plan, errs := Build(in)
			if tc.path != "" && !tc.bestEffort {
				if !hasProblem(errs, tc.path, tc.frags...) {
					t.Fatalf("errors = %v, want one at %s with %q", errs, tc.path, tc.frags)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if tc.path != "" {
				if !hasProblem(plan.Warnings, tc.path, tc.frags...) || !hasSummary(plan.Warnings, SummaryMinValuesAtRisk) {
					t.Errorf("warnings = %v, want one at %s with %q", plan.Warnings, tc.path, tc.frags)
				}
			} else if hasSummary(plan.Warnings, SummaryMinValuesAtRisk) {
				t.Errorf("min_values is met, yet: %v", plan.Warnings)
			}
			launched := koLaunched(plan)
			if len(launched) != MaxInstanceTypes || len(plan.InstanceTypes) != 61 {
				t.Errorf("%d launched of %d eligible, want 60 of 61", len(launched), len(plan.InstanceTypes))
			}
			if plan.InstanceTypes[0].Name != tc.first || launched[tc.notLaunch] || !launched[tc.first] {
				t.Errorf("first %s, %s launched: %v; want %s first and %s cut", plan.InstanceTypes[0].Name, tc.notLaunch,
					launched[tc.notLaunch], tc.first, tc.notLaunch)
			}
		})
	}
}

// TestKarpenterMinValuesStrict: the Strict policy fails a pool whose eligible types cannot meet a
// requirement's min_values at all, and passes one whose types can, whatever the operator.
func TestKarpenterMinValuesStrict(t *testing.T) {
	it := requirements.LabelInstanceType
	gen := requirements.LabelInstanceGeneration
	cpu := requirements.LabelInstanceCPU
	m52x := koType("m5.2xlarge", 8, 32768, "x86_64")
	generations := []catalog.InstanceType{m4Large(), m5Large(), koM6gLarge(), c7gLarge()}
	sizes := []catalog.InstanceType{m5Large(), m5XLarge(), m52x}
	prices := func() *pricing.Prices {
		return koPrices(map[string]float64{"m4.large": 0.10, "m5.large": 0.096, "m6g.large": 0.077, "c7g.large": 0.0725,
			"c5.large": 0.085, "m5.xlarge": 0.192, "m5.2xlarge": 0.384}, nil)
	}
	tenTypes, tenPrices := koFleet(10, allZones, func(i int) float64 { return 0.1 + 0.01*float64(i) })
	tests := []struct {
		name   string
		types  []catalog.InstanceType
		prices *pricing.Prices
		reqs   []requirements.Requirement
		path   string // "": succeeds
		frags  []string
		want   []string // type names on success
	}{
		{
			name:   "selection/schedule should fail if minimum number of InstanceTypes is not met as per the minValues in the requirement",
			types:  tenTypes,
			prices: koPrices(tenPrices, nil),
			reqs:   []requirements.Requirement{koMin(req(it, requirements.OpExists), 11)},
			path:   "template.requirements[0].min_values",
			frags:  []string{"at least 11", "only 10"},
		},
		{
			name:   "provisioning/should not schedule when minValues requirement is not met",
			types:  []catalog.InstanceType{koC5Large(), m5Large()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(onlyTypes("c5.large", "m5.large", "t3.large"), 3)},
			path:   "template.requirements[0].min_values",
			frags:  []string{`"` + it + `"`, "at least 3", "only 2"},
		},
		{
			name:   "provisioning/should not schedule when zone minValues requirement is not met",
			types:  []catalog.InstanceType{c7gLarge()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(koZones(requirements.OpIn, allZones...), 3)},
			path:   "template.requirements[0].min_values",
			frags:  []string{`"` + requirements.LabelZone + `"`, "at least 3", "only 2"},
		},
		{
			// Zones the class has no subnet in cannot count: three zones, min_values 4.
			name:   "aws/should return an ICE error when instance type truncation fails minValues validation",
			types:  []catalog.InstanceType{m5Large(), m5XLarge()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(koZones(requirements.OpExists), 4)},
			path:   "template.requirements[0].min_values",
			frags:  []string{`"` + requirements.LabelZone + `"`, "at least 4", "only 3"},
		},
		{
			name:   "selection/should schedule respecting the minValues from instance-type requirements",
			types:  []catalog.InstanceType{koC5Large(), m5Large()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(onlyTypes("c5.large", "m5.large"), 2)},
			want:   []string{"c5.large", "m5.large"},
		},
		{
			name:   "selection/should schedule and pick the max of minValues of InstanceTypes if multiple operators are used for the same requirement.",
			types:  []catalog.InstanceType{koC5Large(), m5Large()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(it, requirements.OpExists), 1), koMin(onlyTypes("c5.large", "m5.large"), 2)},
			want:   []string{"c5.large", "m5.large"},
		},
		{
			name:   "selection/should schedule and pick the max of minValues ... (the larger one unmet)",
			types:  []catalog.InstanceType{koC5Large(), m5XLarge()},
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(it, requirements.OpExists), 1), koMin(onlyTypes("c5.large", "m5.large"), 2)},
			path:   "template.requirements[1].min_values",
			frags:  []string{"at least 2", "only 1"},
		},
		{
			// Generations 4, 5, 6, 7: Gt 5 leaves 6 and 7.
			name:   "selection/should schedule respecting the minValues in Gt operator",
			types:  generations,
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(gen, requirements.OpGt, "5"), 2)},
			want:   []string{"c7g.large", "m6g.large"},
		},
		{
			name:   "selection/scheduler should fail if the minValues in Gt operator is not satisfied",
			types:  generations,
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(gen, requirements.OpGt, "6"), 2)},
			path:   "template.requirements[0].min_values",
			frags:  []string{`"` + gen + `"`, "at least 2", "only 1"},
		},
		{
			// 2, 4 and 8 vCPUs: Lt 8 leaves 2 and 4.
			name:   "selection/should schedule respecting the minValues in Lt operator",
			types:  sizes,
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(cpu, requirements.OpLt, "8"), 2)},
			want:   []string{"m5.large", "m5.xlarge"},
		},
		{
			name:   "selection/scheduler should fail if the minValues in Lt operator is not satisfied",
			types:  sizes,
			prices: prices(),
			reqs:   []requirements.Requirement{koMin(req(cpu, requirements.OpLt, "4"), 2)},
			path:   "template.requirements[0].min_values",
			frags:  []string{`"` + cpu + `"`, "at least 2", "only 1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, errs := Build(koInput(tc.types, tc.prices, tc.reqs...))
			if tc.path != "" {
				if !hasProblem(errs, tc.path, tc.frags...) {
					t.Fatalf("errors = %v, want one at %s with %q", errs, tc.path, tc.frags)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if got := typeNames(plan); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("types = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestKarpenterSpotPricedAsOnDemand: until Karpenter reads spot prices, a type's spot price in
// every zone is its on-demand price (the pricing provider's default spot price). The spot
// prices the Prices still hold are not used, and the plan says so when spot is allowed.
func TestKarpenterSpotPricedAsOnDemand(t *testing.T) {
	prices := func() *pricing.Prices {
		p := koPrices(map[string]float64{"t3.large": 0.0832, "c5.large": 0.085, "m5.large": 0.096},
			map[string]map[string]float64{"c5.large": {zoneA: 0.001}})
		p.SpotFromOnDemand, p.SpotSource, p.SpotError = true, "", "reading spot prices: UnauthorizedOperation"
		return p
	}
	types := []catalog.InstanceType{koC5Large(), m5Large(), koT3Large()}

	plan := mustBuild(t, koInput(types, prices(), koCapacity("spot")))
	want := []string{"t3.large 0.0832 spot us-west-2a", "c5.large 0.085 spot us-west-2a", "m5.large 0.096 spot us-west-2a"}
	if got := koKeys(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
	if o := koOptions(plan); o["spot c5.large us-west-2a"] != "0.085" || o["spot c5.large us-west-2c"] != "0.085" {
		t.Errorf("c5.large spot overrides: %v", o)
	}
	if !hasProblem(plan.Warnings, "", "spot offerings are priced as on-demand", "UnauthorizedOperation") ||
		countSummary(plan.Warnings, SummaryPriceFallback) != 1 {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	if plan.PriceSource != "AWS Pricing API (spot priced as on-demand)" {
		t.Errorf("price source %q", plan.PriceSource)
	}

	// An on-demand pool does not use spot prices: nothing to say.
	plan = mustBuild(t, koInput(types, prices()))
	if hasSummary(plan.Warnings, SummaryPriceFallback) {
		t.Errorf("on-demand pool: warnings = %v", plan.Warnings)
	}
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"t3.large", "c5.large", "m5.large"}) {
		t.Errorf("on-demand pool: types = %v", got)
	}
}

// TestKarpenterEmbeddedTable: without prices from AWS the plan orders by the on-demand table the
// Karpenter release ships (us-east-1's for a region it lacks), prices spot as on-demand, and
// says which release and date the prices come from.
func TestKarpenterEmbeddedTable(t *testing.T) {
	table := "Karpenter " + pricing.FallbackKarpenterVersion + "'s on-demand table of " + pricing.FallbackGenerated

	t.Run("Prices nil", func(t *testing.T) {
		in := baseInput()
		in.Prices = nil
		plan := mustBuild(t, in)
		want := []string{"t3.micro", "c7g.large", "m5.large", "m4.large", "m5.xlarge", "c5n.18xlarge", "p5.48xlarge"}
		if got := typeNames(plan); !reflect.DeepEqual(got, want) {
			t.Errorf("types = %v, want %v", got, want)
		}
		// us-west-2 is not in Karpenter's table: us-east-1's prices stand in.
		if m := findType(t, plan, "m5.large"); m.Price != 0.096 || m.PriceCapacityType != "on-demand" {
			t.Errorf("m5.large priced %v %s, want us-east-1's 0.096 on-demand", m.Price, m.PriceCapacityType)
		}
		if !hasProblem(plan.Warnings, "", table, "(us-east-1 prices)", "no prices were read for this plan") ||
			!hasSummary(plan.Warnings, SummaryPriceFallback) {
			t.Errorf("warnings = %v, want the embedded-table warning naming %s", plan.Warnings, table)
		}
		if plan.PriceSource != table+" (us-east-1 prices)" {
			t.Errorf("price source %q", plan.PriceSource)
		}
	})

	t.Run("pricing.Fallback, spot allowed", func(t *testing.T) {
		in := baseInput()
		in.Prices = pricing.Fallback("us-west-2", "the Pricing API did not answer")
		in.Requirements = []requirements.Requirement{koCapacity("spot"), onlyTypes("m5.large", "m4.large", "m5.xlarge")}
		plan := mustBuild(t, in)
		if got := koKeys(plan); !reflect.DeepEqual(got, []string{"m5.large 0.096 spot us-west-2a", "m4.large 0.1 spot us-west-2a",
			"m5.xlarge 0.192 spot us-west-2a"}) {
			t.Errorf("order = %v", got)
		}
		// One warning, the table's; not a second one about spot.
		if !hasProblem(plan.Warnings, "", table, "the Pricing API did not answer") || countSummary(plan.Warnings, SummaryPriceFallback) != 1 {
			t.Errorf("warnings = %v", plan.Warnings)
		}
	})

	t.Run("a region with its own table", func(t *testing.T) {
		in := baseInput()
		in.Region, in.Prices = "us-gov-west-1", nil
		in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large"), koCapacity("on-demand")}
		plan := mustBuild(t, in)
		// GovCloud's m4.large (0.126) is dearer than its m5.large (0.121).
		if got := koKeys(plan); !reflect.DeepEqual(got, []string{"m5.large 0.121 on-demand", "m4.large 0.126 on-demand"}) {
			t.Errorf("order = %v", got)
		}
		if !hasProblem(plan.Warnings, "", table, "(us-gov-west-1 prices)") {
			t.Errorf("warnings = %v", plan.Warnings)
		}
	})
}
