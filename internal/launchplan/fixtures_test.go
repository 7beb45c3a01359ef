package launchplan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// Hand-written instance types with the networking values EC2 reports for them.

const (
	zoneA = "us-west-2a"
	zoneB = "us-west-2b"
	zoneC = "us-west-2c"
)

var allZones = []string{zoneA, zoneB, zoneC}

func cards(n, enis int) []catalog.NetworkCard {
	out := make([]catalog.NetworkCard, n)
	for i := range out {
		out[i] = catalog.NetworkCard{Index: i, MaxENIs: enis}
	}
	return out
}

func itype(name string, vcpus, mib int, arch, hyper string, ncards, enisPerCard, ipv4 int) catalog.InstanceType {
	return catalog.InstanceType{
		Name: name, VCPUs: vcpus, MemoryMiB: mib, Architectures: []string{arch}, Hypervisor: hyper,
		SupportsHVM: true, CurrentGeneration: true, UsageClasses: []string{"on-demand", "spot"},
		MaxENIs: ncards * enisPerCard, NetworkCards: cards(ncards, enisPerCard), IPv4PerENI: ipv4, IPv6PerENI: ipv4,
		ENASupport: "required", Zones: append([]string(nil), allZones...),
	}
}

func m5Large() catalog.InstanceType { return itype("m5.large", 2, 8192, "x86_64", "nitro", 1, 3, 10) }
func m5XLarge() catalog.InstanceType {
	return itype("m5.xlarge", 4, 16384, "x86_64", "nitro", 1, 4, 15)
}
func m4Large() catalog.InstanceType { return itype("m4.large", 2, 8192, "x86_64", "xen", 1, 2, 10) }
func t3Micro() catalog.InstanceType { return itype("t3.micro", 2, 1024, "x86_64", "nitro", 1, 2, 2) }

func c7gLarge() catalog.InstanceType {
	t := itype("c7g.large", 2, 4096, "arm64", "nitro", 1, 3, 10)
	t.Zones = []string{zoneA, zoneB}
	return t
}

func c5n18XLarge() catalog.InstanceType {
	t := itype("c5n.18xlarge", 72, 196608, "x86_64", "nitro", 1, 15, 50)
	t.EFASupported, t.MaxEFAInterfaces = true, 1
	return t
}

func p548XLarge() catalog.InstanceType {
	t := itype("p5.48xlarge", 192, 2097152, "x86_64", "nitro", 32, 2, 50)
	t.EFASupported, t.MaxEFAInterfaces = true, 32
	t.UsageClasses = []string{"capacity-block", "on-demand", "spot"}
	return t
}

func fixtureCatalog() *catalog.Catalog {
	return catalog.New([]catalog.InstanceType{
		m5Large(), m5XLarge(), m4Large(), t3Micro(), c7gLarge(), c5n18XLarge(), p548XLarge(),
	})
}

// syntheticCatalog has n nitro x86 types across three zones, with up to 385 distinct network
// descriptions (vCPUs x ENIs x IPv4 per ENI), more varied than a real region's catalog.
func syntheticCatalog(n int) *catalog.Catalog {
	types := make([]catalog.InstanceType, n)
	for i := range types {
		vcpus := 2 << (i % 7)
		t := itype(fmt.Sprintf("x%d.s%d", i/7+1, i%7), vcpus, vcpus*4096+i, "x86_64", "nitro", 1, 2+i%5, 4+3*(i%11))
		if i%3 == 0 {
			t.Zones = []string{zoneA, zoneB}
		}
		types[i] = t
	}
	return catalog.New(types)
}

func subnets() []Subnet {
	return []Subnet{
		{ID: "subnet-a1", Zone: zoneA, ZoneID: "usw2-az1", AvailableIPs: 4000},
		{ID: "subnet-b1", Zone: zoneB, ZoneID: "usw2-az2", AvailableIPs: 4000},
		{ID: "subnet-c1", Zone: zoneC, ZoneID: "usw2-az3", AvailableIPs: 4000},
	}
}

// demoBootstrap are cluster facts as terraform-aws-eks outputs them.
var demoBootstrap = Bootstrap{Endpoint: "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
	CABundle: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=", ServiceCIDR: "10.100.0.0/16"}

func baseInput() Input {
	return Input{
		PoolName:    "general",
		ClusterName: "demo",
		Region:      "us-west-2",
		Class: Class{
			Name:             "default",
			AMIFamily:        capacity.FamilyAL2023,
			Subnets:          subnets(),
			SecurityGroupIDs: []string{"sg-1", "sg-2"},
			MetadataOptions:  MetadataOptions{HTTPEndpoint: "enabled", HTTPProtocolIPv6: "disabled", HTTPTokens: "required", HTTPPutResponseHopLimit: 1},
			InstanceProfile:  "demo-node",
			Tags:             map[string]string{"team": "platform"},
		},
		Catalog: fixtureCatalog(),
		Prices:  fixturePrices(),
	}
}

// fixturePrices are hourly prices for the fixture and synthetic catalogs, in an order that
// size order does not give: m5.large (2 vCPUs, 8 GiB) is cheaper than m4.large (same size),
// and the synthetic x*.s* types cost more per vCPU the higher their family number. Spot is
// 30 % of on-demand in zone A, 40 % in B, 50 % in C.
func fixturePrices() *pricing.Prices {
	od := map[string]float64{
		"t3.micro": 0.0104, "c7g.large": 0.0725, "m5.large": 0.096, "m4.large": 0.10, "m5.xlarge": 0.192,
		"c5n.18xlarge": 3.888, "p5.48xlarge": 55.04, "g5.xlarge": 1.006,
	}
	for i := range 1000 {
		vcpus := 2 << (i % 7)
		od[fmt.Sprintf("x%d.s%d", i/7+1, i%7)] = float64(vcpus) * (0.02 + 0.001*float64(i/7))
	}
	spot := map[string]map[string]float64{}
	for name, v := range od {
		spot[name] = map[string]float64{zoneA: v * 0.3, zoneB: v * 0.4, zoneC: v * 0.5}
	}
	return &pricing.Prices{Region: "us-west-2", OnDemand: od, Spot: spot,
		OnDemandSource: pricing.SourcePricingAPI, SpotSource: pricing.SourceSpotAPI}
}

func req(key string, op requirements.Operator, values ...string) requirements.Requirement {
	return requirements.Requirement{Key: key, Operator: op, Values: values}
}

func onlyTypes(names ...string) requirements.Requirement {
	return req(requirements.LabelInstanceType, requirements.OpIn, names...)
}

// mustBuild fails the test on errors.
func mustBuild(t testing.TB, in Input) Plan {
	t.Helper()
	plan, errs := Build(in)
	if len(errs) > 0 {
		t.Fatalf("Build errors: %v", errs)
	}
	return plan
}

func typeNames(p Plan) []string {
	var out []string
	for _, t := range p.InstanceTypes {
		out = append(out, t.Name)
	}
	return out
}

func findType(t *testing.T, p Plan, name string) TypePlan {
	t.Helper()
	for _, tp := range p.InstanceTypes {
		if tp.Name == name {
			return tp
		}
	}
	t.Fatalf("type %s not in plan %v", name, typeNames(p))
	return TypePlan{}
}

func findTemplate(t *testing.T, p Plan, name string) LaunchTemplate {
	t.Helper()
	for _, lt := range p.LaunchTemplates {
		if lt.Name == name {
			return lt
		}
	}
	t.Fatalf("launch template %s not in plan", name)
	return LaunchTemplate{}
}

// hasProblem reports whether some problem is at path and contains every fragment.
func hasProblem(ps []Problem, path string, fragments ...string) bool {
	for _, p := range ps {
		if p.Path.String() != path {
			continue
		}
		ok := true
		for _, f := range fragments {
			if !strings.Contains(p.Message, f) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func intPtr(v int) *int    { return &v }
func boolPtr(v bool) *bool { return &v }
