package launchplan

import (
	"math/big"
	"sort"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

// pathWorkloads is the node pool attribute the workloads are given in.
var pathWorkloads = attrpath.Of("workloads")

// SummaryWorkloadDoesNotFit is the warning of a workload the pool cannot hold.
const SummaryWorkloadDoesNotFit = "Workload does not fit the pool"

// workloads answers, for each workload of the pool, which of the launch plan's types would
// run it, on how many nodes, and whether the subnets and limits hold them (workloadfit's rule).
// A workload that does not fit is a warning on its key: the plan is the answer.
func (b *builder) workloads(launch []*eligible) map[string]workloadfit.Result {
	if len(b.in.Workloads) == 0 || len(launch) == 0 {
		return nil
	}
	in := workloadfit.Input{Limits: b.fitLimits(), Kubelet: workloadfit.Kubelet{
		KubeReserved: b.in.Class.Kubelet.KubeReserved, SystemReserved: b.in.Class.Kubelet.SystemReserved, EvictionHard: b.in.Class.Kubelet.EvictionHard,
	}}
	for _, z := range b.zones {
		pod := -1
		if b.settings.CustomNetworking {
			pod = z.PodSubnetAvailableIPs
		}
		in.Zones = append(in.Zones, workloadfit.Zone{Name: z.Zone, FreeIPs: z.AvailableIPs, PodSubnetFreeIPs: pod})
	}
	eniScaled := b.family == capacity.FamilyAL2 || b.family == capacity.FamilyAL2023
	for _, t := range launch {
		network, settings := catalog.ToNetwork(t.it), b.settings
		ft := workloadfit.Type{Name: t.it.Name, VCPUs: t.it.VCPUs, MemoryMiB: t.it.MemoryMiB,
			MaxPods: min(t.res.MaxPods, t.res.KarpenterAssumedPods), Price: t.price, CapacityType: t.priceCT, Zones: t.zones,
			Arm64: t.it.KubeArch() == "arm64", Extended: b.extended(t),
			IPsAt: func(pods int) (int, int) {
				node, pod, err := capacity.IPsAtPods(network, settings, pods)
				if err != nil {
					return 0, 0
				}
				return node, pod
			}}
		if eniScaled {
			ft.KubeReservedPods = t.res.ENILimitedPods
		}
		if k, resolved := b.kubeletFor(t); resolved != "" {
			ft.Kubelet = &workloadfit.Kubelet{KubeReserved: k.KubeReserved, SystemReserved: k.SystemReserved, EvictionHard: k.EvictionHard}
		}
		in.Types = append(in.Types, ft)
	}
	out := make(map[string]workloadfit.Result, len(b.in.Workloads))
	names := make([]string, 0, len(b.in.Workloads))
	for name := range b.in.Workloads {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		in.Workload = b.in.Workloads[name]
		r, err := workloadfit.Fit(in)
		if err != nil {
			b.fail(pathWorkloads.Key(name), "%v", err)
			continue
		}
		out[name] = r
		if !r.Fits {
			b.warn(SummaryWorkloadDoesNotFit, pathWorkloads.Key(name), "%s", r.Summary)
		}
	}
	return out
}

// fitLimits are the pool's cpu, memory and nodes limits in workloadfit's units (-1: none).
func (b *builder) fitLimits() workloadfit.Limits {
	l := workloadfit.NoLimits()
	if q, ok := b.limits[limitCPU]; ok {
		l.CPUMilli = int64(floorDiv(new(big.Rat).Mul(q, big.NewRat(1000, 1)), 1))
	}
	if q, ok := b.limits[limitMemory]; ok {
		l.MemoryMiB = int64(floorDiv(q, bytesPerMiB))
	}
	if q, ok := b.limits[limitNodes]; ok {
		l.Nodes = int64(floorDiv(q, 1))
	}
	return l
}
