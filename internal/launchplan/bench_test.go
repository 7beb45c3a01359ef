package launchplan

import (
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
