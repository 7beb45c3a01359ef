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
