package manifest

import "testing"

// BenchmarkRenderNodePool renders a NodePool with every field set (labels, nine requirements,
// taints, limits, disruption budgets, weight): the manifest part of planning one pool.
func BenchmarkRenderNodePool(b *testing.B) {
	np := maximalNodePool()
	if _, err := RenderNodePool(np); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RenderNodePool(np); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderEC2NodeClass renders an EC2NodeClass with every field set.
func BenchmarkRenderEC2NodeClass(b *testing.B) {
	nc := maximalEC2NodeClass()
	if _, err := RenderEC2NodeClass(nc); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RenderEC2NodeClass(nc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitNodePool runs the API server's validation over a NodePool with every field set:
// what each pool plan adds (the CRDs are compiled once per process, outside the loop).
func BenchmarkAdmitNodePool(b *testing.B) {
	benchmarkAdmit(b, func() (string, error) { return RenderNodePool(maximalNodePool()) })
}

// BenchmarkAdmitEC2NodeClass does the same for an EC2NodeClass with every field set.
func BenchmarkAdmitEC2NodeClass(b *testing.B) {
	benchmarkAdmit(b, func() (string, error) { return RenderEC2NodeClass(maximalEC2NodeClass()) })
}

func benchmarkAdmit(b *testing.B, render func() (string, error)) {
	doc, err := render()
	if err != nil {
		b.Fatal(err)
	}
	if v, err := Admit(doc); err != nil || len(v) > 0 {
		b.Fatalf("%v %v", v, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Admit(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCRDs is the one-time cost per provider process of all four kinds (a plan
// compiles only the kinds it admits).
func BenchmarkCompileCRDs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for kind, file := range crdFileOf {
			if _, err := loadCRD(DefaultVersion, kind, file); err != nil {
				b.Fatal(err)
			}
		}
	}
}
