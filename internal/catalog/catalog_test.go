package catalog

import (
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

func TestCatalogSortedLookupZones(t *testing.T) {
	c := fixtureCatalog()
	var names []string
	for _, it := range c.Types() {
		names = append(names, it.Name)
	}
	if !slices.IsSorted(names) || len(names) != c.Len() || c.Len() != 10 {
		t.Fatalf("types not sorted or wrong count: %v", names)
	}
	it, ok := c.Get("m5.large")
	if !ok || it.VCPUs != 2 {
		t.Fatalf("Get(m5.large) = %v, %v", it, ok)
	}
	if _, ok := c.Get("M5.LARGE"); ok {
		t.Error("Get must be exact")
	}
	if got := c.Zones(); !slices.Equal(got, allZones) {
		t.Errorf("Zones() = %v", got)
	}
	if !c.HasZone("ap-southeast-1b") || c.HasZone("ap-southeast-1z") {
		t.Error("HasZone")
	}
	if !it.OfferedIn("ap-southeast-1c") {
		t.Error("m5.large is offered in 1c")
	}
	p5, _ := c.Get("p5.48xlarge")
	if p5.OfferedIn("ap-southeast-1a") || len(p5.Zones) != 0 {
		t.Error("p5.48xlarge has no offerings")
	}
	// Types returns a fresh slice.
	ts := c.Types()
	ts[0] = nil
	if c.Types()[0] == nil {
		t.Error("Types must not expose the internal slice")
	}
}

func TestNewDeduplicates(t *testing.T) {
	a, b := m5Large(), m5Large()
	a.Zones = []string{"z2", "z1", "z2"}
	b.VCPUs = 99
	b.Zones = []string{"z3", "z1", "z3"}
	c := New([]InstanceType{a, b})
	it, _ := c.Get("m5.large")
	if c.Len() != 1 || it.VCPUs != 99 || !slices.Equal(it.Zones, []string{"z1", "z3"}) {
		t.Errorf("got %d types, %+v", c.Len(), it)
	}
	if !slices.Equal(c.Zones(), []string{"z1", "z3"}) {
		t.Errorf("zones %v", c.Zones())
	}
}

func TestSuggest(t *testing.T) {
	c := fixtureCatalog()
	cases := []struct {
		in   string
		want []string
	}{
		{"M5.Large", []string{"m5.large"}},                         // case only: that one name
		{"inf2.xlarge ", []string{"inf2.xlarge"}},                  // stray space
		{"m5.larg", []string{"m5.large", "m4.large"}},              // same family first, then a near name
		{"m4.xlarge", []string{"m4.large", "m5.large"}},            //
		{"c5.large", []string{"c5.metal", "m5.large"}},             // family beats a closer other family
		{"g4dn.huge", []string{"g4dn.xlarge"}},                     // family, though far
		{"c7gxlarge", []string{"c7g.xlarge"}},                      // missing dot: edit distance
		{"c7i-flex.2xlarge", []string{"c7i-flex.large"}},           //
		{"m5.large-with-a-very-long-suffix", []string{"m5.large"}}, // family
		{"zz9.nano", nil}, // nothing plausible
		{"", nil},         //
	}
	for _, tc := range cases {
		got := c.Suggest(tc.in, 2)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Suggest(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// The engine on catalog types: the worked numbers of the Karpenter reference (§3.3).
func TestCapacityOnCatalogTypes(t *testing.T) {
	m5, p5 := m5Large(), p548XLarge()
	r, err := capacity.Compute(ToNetwork(&m5), capacity.Settings{})
	if err != nil || r.ENILimitedPods != 29 || r.MaxPods != 29 {
		t.Errorf("m5.large: %+v, %v", r, err)
	}
	r, err = capacity.Compute(ToNetwork(&p5), capacity.Settings{})
	if err != nil || r.ENILimitedPods != 100 || r.EFAInterfaces != 32 {
		t.Errorf("p5.48xlarge: %+v, %v", r, err)
	}
	ifaces := []capacity.Interface{
		{NetworkCardIndex: 0, DeviceIndex: 0, InterfaceType: capacity.InterfaceTypeInterface},
		{NetworkCardIndex: 0, DeviceIndex: 1, InterfaceType: capacity.InterfaceTypeEFAOnly},
	}
	for card := 1; card < 32; card++ {
		ifaces = append(ifaces, capacity.Interface{NetworkCardIndex: card, InterfaceType: capacity.InterfaceTypeEFAOnly})
	}
	r, err = capacity.Compute(ToNetwork(&p5), capacity.Settings{NetworkInterfaces: ifaces})
	if err != nil || r.ENILimitedPods != 51 || r.EFAInterfaces != 32 {
		t.Errorf("p5.48xlarge EFA layout: %+v, %v", r, err)
	}
}
