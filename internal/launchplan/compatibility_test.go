package launchplan

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

func a1Large() catalog.InstanceType { return itype("a1.large", 2, 4096, "arm64", "nitro", 1, 3, 10) }

// Karpenter leaves a1 types out of an AL2023 class from 1.11 on; an AL2 class, and Karpenter
// before 1.11, keep them.
func TestA1NotOfferedToAL2023(t *testing.T) {
	for _, tc := range []struct {
		version, family string
		offered         bool
	}{
		{"1.15", capacity.FamilyAL2023, false},
		{"1.11", capacity.FamilyAL2023, false},
		{"", capacity.FamilyAL2023, false}, // the default version
		{"1.10", capacity.FamilyAL2023, true},
		{"1.9", capacity.FamilyAL2023, true},
		{"1.15", capacity.FamilyAL2, true},
		{"1.15", capacity.FamilyBottlerocket, true},
	} {
		in := baseInput()
		in.KarpenterVersion, in.Class.AMIFamily = tc.version, tc.family
		in.Catalog = catalog.New([]catalog.InstanceType{a1Large(), c7gLarge()})
		in.Prices.OnDemand["a1.large"] = 0.051 // cheaper than c7g.large: it would launch first
		p := mustBuild(t, in)
		if got := slices.Contains(typeNames(p), "a1.large"); got != tc.offered {
			t.Errorf("Karpenter %q, %s: a1.large eligible = %v, want %v (types %v)", tc.version, tc.family, got, tc.offered, typeNames(p))
		}
		warned := hasProblem(p.Warnings, "template.requirements", "1 instance type that Karpenter", "does not offer to an AL2023 node class (a1.large)")
		if warned == tc.offered {
			t.Errorf("Karpenter %q, %s: warning about a1.large = %v; warnings %v", tc.version, tc.family, warned, p.Warnings)
		}
		if OfferedForFamily(tc.version, tc.family, "a1.large") != tc.offered || !OfferedForFamily(tc.version, tc.family, "c7g.large") {
			t.Errorf("OfferedForFamily(%q, %s) disagrees with the plan", tc.version, tc.family)
		}
	}
}

// settingCase is one compatibility rule of a class setting: the class that sets it, a type that
// supports it and one that does not, the first Karpenter minor that applies it and the words of
// its drop warning.
type settingCase struct {
	name               string
	set                func(*Class)
	supported, refused catalog.InstanceType
	since, before      string
	warning            string
}

func settingCases() []settingCase {
	nested := itype("c8i.xlarge", 4, 8192, "x86_64", "nitro", 1, 4, 15)
	nested.ProcessorFeatures = []string{"nested-virtualization", "metal-compatibility"}
	enclaves := m5XLarge()
	enclaves.NitroEnclavesSupport = "supported"
	noEnclaves := m5Large()
	noEnclaves.NitroEnclavesSupport = "unsupported"
	cluster := m5Large()
	cluster.PlacementGroupStrategies = []string{"cluster", "partition", "spread"}
	burstable := t3Micro()
	burstable.PlacementGroupStrategies = []string{"partition", "spread"}
	return []settingCase{
		{"nested virtualization", func(c *Class) { c.NestedVirtualization = true }, nested, m5Large(), "1.13", "1.12",
			`without nested virtualization support, which Karpenter %s does not offer to node class "default": its cpu_options.nested_virtualization is "enabled" (m5.large)`},
		{"Nitro Enclaves", func(c *Class) { c.NitroEnclaves = true }, enclaves, noEnclaves, "1.15", "1.14",
			`without Nitro Enclaves support, which Karpenter %s does not offer to node class "default": its enclave_options.enabled is true (m5.large)`},
		{"placement group", func(c *Class) { c.PlacementGroupStrategy = "cluster" }, cluster, burstable, "1.11", "1.10",
			`that cannot launch into a cluster placement group, which Karpenter %s does not offer to node class "default": its placement_group_selector selects one (t3.micro)`},
		{"connection tracking", func(c *Class) { c.ConnectionTracking = true }, m5Large(), m4Large(), "1.13", "1.12",
			`not on the Nitro hypervisor (Xen and bare metal), which Karpenter %s does not offer to node class "default": it sets connection_tracking (m4.large)`},
	}
}

// Each setting's rule drops the types that do not support it, named in the drop warning with
// the setting, from the Karpenter minor that introduced it (and later ones); earlier minors, and
// a class without the setting, keep them.
func TestSettingCompatibilityPerRelease(t *testing.T) {
	for _, tc := range settingCases() {
		for _, v := range []struct {
			version string
			applies bool
		}{{tc.before, false}, {tc.since, true}, {"1.15", true}, {"", true}, {"1.9", false}} {
			for _, set := range []bool{false, true} {
				in := baseInput()
				in.KarpenterVersion = v.version
				if set {
					tc.set(&in.Class)
				}
				in.Catalog = catalog.New([]catalog.InstanceType{tc.supported, tc.refused})
				in.Prices.OnDemand[tc.supported.Name], in.Prices.OnDemand[tc.refused.Name] = 0.2, 0.01 // the refused type is cheaper
				p := mustBuild(t, in)
				want := !set || !v.applies
				if got := slices.Contains(typeNames(p), tc.refused.Name); got != want {
					t.Errorf("%s, Karpenter %q, set %v: %s eligible = %v, want %v (types %v)", tc.name, v.version, set, tc.refused.Name, got, want, typeNames(p))
				}
				if !slices.Contains(typeNames(p), tc.supported.Name) {
					t.Errorf("%s, Karpenter %q, set %v: %s dropped (types %v)", tc.name, v.version, set, tc.supported.Name, typeNames(p))
				}
				shown := v.version
				if shown == "" {
					shown = "1.15"
				}
				warned := hasProblem(p.Warnings, "template.requirements", "dropped 1 instance type "+fmt.Sprintf(tc.warning, shown))
				if warned == want {
					t.Errorf("%s, Karpenter %q, set %v: drop warning = %v; warnings %v", tc.name, v.version, set, warned, p.Warnings)
				}
				refused, supported := tc.refused, tc.supported
				if OfferedToClass(v.version, &in.Class, &refused) != want || !OfferedToClass(v.version, &in.Class, &supported) {
					t.Errorf("%s, Karpenter %q, set %v: OfferedToClass disagrees with the plan", tc.name, v.version, set)
				}
			}
		}
	}
}

// With every type dropped by a setting the plan fails, saying which setting dropped them.
func TestSettingDropsEveryType(t *testing.T) {
	in := baseInput()
	in.Class.ConnectionTracking = true
	in.Catalog = catalog.New([]catalog.InstanceType{m4Large()})
	_, errs := Build(in)
	if !hasProblem(errs, "template.requirements", "none can be launched", "it sets connection_tracking (m4.large)") {
		t.Errorf("errors %v", errs)
	}
}

// A connection_tracking class plans Nitro types only: Xen and bare-metal types (no hypervisor)
// are dropped however cheap, as Karpenter 1.13 on drops them, and the launch keeps the rest in
// price order.
func TestConnectionTrackingPlansNitroOnly(t *testing.T) {
	metal := itype("m5.metal", 96, 393216, "x86_64", "", 1, 15, 50)
	metal.BareMetal = true
	in := baseInput()
	in.Class.ConnectionTracking = true
	in.Catalog = catalog.New([]catalog.InstanceType{m5Large(), m5XLarge(), m4Large(), t3Micro(), c7gLarge(), metal})
	in.Prices.OnDemand["m4.large"], in.Prices.OnDemand["m5.metal"] = 0.001, 0.002
	p := mustBuild(t, in)
	for _, it := range p.InstanceTypes {
		if typ, ok := in.Catalog.Get(it.Name); !ok || typ.Hypervisor != "nitro" {
			t.Errorf("%s is planned for a connection_tracking class", it.Name)
		}
	}
	if !slices.Equal(p.LaunchTypes, []string{"t3.micro", "c7g.large", "m5.large", "m5.xlarge"}) {
		t.Errorf("launch types %v", p.LaunchTypes)
	}
	if !hasProblem(p.Warnings, "template.requirements", "2 instance types not on the Nitro hypervisor", "(m4.large, m5.metal)") {
		t.Errorf("warnings %v", p.Warnings)
	}
}

// A type that fails several settings is dropped for the first in Karpenter's order of checks.
func TestSettingDropOrder(t *testing.T) {
	xen := m4Large()
	xen.PlacementGroupStrategies = []string{"partition"}
	c := Class{NestedVirtualization: true, NitroEnclaves: true, PlacementGroupStrategy: "cluster", ConnectionTracking: true}
	for _, want := range []int{dropNestedVirtualization, dropNitroEnclaves, dropPlacementGroup, dropConnectionTracking} {
		if got, dropped := settingDrop("1.15", &c, &xen); !dropped || got != want {
			t.Fatalf("class %+v: drop reason %d (%v), want %d", c, got, dropped, want)
		}
		switch want {
		case dropNestedVirtualization:
			c.NestedVirtualization = false
		case dropNitroEnclaves:
			c.NitroEnclaves = false
		case dropPlacementGroup:
			c.PlacementGroupStrategy = ""
		}
	}
	c.AutoMode = &capacity.AutoMode{}
	c.ConnectionTracking = true
	if _, dropped := settingDrop("1.15", &c, &xen); dropped {
		t.Error("an Auto Mode class has none of the settings")
	}
}

// The settings reach a pool: ClassOf reads them from the node class as rendered (an empty
// connection_tracking is left out of the manifest, so Karpenter sees none), and they survive
// the class's resolution.
func TestSettingsReachThePool(t *testing.T) {
	yes, sec := true, 300
	spec := nodeclass.Spec{Name: "vm", AMIFamily: capacity.FamilyAL2023, CPUOptions: &nodeclass.CPUOptions{NestedVirtualization: "enabled"},
		EnclaveOptions: &yes, ConnectionTracking: &nodeclass.ConnectionTracking{UDPTimeout: &sec}, MetadataOptions: nodeclass.DefaultMetadataOptions()}
	c := ClassOf(spec, nodeclass.Resolved{}, "")
	c.PlacementGroupStrategy = "spread"
	if !c.NestedVirtualization || !c.NitroEnclaves || !c.ConnectionTracking {
		t.Fatalf("ClassOf: %+v", c)
	}
	v, err := c.Value().Ref().Value()
	if err != nil {
		t.Fatal(err)
	}
	back := v.Class()
	if !back.NestedVirtualization || !back.NitroEnclaves || !back.ConnectionTracking || back.PlacementGroupStrategy != "spread" {
		t.Errorf("after the resolution: %+v", back)
	}
	for _, s := range []nodeclass.Spec{
		{CPUOptions: &nodeclass.CPUOptions{NestedVirtualization: "disabled"}, ConnectionTracking: &nodeclass.ConnectionTracking{}},
		{CPUOptions: &nodeclass.CPUOptions{}, EnclaveOptions: new(bool)},
	} {
		if c := ClassOf(s, nodeclass.Resolved{}, ""); c.NestedVirtualization || c.NitroEnclaves || c.ConnectionTracking {
			t.Errorf("%+v: %+v", s, c)
		}
	}
	// A class without them resolves as before: its fingerprint does not move.
	plain := ClassOf(nodeclass.Spec{Name: "vm", AMIFamily: capacity.FamilyAL2023, MetadataOptions: nodeclass.DefaultMetadataOptions()}, nodeclass.Resolved{}, "")
	if r := plain.Value().Ref(); strings.Contains(string(mustDecode(t, r.Resolution)), "nested") {
		t.Errorf("an unset setting is in the resolution: %s", mustDecode(t, r.Resolution))
	}
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
