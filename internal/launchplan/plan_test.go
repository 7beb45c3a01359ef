package launchplan

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func TestEligibleTypesOrderAndCapacity(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{req(requirements.LabelCapacityType, requirements.OpIn, "on-demand")}
	plan := mustBuild(t, in)
	// Price order: m5.large (0.096) before m4.large (0.10), which size and name order put after it.
	want := []string{"t3.micro", "c7g.large", "m5.large", "m4.large", "m5.xlarge", "c5n.18xlarge", "p5.48xlarge"}
	if got := typeNames(plan); !reflect.DeepEqual(got, want) {
		t.Fatalf("types = %v, want %v (cheapest on-demand offering first)", got, want)
	}
	for _, tc := range []struct {
		name         string
		maxPods, ips int
		zones        []string
	}{
		{"t3.micro", 4, 4, allZones},
		{"m5.large", 29, 30, allZones},
		{"m5.xlarge", 58, 60, allZones},
		{"m4.large", 20, 20, allZones},
		{"c7g.large", 29, 30, []string{zoneA, zoneB}},
		{"c5n.18xlarge", 737, 750, allZones},
		{"p5.48xlarge", 100, 100, allZones},
	} {
		tp := findType(t, plan, tc.name)
		if tp.MaxPods != tc.maxPods || tp.VPCIPsAtMaxPods != tc.ips || !reflect.DeepEqual(tp.Zones, tc.zones) {
			t.Errorf("%s: max pods %d, IPs %d, zones %v; want %d, %d, %v", tc.name, tp.MaxPods, tp.VPCIPsAtMaxPods, tp.Zones,
				tc.maxPods, tc.ips, tc.zones)
		}
		if tp.LaunchTemplate == "" || !reflect.DeepEqual(tp.CapacityTypes, []string{"on-demand"}) {
			t.Errorf("%s: launch template %q, capacity types %v", tc.name, tp.LaunchTemplate, tp.CapacityTypes)
		}
	}
	if len(plan.Warnings) != 0 {
		t.Errorf("unexpected warnings: %v", plan.Warnings)
	}
}

func TestZones(t *testing.T) {
	tests := []struct {
		name      string
		reqs      []requirements.Requirement
		wantZones []string
		errPath   string
		errFrags  []string
	}{
		{name: "no zone requirement", wantZones: allZones},
		{name: "In intersects", reqs: []requirements.Requirement{req(requirements.LabelZone, requirements.OpIn, zoneA, zoneC)},
			wantZones: []string{zoneA, zoneC}},
		{name: "NotIn", reqs: []requirements.Requirement{req(requirements.LabelZone, requirements.OpNotIn, zoneB)},
			wantZones: []string{zoneA, zoneC}},
		{name: "zone id", reqs: []requirements.Requirement{req(requirements.LabelZoneID, requirements.OpIn, "usw2-az2")},
			wantZones: []string{zoneB}},
		{name: "zone without subnet",
			reqs: []requirements.Requirement{
				req(requirements.LabelArch, requirements.OpIn, "amd64"),
				req(requirements.LabelZone, requirements.OpIn, zoneA, "us-west-2d"),
			},
			errPath: "template.requirements[1].values", errFrags: []string{`"us-west-2d"`, "us-west-2a, us-west-2b, us-west-2c"}},
		{name: "zone id without subnet", reqs: []requirements.Requirement{req(requirements.LabelZoneID, requirements.OpIn, "usw2-az4")},
			errPath: "template.requirements[0].values", errFrags: []string{`"usw2-az4"`, "usw2-az1"}},
		{name: "no zone left", reqs: []requirements.Requirement{req(requirements.LabelZone, requirements.OpNotIn, allZones...)},
			errPath: "template.requirements", errFrags: []string{"allow none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput()
			in.Requirements = tc.reqs
			plan, errs := Build(in)
			if tc.errPath != "" {
				if !hasProblem(errs, tc.errPath, tc.errFrags...) {
					t.Fatalf("errors = %v, want one at %s with %v", errs, tc.errPath, tc.errFrags)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			var got []string
			for _, z := range plan.Zones {
				got = append(got, z.Zone)
			}
			if !reflect.DeepEqual(got, tc.wantZones) {
				t.Errorf("zones = %v, want %v", got, tc.wantZones)
			}
			for _, o := range plan.LaunchPlan {
				if !slices.Contains(tc.wantZones, o.Zone) {
					t.Errorf("option %+v outside the pool zones", o)
				}
			}
		})
	}
}

func TestSubnetChoice(t *testing.T) {
	in := baseInput()
	in.Class.Subnets = []Subnet{ // deliberately not in Karpenter's order
		{ID: "subnet-a3", Zone: zoneA, ZoneID: "usw2-az1", AvailableIPs: 50},
		{ID: "subnet-a2", Zone: zoneA, ZoneID: "usw2-az1", AvailableIPs: 100},
		{ID: "subnet-a1", Zone: zoneA, ZoneID: "usw2-az1", AvailableIPs: 100},
		{ID: "subnet-b5", Zone: zoneB, ZoneID: "usw2-az2", AvailableIPs: 10},
		{ID: "subnet-b9", Zone: zoneB, ZoneID: "usw2-az2", AvailableIPs: 300},
	}
	in.Class.CNI.CustomNetworking = true
	in.Class.PodSubnets = []PodSubnet{{Zone: zoneA, ID: "subnet-pa", AvailableIPs: 50}}
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	want := []ZonePlan{
		{Zone: zoneA, SubnetID: "subnet-a1", AvailableIPs: 100, PodSubnetID: "subnet-pa", PodSubnetAvailableIPs: 50},
		{Zone: zoneB, SubnetID: "subnet-b9", AvailableIPs: 300},
	}
	if !reflect.DeepEqual(plan.Zones, want) {
		t.Errorf("zones = %+v\nwant %+v", plan.Zones, want)
	}
	if !hasProblem(plan.Warnings, "", "no pod subnet in zone us-west-2b") {
		t.Errorf("warnings = %v, want the missing pod subnet", plan.Warnings)
	}
	for _, o := range plan.LaunchPlan {
		if (o.Zone == zoneA && o.SubnetID != "subnet-a1") || (o.Zone == zoneB && o.SubnetID != "subnet-b9") {
			t.Errorf("option %+v has the wrong subnet", o)
		}
	}
	// Custom networking: zone A is bounded by its pod subnet, zone B by its node subnet.
	tp := findType(t, plan, "m5.large")
	a, b := plan.Capacity[0], plan.Capacity[1]
	if a.IPBasis != IPBasisPodSubnet || a.NodesByIPs != 50/tp.PodSubnetIPsAtMaxPods || a.IPsPerNode != tp.PodSubnetIPsAtMaxPods {
		t.Errorf("zone A capacity %+v (type %+v)", a, tp)
	}
	if b.IPBasis != IPBasisNodeSubnet || b.NodesByIPs != 300/tp.VPCIPsAtMaxPods {
		t.Errorf("zone B capacity %+v", b)
	}
}

func TestCapacityTypes(t *testing.T) {
	ct := requirements.LabelCapacityType
	tests := []struct {
		name     string
		reqs     []requirements.Requirement
		want     []string // capacity types of m5.large
		warnPath string
		errPath  string
		// defaultWarning: the pool is told that spot goes first for want of a requirement.
		defaultWarning bool
	}{
		// Karpenter v1 sets no default: spot and on-demand, spot first, with a warning.
		{name: "no requirement: spot first", want: []string{"spot", "on-demand"}, defaultWarning: true},
		{name: "spot only", reqs: []requirements.Requirement{req(ct, requirements.OpIn, "spot")}, want: []string{"spot"}},
		{name: "both, spot first", reqs: []requirements.Requirement{req(ct, requirements.OpIn, "on-demand", "spot")},
			want: []string{"spot", "on-demand"}},
		{name: "NotIn spot", reqs: []requirements.Requirement{req(ct, requirements.OpNotIn, "spot")}, want: []string{"on-demand"}},
		{name: "Exists", reqs: []requirements.Requirement{req(ct, requirements.OpExists)}, want: []string{"spot", "on-demand"}},
		{name: "reserved ignored", reqs: []requirements.Requirement{
			req(requirements.LabelArch, requirements.OpIn, "amd64"), req(ct, requirements.OpIn, "reserved", "spot")},
			want: []string{"spot"}, warnPath: "template.requirements[1].values"},
		{name: "reserved only", reqs: []requirements.Requirement{req(ct, requirements.OpIn, "reserved")},
			errPath: "template.requirements[0].values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput()
			in.Requirements = tc.reqs
			plan, errs := Build(in)
			if tc.errPath != "" {
				if !hasProblem(errs, tc.errPath, "neither on-demand nor spot") {
					t.Fatalf("errors = %v, want one at %s", errs, tc.errPath)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			if got := findType(t, plan, "m5.large").CapacityTypes; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("capacity types = %v, want %v", got, tc.want)
			}
			if got := hasProblem(plan.Warnings, "template.requirements", "no karpenter.sh/capacity-type requirement", "AWSServiceRoleForEC2Spot",
				`values = ["on-demand"]`); got != tc.defaultWarning {
				t.Errorf("the default's warning given = %v; warnings %v", got, plan.Warnings)
			}
			if tc.warnPath != "" && !hasProblem(plan.Warnings, tc.warnPath, `"reserved" is not planned: node class "default" selects no capacity reservation`) {
				t.Errorf("warnings = %v, want the reserved warning at %s", plan.Warnings, tc.warnPath)
			}
			seen := map[string]bool{}
			for _, o := range plan.LaunchPlan {
				seen[o.CapacityType] = true
			}
			// Karpenter launches one capacity type, the first allowed (spot first).
			if len(seen) != 1 || !seen[tc.want[0]] {
				t.Errorf("options use capacity types %v, want %s only", seen, tc.want[0])
			}
		})
	}
}

// TestCapacityTypeOffering: a type not offered as the only allowed capacity type is dropped.
func TestCapacityTypeOffering(t *testing.T) {
	m := m5Large()
	m.UsageClasses = []string{"spot"}
	in := baseInput()
	in.Catalog = catalog.New([]catalog.InstanceType{m, m5XLarge()})
	in.Requirements = []requirements.Requirement{req(requirements.LabelCapacityType, requirements.OpIn, "on-demand")}
	plan := mustBuild(t, in)
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"m5.xlarge"}) {
		t.Errorf("types = %v, want m5.xlarge only", got)
	}
	if !hasProblem(plan.Warnings, "template.requirements", "dropped 1 instance type not offered as on-demand (m5.large)") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
}

func TestLaunchPlanOrder(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{
		onlyTypes("m5.xlarge", "m5.large", "c7g.large"),
		req(requirements.LabelCapacityType, requirements.OpIn, "on-demand", "spot"),
		req(requirements.LabelZone, requirements.OpIn, zoneA, zoneC),
	}
	plan := mustBuild(t, in)
	var got []string
	for _, o := range plan.LaunchPlan {
		got = append(got, o.CapacityType+" "+o.InstanceType+" "+o.Zone)
	}
	want := []string{
		"spot c7g.large us-west-2a", // c7g.large is offered in a and b only
		"spot m5.large us-west-2a", "spot m5.large us-west-2c",
		// m5.xlarge's spot price in c (0.096) is above the cheapest on-demand offering (c7g.large,
		// 0.0725): Karpenter's spot offering filter leaves it out; in a (0.0576) it stays.
		"spot m5.xlarge us-west-2a",
		// Karpenter launches spot when allowed and offered, and sends only spot overrides.
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("launch plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	o := plan.LaunchPlan[1]
	tp := findType(t, plan, "m5.large")
	if o.SubnetID != "subnet-a1" || o.MaxPods != 29 || o.VPCIPsAtMax != 30 || o.LaunchTemplate != tp.LaunchTemplate {
		t.Errorf("option %+v", o)
	}
}

func TestTruncation(t *testing.T) {
	in := baseInput()
	in.Catalog = syntheticCatalog(100)
	in.Requirements = []requirements.Requirement{req(requirements.LabelCapacityType, requirements.OpIn, "spot")}
	plan := mustBuild(t, in)
	if len(plan.InstanceTypes) != 100 {
		t.Fatalf("%d eligible types, want 100", len(plan.InstanceTypes))
	}
	launched := map[string]bool{}
	for _, o := range plan.LaunchPlan {
		launched[o.InstanceType] = true
	}
	if len(launched) != MaxInstanceTypes {
		t.Errorf("%d types in the launch plan, want %d", len(launched), MaxInstanceTypes)
	}
	for i, tp := range plan.InstanceTypes {
		if launched[tp.Name] != (i < MaxInstanceTypes) {
			t.Errorf("type %d (%s): launched = %v", i, tp.Name, launched[tp.Name])
		}
		if i > 0 {
			prev := plan.InstanceTypes[i-1]
			if prev.Price > tp.Price || (prev.Price == tp.Price && prev.Name > tp.Name) {
				t.Errorf("types %s (%v) and %s (%v) out of price order", prev.Name, prev.Price, tp.Name, tp.Price)
			}
		}
	}
	// The spot prices of the fixture are 30 % of on-demand in zone A: every type's key is its zone
	// A spot price, and the 60 kept are the 60 cheapest, not the 60 smallest.
	if first := plan.InstanceTypes[0]; first.PriceCapacityType != "spot" || first.PriceZone != zoneA {
		t.Errorf("first type %s priced as %s in %s, want spot in %s", first.Name, first.PriceCapacityType, first.PriceZone, zoneA)
	}
	smallest := 0
	for _, tp := range plan.InstanceTypes[:MaxInstanceTypes] {
		if tp.VCPUs == 2 {
			smallest++
		}
	}
	if smallest == 100/7+1 && plan.InstanceTypes[MaxInstanceTypes-1].VCPUs == 2 {
		t.Errorf("the cut looks like size order: %d two-vCPU types kept", smallest)
	}
	// The truncation is Karpenter's for a dynamic and a static pool alike: no finding.
	if hasSummary(plan.Warnings, SummaryMinValuesAtRisk) {
		t.Errorf("dynamic pool: warnings = %v", plan.Warnings)
	}
	in.Bootstrap, in.Replicas = demoBootstrap, intPtr(2)
	in.Class.AMIs = []nodeclass.AMI{{ID: "ami-x86", Architecture: "amd64"}, {ID: "ami-arm", Architecture: "arm64"}}
	static, errs := Build(in)
	if len(errs) > 0 {
		t.Fatalf("static pool: %v", errs)
	}
	for _, o := range static.LaunchPlan {
		if p, _ := in.Prices.Price(o.InstanceType, o.CapacityType, o.Zone); o.Price != p || p == 0 {
			t.Errorf("override %+v: price %v, want %v", o, o.Price, p)
		}
	}
	// Every eligible type still has a launch template.
	names := map[string]bool{}
	for _, lt := range plan.LaunchTemplates {
		for _, n := range lt.InstanceTypes {
			names[n] = true
		}
	}
	if len(names) != 100 {
		t.Errorf("%d types in launch templates, want 100", len(names))
	}
}

func TestEFAClass(t *testing.T) {
	in := baseInput()
	in.Class.EFA = true
	in.Class.IPPrefixCount = intPtr(2)
	plan := mustBuild(t, in)
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"c5n.18xlarge", "p5.48xlarge"}) {
		t.Fatalf("types = %v, want the EFA types", got)
	}
	if !hasProblem(plan.Warnings, "template.requirements", "dropped 5 instance types without EFA support", "c7g.large, m4.large, m5.large and 2 more") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	p5 := findTemplate(t, plan, findType(t, plan, "p5.48xlarge").LaunchTemplate)
	if len(p5.NetworkInterfaces) != 32 {
		t.Fatalf("p5.48xlarge: %d interfaces, want 32", len(p5.NetworkInterfaces))
	}
	for i, f := range p5.NetworkInterfaces {
		wantDevice := 1
		if i == 0 {
			wantDevice = 0
		}
		if f.NetworkCardIndex != i || f.DeviceIndex != wantDevice || f.InterfaceType != "efa" ||
			!reflect.DeepEqual(f.SecurityGroupIDs, []string{"sg-1", "sg-2"}) || f.IPv4PrefixCount == nil || *f.IPv4PrefixCount != 2 {
			t.Errorf("p5 interface %d = %+v", i, f)
		}
	}
	c5n := findTemplate(t, plan, findType(t, plan, "c5n.18xlarge").LaunchTemplate)
	if len(c5n.NetworkInterfaces) != 1 || c5n.NetworkInterfaces[0].InterfaceType != "efa" {
		t.Errorf("c5n.18xlarge interfaces = %+v, want one efa", c5n.NetworkInterfaces)
	}
	if findType(t, plan, "p5.48xlarge").EFAInterfaces != 32 || findType(t, plan, "c5n.18xlarge").EFAInterfaces != 1 {
		t.Errorf("EFA interfaces: %+v", plan.InstanceTypes)
	}
}

func TestEFAClassPublicIPWarning(t *testing.T) {
	in := baseInput()
	in.Class.EFA = true
	in.Class.AssociatePublicIPAddress = boolPtr(true)
	in.Requirements = []requirements.Requirement{onlyTypes("p5.48xlarge", "c5n.18xlarge")}
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, "", "associate_public_ip_address", "32 network interfaces") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	if hasProblem(plan.Warnings, "", "1 network interfaces") {
		t.Errorf("single-interface template warned: %v", plan.Warnings)
	}
}

func TestEFANoSurvivor(t *testing.T) {
	in := baseInput()
	in.Class.EFA = true
	in.Class.CNI.PrefixDelegation = true
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m4.large")}
	_, errs := Build(in)
	if !hasProblem(errs, "template.requirements", "2 instance types match", "2 instance types without EFA support") {
		t.Errorf("errors = %v", errs)
	}
}

func TestConfiguredInterfaces(t *testing.T) {
	in := baseInput()
	in.Class.NetworkInterfaces = []capacity.Interface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface"},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only"},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only"},
	}
	in.Class.IPPrefixCount = intPtr(1)
	in.Class.AssociatePublicIPAddress = boolPtr(false)
	plan := mustBuild(t, in)
	if got := typeNames(plan); !reflect.DeepEqual(got, []string{"p5.48xlarge"}) {
		t.Fatalf("types = %v, want p5.48xlarge (two cards and two EFAs)", got)
	}
	if !hasProblem(plan.Warnings, "template.requirements", "dropped 6 instance types that cannot carry", "network_interfaces") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	p5 := findType(t, plan, "p5.48xlarge")
	if p5.MaxPods != 51 || p5.EFAInterfaces != 2 {
		t.Errorf("p5: max pods %d, EFA %d; want 51 (one card-0 ENI is efa-only), 2", p5.MaxPods, p5.EFAInterfaces)
	}
	lt := findTemplate(t, plan, p5.LaunchTemplate)
	want := []Interface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface", SecurityGroupIDs: []string{"sg-1", "sg-2"},
			AssociatePublicIPAddress: boolPtr(false), IPv4PrefixCount: intPtr(1)},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: "efa-only", SecurityGroupIDs: []string{"sg-1", "sg-2"}},
		{NetworkCardIndex: 1, DeviceIndex: 0, InterfaceType: "efa-only", SecurityGroupIDs: []string{"sg-1", "sg-2"}},
	}
	if !reflect.DeepEqual(lt.NetworkInterfaces, want) {
		t.Errorf("interfaces = %+v\nwant %+v", lt.NetworkInterfaces, want)
	}
}

func TestDefaultInterface(t *testing.T) {
	in := baseInput()
	in.Class.AssociatePublicIPAddress = boolPtr(true)
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	want := []Interface{{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: "interface",
		SecurityGroupIDs: []string{"sg-1", "sg-2"}, AssociatePublicIPAddress: boolPtr(true)}}
	if got := plan.LaunchTemplates[0].NetworkInterfaces; !reflect.DeepEqual(got, want) {
		t.Errorf("interfaces = %+v, want %+v", got, want)
	}
}

func TestPrefixDelegation(t *testing.T) {
	in := baseInput()
	in.Class.CNI.PrefixDelegation = true
	plan := mustBuild(t, in)
	// m4.large (Xen) stays: the VPC CNI falls back to secondary IPs on it (20 pods), and says so.
	if !hasProblem(plan.Warnings, "node_class", "1 eligible instance type", "m4.large 20", "falls back to secondary IPs") ||
		!hasSummary(plan.Warnings, SummaryPrefixFallback) {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	for name, want := range map[string]int{"m5.large": 110, "t3.micro": 34, "c5n.18xlarge": 250, "m4.large": 20} {
		if got := findType(t, plan, name).MaxPods; got != want {
			t.Errorf("%s: max pods %d, want %d", name, got, want)
		}
	}
	if got := findType(t, plan, "m5.large").VPCIPsAtMaxPods; got != 113 {
		t.Errorf("m5.large IPs at max pods = %d, want 113 (7 prefixes + the ENI address)", got)
	}
}

func TestGrouping(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "c7g.large", "m5.xlarge")}
	plan := mustBuild(t, in)
	if len(plan.LaunchTemplates) != 2 {
		t.Fatalf("%d launch templates, want 2: %+v", len(plan.LaunchTemplates), plan.LaunchTemplates)
	}
	small, large := plan.LaunchTemplates[0], plan.LaunchTemplates[1]
	if small.MaxPods != 29 || !reflect.DeepEqual(small.InstanceTypes, []string{"c7g.large", "m5.large"}) {
		t.Errorf("first group %d pods %v", small.MaxPods, small.InstanceTypes)
	}
	if large.MaxPods != 58 || !reflect.DeepEqual(large.InstanceTypes, []string{"m5.xlarge"}) {
		t.Errorf("second group %d pods %v", large.MaxPods, large.InstanceTypes)
	}
	if small.Name == large.Name || !strings.HasPrefix(small.Name, "demo/general/") || len(small.Name) != len("demo/general/")+10 {
		t.Errorf("names %q, %q", small.Name, large.Name)
	}
	if !strings.Contains(small.UserData, "maxPods: 29") || !strings.Contains(large.UserData, "maxPods: 58") {
		t.Errorf("user data does not carry the group's max pods")
	}
	wantTags := map[string]string{"team": "platform", TagNodePool: "general", TagNodeClass: "default", TagCluster: "demo",
		TagManagedBy: "terraform-provider-karpenter"}
	if !reflect.DeepEqual(small.Tags, wantTags) {
		t.Errorf("tags = %v, want %v", small.Tags, wantTags)
	}
	if small.InstanceProfile != "demo-node" || small.ImageID != "" || small.MetadataOptions.HTTPTokens != "required" {
		t.Errorf("template %+v", small)
	}

	// Stable across runs; any content change renames.
	again := mustBuild(t, in)
	if again.LaunchTemplates[0].Name != small.Name || again.LaunchTemplates[1].Name != large.Name {
		t.Errorf("names changed across runs")
	}
	// Content changes keep the group's name (EC2 gets a new version of the same template);
	// identity changes (pool, cluster) rename it.
	changes := map[string]struct {
		change  func(*Input)
		renames bool
	}{
		"user data":      {func(in *Input) { in.Class.UserData = "#!/bin/bash\necho hi\n" }, false},
		"image":          {func(in *Input) { in.Class.AMIs = []nodeclass.AMI{{ID: "ami-123", Architecture: "amd64"}} }, false},
		"tags":           {func(in *Input) { in.Class.Tags = map[string]string{"team": "data"} }, false},
		"metadata":       {func(in *Input) { in.Class.MetadataOptions.HTTPPutResponseHopLimit = 2 }, false},
		"block devices":  {func(in *Input) { in.Class.BlockDevices = []BlockDevice{{DeviceName: "/dev/xvda", VolumeSizeGiB: 100}} }, false},
		"prefix count":   {func(in *Input) { in.Class.IPPrefixCount = intPtr(1) }, false},
		"security group": {func(in *Input) { in.Class.SecurityGroupIDs = []string{"sg-1"} }, false},
		"pool":           {func(in *Input) { in.PoolName = "other" }, true},
		"cluster":        {func(in *Input) { in.ClusterName = "other" }, true},
	}
	for what, c := range changes {
		in2 := baseInput()
		in2.Requirements = in.Requirements
		c.change(&in2)
		p2 := mustBuild(t, in2)
		if renamed := p2.LaunchTemplates[0].Name != small.Name; renamed != c.renames {
			t.Errorf("%s change: renamed = %v, want %v", what, renamed, c.renames)
		}
	}
	// Instance types are not part of the content: adding one to a group keeps its name.
	in3 := baseInput()
	in3.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m5.xlarge")}
	if p3 := mustBuild(t, in3); p3.LaunchTemplates[0].Name != small.Name {
		t.Errorf("group name changed with its member types")
	}
}

func TestTemplateNameWithoutCluster(t *testing.T) {
	in := baseInput()
	in.ClusterName = ""
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	lt := plan.LaunchTemplates[0]
	if !strings.HasPrefix(lt.Name, "karpenter/general/") {
		t.Errorf("name %q", lt.Name)
	}
	if _, ok := lt.Tags[TagCluster]; ok {
		t.Errorf("cluster tag without a cluster")
	}
	if !hasProblem(plan.Warnings, "", "no cluster name") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	in.PoolName = strings.Repeat("p", 200)
	if n := mustBuild(t, in).LaunchTemplates[0].Name; len(n) != 128 {
		t.Errorf("long name has %d characters, want 128", len(n))
	}
}

func TestBlockDeviceDefaults(t *testing.T) {
	gp3 := func(dev string, gib int) BlockDevice {
		return BlockDevice{DeviceName: dev, Encrypted: boolPtr(true), VolumeSizeGiB: gib, VolumeType: "gp3"}
	}
	for family, want := range map[string][]BlockDevice{
		capacity.FamilyAL2:          {gp3("/dev/xvda", 20)},
		capacity.FamilyAL2023:       {gp3("/dev/xvda", 20)},
		capacity.FamilyBottlerocket: {gp3("/dev/xvda", 4), gp3("/dev/xvdb", 20)},
		capacity.FamilyWindows2022:  {gp3("/dev/sda1", 50)},
		capacity.FamilyCustom:       nil,
	} {
		in := baseInput()
		in.Class.AMIFamily = family
		in.Class.UserData = "x"
		in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
		if got := mustBuild(t, in).LaunchTemplates[0].BlockDevices; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: block devices %+v, want %+v", family, got, want)
		}
	}
	in := baseInput()
	custom := []BlockDevice{{DeviceName: "/dev/xvda", RootVolume: true, VolumeSizeGiB: 80, VolumeType: "io2", IOPS: intPtr(3000)}}
	in.Class.BlockDevices = custom
	got := mustBuild(t, in).LaunchTemplates[0].BlockDevices
	if !reflect.DeepEqual(got, custom) || got[0].IOPS == custom[0].IOPS {
		t.Errorf("class block devices not copied: %+v", got)
	}
}

func TestWindows(t *testing.T) {
	in := baseInput()
	in.Class.AMIFamily = capacity.FamilyWindows2022
	plan := mustBuild(t, in)
	if slices.Contains(typeNames(plan), "c7g.large") {
		t.Errorf("arm64 type eligible for Windows")
	}
	if got := findType(t, plan, "m5.large").MaxPods; got != 110 {
		t.Errorf("Windows max pods %d, want 110", got)
	}
}

func TestIPWarning(t *testing.T) {
	tests := []struct {
		name     string
		free     int
		limits   map[string]string
		replicas *int
		wantPath string
	}{
		{name: "small subnet with prefix delegation", free: 59, limits: map[string]string{"nodes": "10"}, wantPath: "limits"},
		{name: "large subnet", free: 8000, limits: map[string]string{"nodes": "10"}},
		{name: "no limits", free: 59},
		{name: "cpu limit", free: 59, limits: map[string]string{"cpu": "8"}, wantPath: "limits"},
		{name: "replicas", free: 59, replicas: intPtr(3), wantPath: "replicas"},
		{name: "replicas fit", free: 8000, replicas: intPtr(3)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput()
			in.Class.CNI.PrefixDelegation = true
			in.Class.Subnets = []Subnet{{ID: "subnet-small", Zone: zoneA, AvailableIPs: tc.free}}
			in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
			in.Limits, in.Replicas = tc.limits, tc.replicas
			in.Class.AMIs = []nodeclass.AMI{amdImage, armImage}
			in.Bootstrap = demoBootstrap
			plan := mustBuild(t, in)
			if got := plan.Capacity[0].NodesByIPs; got != tc.free/113 {
				t.Errorf("nodes by IPs %d, want %d", got, tc.free/113)
			}
			warned := hasProblem(plan.Warnings, tc.wantPath, "a full m5.large node (110 max pods) takes 113 IPs of the node subnet, room for 0 in us-west-2a (59 free IPs)",
				"prefix delegation", "upper bound")
			if tc.wantPath == "replicas" && warned && !hasSummary(plan.Warnings, SummarySubnetsTooSmallFor) {
				t.Errorf("warnings = %v, want the replicas summary", plan.Warnings)
			}
			if tc.wantPath != "" && !warned {
				t.Errorf("warnings = %v, want the IP warning at %s", plan.Warnings, tc.wantPath)
			}
			for _, w := range plan.Warnings {
				if tc.wantPath == "" && (w.Path.String() == "limits" || w.Path.String() == "replicas") {
					t.Errorf("unexpected warning %v", w)
				}
			}
		})
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		limits   map[string]string
		want     int
		errPath  string
		zoneWant []int
	}{
		{limits: nil, want: -1},
		{limits: map[string]string{"nodes": "10"}, want: 10},
		{limits: map[string]string{"cpu": "1000"}, want: 500},      // / 2 vCPUs of m5.large
		{limits: map[string]string{"memory": "1000Gi"}, want: 125}, // 1024000 MiB / 8192
		{limits: map[string]string{"cpu": "1000", "memory": "1000Gi", "nodes": "10"}, want: 10},
		{limits: map[string]string{"cpu": "1000", "memory": "1000Gi"}, want: 125},
		{limits: map[string]string{"cpu": "1500m"}, want: 0},
		{limits: map[string]string{"nvidia.com/gpu": "8"}, want: -1},
		{limits: map[string]string{"cpu": "lots"}, errPath: `limits["cpu"]`},
		{limits: map[string]string{"memory": "-1Gi"}, errPath: `limits["memory"]`},
	}
	for _, tc := range tests {
		in := baseInput()
		in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m5.xlarge")}
		in.Limits = tc.limits
		plan, errs := Build(in)
		if tc.errPath != "" {
			if !hasProblem(errs, tc.errPath) {
				t.Errorf("%v: errors %v, want one at %s", tc.limits, errs, tc.errPath)
			}
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("%v: %v", tc.limits, errs)
		}
		if plan.NodesByLimits != tc.want {
			t.Errorf("%v: nodes by limits %d, want %d", tc.limits, plan.NodesByLimits, tc.want)
		}
	}
}

func TestNodesByIPsHungriest(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "m5.xlarge", "c7g.large")}
	plan := mustBuild(t, in)
	for _, z := range plan.Capacity {
		if z.HungriestType != "m5.xlarge" || z.IPsPerNode != 60 || z.MaxPods != 58 || z.NodesByIPs != 4000/60 {
			t.Errorf("zone capacity %+v", z)
		}
	}
	if plan.NodesByIPs != 3*(4000/60) {
		t.Errorf("pool nodes by IPs %d", plan.NodesByIPs)
	}
}

func TestMinValues(t *testing.T) {
	mv := func(r requirements.Requirement, n int) requirements.Requirement { r.MinValues = &n; return r }
	family := requirements.LabelInstanceFamily
	tests := []struct {
		name    string
		reqs    []requirements.Requirement
		pd, efa bool
		errPath string
		frags   []string
	}{
		{name: "satisfied", reqs: []requirements.Requirement{mv(req(family, requirements.OpIn, "m5", "t3"), 2)}},
		{name: "select shortfall",
			reqs:    []requirements.Requirement{req(requirements.LabelArch, requirements.OpIn, "amd64"), mv(req(family, requirements.OpIn, "m5", "t3", "zz"), 3)},
			errPath: "template.requirements[1].min_values", frags: []string{requirements.LabelInstanceFamily, "at least 3", "only 2"}},
		{name: "after network filters", efa: true,
			reqs:    []requirements.Requirement{mv(req(family, requirements.OpIn, "c5n", "m5"), 2)},
			errPath: "template.requirements[0].min_values", frags: []string{"only 1", "EFA"}},
		{name: "zones", reqs: []requirements.Requirement{onlyTypes("c7g.large"), mv(req(requirements.LabelZone, requirements.OpExists), 3)},
			errPath: "template.requirements[1].min_values", frags: []string{"only 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := baseInput()
			in.Requirements = tc.reqs
			in.Class.CNI.PrefixDelegation = tc.pd
			in.Class.EFA = tc.efa
			_, errs := Build(in)
			if tc.errPath == "" {
				if len(errs) > 0 {
					t.Fatalf("errors: %v", errs)
				}
				return
			}
			if !hasProblem(errs, tc.errPath, tc.frags...) {
				t.Errorf("errors = %v, want one at %s with %v", errs, tc.errPath, tc.frags)
			}
		})
	}
}

func TestNoMatch(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("z9.huge")}
	if _, errs := Build(in); !hasProblem(errs, "template.requirements", "no instance type", "matches the requirements") {
		t.Errorf("errors = %v", errs)
	}
	in = baseInput()
	in.Class.Subnets = nil
	if _, errs := Build(in); !hasProblem(errs, "", "has no subnets") {
		t.Errorf("errors = %v", errs)
	}
	in = baseInput()
	in.Class.CNI.ReservedENIs = -1
	if _, errs := Build(in); !hasProblem(errs, "", "reserved_enis") {
		t.Errorf("errors = %v", errs)
	}
	in = baseInput()
	in.Catalog = nil
	if _, errs := Build(in); len(errs) != 1 {
		t.Errorf("errors = %v", errs)
	}
}

func TestQuantity(t *testing.T) {
	tests := []struct {
		in   string
		per  int64
		want int
		bad  bool
	}{
		{in: "1000", per: 1, want: 1000},
		{in: "1.5", per: 1, want: 1},
		{in: "2500m", per: 1, want: 2},
		{in: "10k", per: 1, want: 10000},
		{in: "1M", per: 1000, want: 1000},
		{in: "2G", per: 1, want: 2000000000},
		{in: "1T", per: 1000000000000, want: 1},
		{in: "1Ki", per: 1, want: 1024},
		{in: "64Mi", per: bytesPerMiB, want: 64},
		{in: "1000Gi", per: 8192 * bytesPerMiB, want: 125},
		{in: "1Ti", per: bytesPerMiB, want: 1 << 20},
		{in: "1e3", per: 1, want: 1000},
		{in: " 7 ", per: 1, want: 7},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "Gi", bad: true},
		{in: "1/2", bad: true},
		{in: "0x10", bad: true},
		{in: "ten", bad: true},
	}
	for _, tc := range tests {
		q, err := parseQuantity(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := floorDiv(q, tc.per); got != tc.want {
			t.Errorf("%q / %d = %d, want %d", tc.in, tc.per, got, tc.want)
		}
	}
}

// TestTruncationMinValues: min_values is checked on the 60 cheapest types, as Karpenter's
// Truncate does: an error under the Strict policy (Karpenter's default), a warning under
// BestEffort.
func TestTruncationMinValues(t *testing.T) {
	in := baseInput()
	in.Catalog = syntheticCatalog(100) // 7 vCPU sizes; the 60 cheapest cover 5 of them
	r := req(requirements.LabelInstanceCPU, requirements.OpExists)
	r.MinValues = intPtr(7)
	in.Requirements = []requirements.Requirement{r}
	_, errs := Build(in)
	if !hasProblem(errs, "template.requirements[0].min_values", "60 cheapest of 100", "only 5 distinct values", requirements.LabelInstanceCPU,
		"BestEffort") {
		t.Errorf("errors = %v", errs)
	}
	in.MinValuesBestEffort = true
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, "template.requirements[0].min_values", "only 5 distinct values", "launches them anyway") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	r.MinValues = intPtr(5)
	in.Requirements, in.MinValuesBestEffort = []requirements.Requirement{r}, false
	if plan := mustBuild(t, in); hasSummary(plan.Warnings, SummaryMinValuesAtRisk) {
		t.Errorf("min_values 5 is met: %v", plan.Warnings)
	}
}

// TestCustomNetworkingNodeSubnetBound: a roomy pod subnet leaves the node subnet (one IP per
// node) as the bound.
func TestCustomNetworkingNodeSubnetBound(t *testing.T) {
	in := baseInput()
	in.Class.CNI.CustomNetworking = true
	in.Class.Subnets = []Subnet{{ID: "subnet-a", Zone: zoneA, AvailableIPs: 10}}
	in.Class.PodSubnets = []PodSubnet{{Zone: zoneA, ID: "subnet-pods", AvailableIPs: 60000}}
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")}
	plan := mustBuild(t, in)
	c := plan.Capacity[0]
	if c.IPBasis != IPBasisNodeSubnet || c.NodesByIPs != 10 || c.IPsPerNode != 1 || c.PodSubnetAvailableIPs != 60000 {
		t.Errorf("capacity %+v", c)
	}
	if tp := findType(t, plan, "m5.large"); tp.MaxPods != 20 || tp.PodSubnetIPsAtMaxPods != 20 {
		t.Errorf("m5.large under custom networking: %+v", tp)
	}
}

func hasSummary(ps []Problem, summary string) bool {
	for _, p := range ps {
		if p.Summary == summary {
			return true
		}
	}
	return false
}

// A fixed kubelet max_pods above what the ENIs address (110 on m5.large, which addresses 29
// without prefix delegation) gets its own finding with the numbers and the fix, while Karpenter
// and the kubelet agree (both take the fixed value), so the disagreement warning stays silent.
func TestMaxPodsAboveAddressable(t *testing.T) {
	in := baseInput()
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large", "c5n.18xlarge")}
	in.Class.CNI.MaxPods = intPtr(110)
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, pathNodeClass.String(), "kubelet max_pods 110 is above the pods the ENIs can address on 1 of 2",
		"m5.large 29", "Lower kubelet max_pods to 29", "prefix delegation") {
		t.Errorf("warnings = %v, want the unaddressable max pods finding", plan.Warnings)
	}
	if !hasSummary(plan.Warnings, SummaryMaxPodsUnaddressed) || hasSummary(plan.Warnings, SummaryMaxPodsDisagree) {
		t.Errorf("summaries of %v", plan.Warnings)
	}
	in.Class.CNI.MaxPods = intPtr(29) // what every type addresses: no finding
	if plan := mustBuild(t, in); hasSummary(plan.Warnings, SummaryMaxPodsUnaddressed) {
		t.Errorf("max_pods 29: warnings = %v", plan.Warnings)
	}
}

// A type the requirements name but the class's zones do not offer is named with the zones
// where it is offered: a warning while other types remain, the error when none does.
func TestTypesNotOfferedInThePoolsZones(t *testing.T) {
	in := baseInput()
	in.Class.Subnets = []Subnet{{ID: "subnet-c1", Zone: zoneC, ZoneID: "usw2-az3", AvailableIPs: 4000}}
	in.Requirements = []requirements.Requirement{onlyTypes("c7g.large", "m5.large")}
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, "template.requirements", "1 instance type(s) the requirements name are not offered in the pool's zones us-west-2c",
		"c7g.large (offered in us-west-2a, us-west-2b)") || !hasSummary(plan.Warnings, SummaryNotInZones) {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	in.Requirements = []requirements.Requirement{onlyTypes("c7g.large")}
	_, errs := Build(in)
	if !hasProblem(errs, "template.requirements", "not offered in the pool's zones us-west-2c", "c7g.large (offered in us-west-2a, us-west-2b)",
		"add subnets in those zones") {
		t.Errorf("errors = %v", errs)
	}
	in.Requirements = []requirements.Requirement{onlyTypes("m5.large")} // offered everywhere: no finding
	if plan := mustBuild(t, in); hasSummary(plan.Warnings, SummaryNotInZones) {
		t.Errorf("m5.large: warnings = %v", plan.Warnings)
	}
}

// An EFA class whose requirements match types by family, not by name: the EFA-capable types its
// zones miss are named with their zones, as a warning while other types remain, and inside the
// error when none can be launched (there the non-EFA types were dropped). Said once each time.
func TestEFATypesNotOfferedInThePoolsZones(t *testing.T) {
	p5 := p548XLarge()
	p5.Zones = []string{zoneA, zoneB}
	in := baseInput()
	in.Catalog = catalog.New([]catalog.InstanceType{m5Large(), c5n18XLarge(), p5})
	in.Class.EFA = true
	in.Class.Subnets = []Subnet{{ID: "subnet-c1", Zone: zoneC, ZoneID: "usw2-az3", AvailableIPs: 4000}}
	in.Requirements = []requirements.Requirement{req(requirements.LabelInstanceFamily, requirements.OpIn, "c5n", "p5")}
	plan := mustBuild(t, in)
	if !hasProblem(plan.Warnings, "template.requirements", "1 instance type(s) with EFA the requirements match are not offered in the pool's zones us-west-2c",
		"p5.48xlarge (offered in us-west-2a, us-west-2b)") || countSummary(plan.Warnings, SummaryNotInZones) != 1 {
		t.Errorf("warnings = %v", plan.Warnings)
	}
	in.Requirements = []requirements.Requirement{req(requirements.LabelInstanceFamily, requirements.OpIn, "m5", "p5")}
	_, errs := Build(in)
	if len(errs) != 1 || !hasProblem(errs, "template.requirements", "none can be launched", "without EFA support",
		"with EFA the requirements match are not offered in the pool's zones us-west-2c: p5.48xlarge (offered in us-west-2a, us-west-2b)") {
		t.Errorf("errors = %v", errs)
	}
	// Without EFA the unnamed types of other zones are not listed: m5.large is launched.
	in.Class.EFA = false
	if plan := mustBuild(t, in); hasSummary(plan.Warnings, SummaryNotInZones) {
		t.Errorf("no EFA: warnings = %v", plan.Warnings)
	}
}

func countSummary(ps []Problem, summary string) int {
	n := 0
	for _, p := range ps {
		if p.Summary == summary {
			n++
		}
	}
	return n
}
