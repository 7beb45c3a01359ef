package launchplan

import (
	"fmt"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// benchInput plans one pool over an 800-type catalog with spot and on-demand, prefix delegation,
// kubelet settings and limits: the per-plan cost of the node pool resource.
func benchInput() Input {
	in := baseInput()
	in.Catalog = syntheticCatalog(800)
	in.Class.CNI.PrefixDelegation = true
	in.Class.Kubelet = fullKubelet
	in.Limits = map[string]string{"cpu": "1000", "memory": "1000Gi"}
	in.Requirements = []requirements.Requirement{
		req(requirements.LabelCapacityType, requirements.OpIn, "spot", "on-demand"),
		req(requirements.LabelArch, requirements.OpIn, "amd64"),
	}
	return in
}

func BenchmarkBuild(b *testing.B) {
	in := benchInput()
	if _, errs := Build(in); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		Build(in)
	}
}

// BenchmarkSelectBaseline is the catalog.Select call inside BenchmarkBuild alone, to tell the
// catalog's share of the planning time from this package's.
func BenchmarkSelectBaseline(b *testing.B) {
	in := benchInput()
	opts := catalog.SelectOptions{Region: in.Region, Zones: allZones}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Catalog.Select(in.Requirements[1:], opts); err != nil {
			b.Fatal(err)
		}
	}
}

// scalingSizes are the catalog sizes of BenchmarkBuildScaling: each doubles the last, so a
// linear planner doubles its time from one to the next.
var scalingSizes = []int{200, 400, 800, 1600}

// BenchmarkBuildScaling plans the benchInput pool over catalogs of growing size, to show that
// planning a pool is linear in the catalog (make bench reports the time per type at each size).
func BenchmarkBuildScaling(b *testing.B) {
	for _, n := range scalingSizes {
		b.Run(fmt.Sprintf("types=%d", n), func(b *testing.B) {
			in := benchInput()
			in.Catalog = syntheticCatalog(n)
			if _, errs := Build(in); len(errs) > 0 {
				b.Fatal(errs)
			}
			b.ReportAllocs()
			for b.Loop() {
				Build(in)
			}
		})
	}
}
