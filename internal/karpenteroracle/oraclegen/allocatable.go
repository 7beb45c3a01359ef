package oraclegen

import (
	"fmt"
	"math/rand"
	"strconv"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
)

// AllocCase is one instance type and node class kubelet as Karpenter's instance-type code reads
// them: EC2's vCPUs, memory, architecture and default-card network, the AMI family and the
// kubelet's maxPods, podsPerCore, kubeReserved, systemReserved and evictionHard.
type AllocCase struct {
	Name                                       string
	VCPUs, MemoryMiB, ENIs, IPv4PerENI         int
	Arm64                                      bool
	Family                                     string
	MaxPods, PodsPerCore                       *int32
	KubeReserved, SystemReserved, EvictionHard map[string]string
}

// AllocOutcome is a type's allocatable cpu (millicores), memory (bytes) and pods.
type AllocOutcome struct{ CPUMilli, MemoryBytes, Pods int64 }

// overdrawn reports which resources' overheads exceed the capacity, in the provider's Allocation.
func overdrawn(a workloadfit.Allocation) (cpu, memory bool) {
	c, k, s, e := a.Capacity, a.KubeReserved, a.SystemReserved, a.EvictionHard
	return c.CPUMilli-k.CPUMilli-s.CPUMilli < 0, c.MemoryBytes-k.MemoryBytes-s.MemoryBytes-e.MemoryBytes < 0
}

var allocFamilies = []string{capacity.FamilyAL2023, capacity.FamilyAL2, capacity.FamilyBottlerocket, capacity.FamilyWindows2022}

func randomAllocCase(rng *rand.Rand, i int) AllocCase {
	vcpus := []int{1, 2, 4, 8, 16, 32, 48, 64, 96, 192}[rng.Intn(10)]
	c := AllocCase{Name: fmt.Sprintf("x%d.size%d", i, vcpus), VCPUs: vcpus, MemoryMiB: vcpus * []int{512, 1024, 2048, 4096, 8192}[rng.Intn(5)],
		ENIs: 2 + rng.Intn(14), IPv4PerENI: []int{2, 4, 6, 10, 15, 30, 50}[rng.Intn(7)], Arm64: rng.Intn(3) == 0,
		Family: allocFamilies[rng.Intn(len(allocFamilies))]}
	if c.MemoryMiB < 1024 {
		c.MemoryMiB = 1024
	}
	if rng.Intn(3) == 0 {
		v := int32(8 + rng.Intn(240))
		c.MaxPods = &v
	}
	if rng.Intn(5) == 0 {
		v := int32(1 + rng.Intn(20))
		c.PodsPerCore = &v
	}
	quantity := func(cpu bool) string {
		if cpu {
			return []string{"100m", "250m", "1", "1500m", "2"}[rng.Intn(5)]
		}
		return []string{"128Mi", "512Mi", "1Gi", "1.5Gi", "300M", "2G"}[rng.Intn(6)]
	}
	if rng.Intn(2) == 0 {
		c.KubeReserved = map[string]string{}
		if rng.Intn(2) == 0 {
			c.KubeReserved["cpu"] = quantity(true)
		}
		if rng.Intn(2) == 0 {
			c.KubeReserved["memory"] = quantity(false)
		}
	}
	if rng.Intn(3) == 0 {
		c.SystemReserved = map[string]string{"cpu": quantity(true), "memory": quantity(false)}
	}
	switch rng.Intn(4) {
	case 0:
		c.EvictionHard = map[string]string{"memory.available": quantity(false)}
	case 1:
		c.EvictionHard = map[string]string{"memory.available": strconv.Itoa(1+rng.Intn(15)) + "%"}
	}
	return c
}

// providerAllocatable is the provider's allocatable of the case: max pods and the
// kube-reserved pod count from capacity.Compute (as the launch plan takes them), then
// workloadfit.Allocatable.
func providerAllocatable(c AllocCase) (AllocOutcome, workloadfit.Allocation, error) {
	s := capacity.Settings{AMIFamily: c.Family}
	if c.MaxPods != nil {
		v := int(*c.MaxPods)
		s.MaxPods = &v
	}
	if c.PodsPerCore != nil {
		v := int(*c.PodsPerCore)
		s.PodsPerCore = &v
	}
	res, err := capacity.Compute(capacity.Network{InstanceType: c.Name, VCPUs: c.VCPUs, MemoryMiB: c.MemoryMiB, Hypervisor: "nitro",
		MaxENIs: c.ENIs, IPv4PerENI: c.IPv4PerENI, IPv6PerENI: c.IPv4PerENI}, s)
	if err != nil {
		return AllocOutcome{}, workloadfit.Allocation{}, err
	}
	t := workloadfit.Type{Name: c.Name, VCPUs: c.VCPUs, MemoryMiB: c.MemoryMiB, MaxPods: res.KarpenterAssumedPods, Arm64: c.Arm64}
	if c.Family == capacity.FamilyAL2 || c.Family == capacity.FamilyAL2023 {
		t.KubeReservedPods = res.ENILimitedPods
	}
	a, err := workloadfit.Allocatable(t, workloadfit.Kubelet{KubeReserved: c.KubeReserved, SystemReserved: c.SystemReserved, EvictionHard: c.EvictionHard})
	if err != nil {
		return AllocOutcome{}, a, err
	}
	return AllocOutcome{CPUMilli: a.Allocatable.CPUMilli, MemoryBytes: a.Allocatable.MemoryBytes, Pods: a.Allocatable.Pods}, a, nil
}

// CompareAllocatable draws random types and kubelets and compares the allocatable cpu, memory
// and pods of Karpenter minor's instance-type code (karpenter: NewInstanceType(...).Allocatable())
// with the provider's (capacity.Compute and workloadfit.Allocatable).
func CompareAllocatable(t *testing.T, minor string, karpenter func(AllocCase) AllocOutcome, run Run) {
	t.Helper()
	rng := rand.New(rand.NewSource(run.Seed))
	cases, negative, bad := 0, 0, 0
	for i := range run.Cases {
		c := randomAllocCase(rng, i)
		got, alloc, err := providerAllocatable(c)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		want := karpenter(c)
		// Where the overheads exceed the capacity the provider's allocatable stops at 0 and no pod
		// requesting the resource fits; Karpenter's goes negative, or (with mixed quantity
		// scales, once in 5,000 draws) wraps to a number above the capacity. Which resources are
		// overdrawn is decided on each side by its own numbers and must agree; Karpenter's
		// overdrawn value then compares as 0.
		kCPUOver := want.CPUMilli < 0 || want.CPUMilli > int64(c.VCPUs)*1000
		kMemOver := want.MemoryBytes < 0 || want.MemoryBytes > int64(c.MemoryMiB)<<20
		pCPUOver, pMemOver := overdrawn(alloc)
		if kCPUOver || kMemOver {
			negative++
		}
		if kCPUOver {
			want.CPUMilli = 0
		}
		if kMemOver {
			want.MemoryBytes = 0
		}
		cases++
		if kCPUOver != pCPUOver || kMemOver != pMemOver {
			if bad++; bad <= maxReported {
				t.Errorf("Karpenter %s: %s %d vCPU %d MiB %s kube %v system %v eviction %v: overdrawn cpu/memory: Karpenter %v/%v, the "+
					"provider %v/%v", minor, c.Name, c.VCPUs, c.MemoryMiB, c.Family, c.KubeReserved, c.SystemReserved, c.EvictionHard,
					kCPUOver, kMemOver, pCPUOver, pMemOver)
			}
			continue
		}
		if got != want {
			if bad++; bad <= maxReported {
				t.Errorf("Karpenter %s: %s %d vCPU %d MiB arm64=%v %s maxPods %v podsPerCore %v kube %v system %v eviction %v: Karpenter %+v, the provider %+v",
					minor, c.Name, c.VCPUs, c.MemoryMiB, c.Arm64, c.Family, deref(c.MaxPods), deref(c.PodsPerCore), c.KubeReserved,
					c.SystemReserved, c.EvictionHard, want, got)
			}
		}
	}
	t.Logf("Karpenter %s: %d instance types × kubelets compared (%d with overheads above capacity), %d disagreements", minor, cases,
		negative, bad)
	if bad > 0 {
		t.Fatalf("%d of %d cases disagree", bad, cases)
	}
	if cases < run.Floor || negative < run.Cases/100 {
		t.Fatalf("compared %d cases (%d overdrawn), under the floor of %d (%d overdrawn)", cases, negative, run.Floor, run.Cases/100)
	}
}

func deref(p *int32) any {
	if p == nil {
		return "-"
	}
	return *p
}
