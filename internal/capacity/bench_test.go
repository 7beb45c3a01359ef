package capacity

import "testing"

func BenchmarkCompute(b *testing.B) {
	type input struct {
		n Network
		s Settings
	}
	inputs := []input{
		{m5Large(), Settings{}},
		{m5XLarge(), Settings{CustomNetworking: true, ReservedENIs: 1}},
		{c518XLarge(), Settings{PrefixDelegation: true}},
		{t3Micro(), Settings{PrefixDelegation: true, CustomNetworking: true}},
		{p548XLarge(), Settings{NetworkInterfaces: p5EFALayout()}},
		{m4Large(), Settings{AMIFamily: FamilyBottlerocket, PodsPerCore: ptr(4)}},
		{c5Metal(), Settings{SecurityGroupsForPods: true, BranchInterfaces: ptr(107)}},
		{m5Large(), Settings{AMIFamily: FamilyWindows2022}},
		{m5Large(), Settings{MaxPods: ptr(50)}},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		in := inputs[i%len(inputs)]
		if _, err := Compute(in.n, in.s); err != nil {
			b.Fatal(err)
		}
	}
}
