package catalog

import (
	"fmt"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// syntheticCatalog is a region-sized catalog: n types across families and sizes, some
// multi-card with EFA, some Xen, some arm64.
func syntheticCatalog(n int) *Catalog {
	sizes := []string{"large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge", "metal"}
	var types []InstanceType
	for f := 0; len(types) < n; f++ {
		family := fmt.Sprintf("%c%d", 'a'+rune(f%26), 1+f/26)
		for s := 0; s < len(sizes) && len(types) < n; s++ {
			it := m5Large()
			it.Name = family + "." + sizes[s]
			it.VCPUs = 2 << min(s, 7)
			it.MemoryMiB = it.VCPUs * 4096
			it.IPv4PerENI = 10 + 5*min(s, 8)
			it.MaxENIs = min(3+s, 15)
			it.NetworkCards = cards(1, it.MaxENIs, 750*(s+1))
			if s == 8 {
				it.NetworkCards = cards(4, 15, 100000)
				it.MaxENIs = 60
				it.EFASupported, it.MaxEFAInterfaces = true, 4
			}
			if f%5 == 0 {
				it.Hypervisor = "xen"
			}
			if f%3 == 1 {
				it.Architectures = []string{"arm64"}
			}
			if sizes[s] == "metal" {
				it.Hypervisor, it.BareMetal = "", true
			}
			types = append(types, it)
		}
	}
	return New(types)
}

// BenchmarkCapacityAllTypes computes the pod capacity of every type of a 1,400-type catalog
// under two settings (defaults; custom networking with prefix delegation), as
// karpenter_instance_types does for an unfiltered read.
func BenchmarkCapacityAllTypes(b *testing.B) {
	c := syntheticCatalog(1400)
	types := c.Types()
	settings := []capacity.Settings{{}, {CustomNetworking: true, ReservedENIs: 1, PrefixDelegation: true}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, s := range settings {
			for _, it := range types {
				_, _ = capacity.Compute(ToNetwork(it), s)
			}
		}
	}
	b.ReportMetric(float64(len(types)*len(settings)), "computes/op")
}

// BenchmarkSelect evaluates NodePool-style requirements, including per-offering zone and
// capacity-type requirements, over a 1,400-type catalog: each selection fresh (Select keeps
// its answers, which a repeated Select would only look up).
func BenchmarkSelect(b *testing.B) {
	c := syntheticCatalog(1400)
	two := 2
	reqs := []requirements.Requirement{
		{Key: requirements.LabelArch, Operator: requirements.OpIn, Values: []string{"amd64"}},
		{Key: requirements.LabelInstanceCPU, Operator: requirements.OpGte, Values: []string{"4"}},
		{Key: requirements.LabelCapacityType, Operator: requirements.OpIn, Values: []string{"spot", "on-demand"}},
		{Key: requirements.LabelZone, Operator: requirements.OpNotIn, Values: []string{"ap-southeast-1c"}, MinValues: &two},
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.selectFresh(reqs, SelectOptions{Region: "ap-southeast-1"})
		if err != nil || len(res.Types) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkLabels is Labels over every type.
func BenchmarkLabels(b *testing.B) {
	types := syntheticCatalog(1400).Types()
	b.ReportAllocs()
	for b.Loop() {
		for _, it := range types {
			_ = Labels(it)
		}
	}
}
