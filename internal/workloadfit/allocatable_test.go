package workloadfit

import (
	"errors"
	"strings"
	"testing"
)

const mi = 1 << 20

func m5Large() Type {
	return Type{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, MaxPods: 29, Price: 0.096, CapacityType: "on-demand"}
}

func c5XLarge() Type {
	return Type{Name: "c5.xlarge", VCPUs: 4, MemoryMiB: 8192, MaxPods: 58, Price: 0.17, CapacityType: "on-demand"}
}

func m5XLarge() Type {
	return Type{Name: "m5.xlarge", VCPUs: 4, MemoryMiB: 16384, MaxPods: 58, Price: 0.192, CapacityType: "on-demand"}
}

// TestAllocatableKarpenterDefaults works Karpenter's formulas by hand.
func TestAllocatableKarpenterDefaults(t *testing.T) {
	cases := []struct {
		name                     string
		typ                      Type
		capMiB                   int64
		kubeCPU, kubeMiB         int64
		allocCPU, allocMiB, pods int64
	}{
		// m5.large: memory 8192 - ceil(8192 x 0.075 = 614.4) = 7577 MiB.
		// kube cpu: 6% of 1000m + 1% of 1000m = 60 + 10 = 70m; memory 11 x 29 + 255 = 574 MiB.
		// allocatable: 2000 - 70 = 1930m; 7577 - 574 - 100 (eviction) = 6903 MiB.
		{"m5.large", m5Large(), 7577, 70, 574, 1930, 6903, 29},
		// c5.xlarge: 7577 MiB as above; kube cpu 60 + 10 + 0.5% of 2000m = 80m;
		// memory 11 x 58 + 255 = 893 MiB. allocatable 3920m; 7577 - 893 - 100 = 6584 MiB.
		{"c5.xlarge", c5XLarge(), 7577, 80, 893, 3920, 6584, 58},
		// m5.xlarge: 16384 - ceil(1228.8) = 15155 MiB; 15155 - 893 - 100 = 14162 MiB.
		{"m5.xlarge", m5XLarge(), 15155, 80, 893, 3920, 14162, 58},
		// m5.4xlarge, 16 vCPUs, 65536 MiB, 234 pods: kube cpu 80 + 0.25% of 12000m = 110m;
		// memory 65536 - ceil(4915.2) = 60620 MiB; kube 11 x 234 + 255 = 2829 MiB;
		// allocatable 15890m, 60620 - 2829 - 100 = 57691 MiB.
		{"m5.4xlarge", Type{Name: "m5.4xlarge", VCPUs: 16, MemoryMiB: 65536, MaxPods: 234}, 60620, 110, 2829, 15890, 57691, 234},
		// c5.large-sized with 5 vCPUs (odd tier): 80 + 0.25% of 1000m = 82.5 -> 82m.
		{"5 vCPUs", Type{Name: "x.5", VCPUs: 5, MemoryMiB: 8192, MaxPods: 29}, 7577, 82, 574, 4918, 6903, 29},
		// m6g.large (Graviton): 8192 - 64 = 8128; - ceil(609.6) = 7518 MiB; 7518 - 574 - 100 = 6844.
		{"m6g.large", Type{Name: "m6g.large", VCPUs: 2, MemoryMiB: 8192, MaxPods: 29, Arm64: true}, 7518, 70, 574, 1930, 6844, 29},
		// AL2023 with kubelet max_pods 110 on m5.large: kube-reserved memory still follows the
		// ENI-limited 29 pods; pods allocatable is 110.
		{"m5.large max_pods 110", Type{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, MaxPods: 110, KubeReservedPods: 29},
			7577, 70, 574, 1930, 6903, 110},
		// Without KubeReservedPods it follows max pods: 11 x 110 + 255 = 1465 MiB; 7577 - 1565 = 6012.
		{"m5.large 110 pods", Type{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, MaxPods: 110}, 7577, 70, 1465, 1930, 6012, 110},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Allocatable(tc.typ, Kubelet{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Capacity.CPUMilli != int64(tc.typ.VCPUs)*1000 || a.Capacity.MemoryBytes != tc.capMiB*mi || a.Capacity.Pods != int64(tc.typ.MaxPods) {
				t.Errorf("capacity %+v; want %dm, %d MiB, %d pods", a.Capacity, tc.typ.VCPUs*1000, tc.capMiB, tc.typ.MaxPods)
			}
			if a.KubeReserved.CPUMilli != tc.kubeCPU || a.KubeReserved.MemoryBytes != tc.kubeMiB*mi {
				t.Errorf("kube-reserved %dm, %d bytes; want %dm, %d MiB", a.KubeReserved.CPUMilli, a.KubeReserved.MemoryBytes, tc.kubeCPU, tc.kubeMiB)
			}
			if a.SystemReserved != (Resources{}) || a.EvictionHard != (Resources{MemoryBytes: 100 * mi}) {
				t.Errorf("system-reserved %+v, eviction %+v; want none and 100Mi", a.SystemReserved, a.EvictionHard)
			}
			if want := (Resources{CPUMilli: tc.allocCPU, MemoryBytes: tc.allocMiB * mi, Pods: tc.pods}); a.Allocatable != want {
				t.Errorf("allocatable %+v; want %+v", a.Allocatable, want)
			}
		})
	}
}

func TestAllocatableKubeletOverrides(t *testing.T) {
	const capBytes = 7577 * mi // m5.large memory capacity, 7,945,060,352 bytes
	cases := []struct {
		name     string
		k        Kubelet
		cpu, mem int64 // allocatable
	}{
		// kube 200m/1Gi, system 100m/200Mi, eviction 5% of 7945060352 = 397253017.6 -> 397253018:
		// cpu 2000 - 300 = 1700m; memory 7945060352 - 1073741824 - 209715200 - 397253018.
		{"all three", Kubelet{
			KubeReserved:   map[string]string{"cpu": "200m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
			SystemReserved: map[string]string{"cpu": "0.1", "memory": "200Mi", "pid": "1000"},
			EvictionHard:   map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
		}, 1700, 6264350310},
		// Only kube cpu: memory keeps 574 MiB kube + 100 MiB eviction = 6903 MiB.
		{"kube cpu only", Kubelet{KubeReserved: map[string]string{"cpu": "1"}}, 1000, 6903 * mi},
		// "100%" disables the threshold: 7577 - 574 = 7003 MiB.
		{"eviction 100%", Kubelet{EvictionHard: map[string]string{"memory.available": "100%"}}, 1930, 7003 * mi},
		// Eviction 500Mi: 7577 - 574 - 500 = 6503 MiB.
		{"eviction 500Mi", Kubelet{EvictionHard: map[string]string{"memory.available": "500Mi"}}, 1930, 6503 * mi},
		// Decimal units: system memory 1G = 1e9 bytes: capBytes - 574 MiB - 100 MiB - 1e9.
		{"system 1G", Kubelet{SystemReserved: map[string]string{"memory": "1G"}}, 1930, capBytes - 674*mi - 1_000_000_000},
		// Exponent form: "1e-1" cores = 100m; sub-millicore rounds up: "0.0001" cores = 1m.
		{"exponent and rounding", Kubelet{KubeReserved: map[string]string{"cpu": "1e-1"}, SystemReserved: map[string]string{"cpu": "0.0001"}},
			2000 - 100 - 1, 6903 * mi},
		// More reserved than the node has: allocatable stops at 0.
		{"over-reserved", Kubelet{KubeReserved: map[string]string{"cpu": "3", "memory": "9Gi"}}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Allocatable(m5Large(), tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if a.Allocatable.CPUMilli != tc.cpu || a.Allocatable.MemoryBytes != tc.mem {
				t.Errorf("allocatable %dm, %d bytes; want %dm, %d bytes", a.Allocatable.CPUMilli, a.Allocatable.MemoryBytes, tc.cpu, tc.mem)
			}
		})
	}
}

func TestAllocatableInvalid(t *testing.T) {
	cases := []struct {
		name string
		k    Kubelet
		want string // in the error
	}{
		{"kube cpu word", Kubelet{KubeReserved: map[string]string{"cpu": "abc"}}, `kube_reserved["cpu"]`},
		{"kube memory negative", Kubelet{KubeReserved: map[string]string{"memory": "-1Gi"}}, `kube_reserved["memory"]`},
		{"system memory unknown suffix", Kubelet{SystemReserved: map[string]string{"memory": "1Zi"}}, `system_reserved["memory"]`},
		{"system cpu two dots", Kubelet{SystemReserved: map[string]string{"cpu": "1.2.3"}}, `system_reserved["cpu"]`},
		{"eviction over 100%", Kubelet{EvictionHard: map[string]string{"memory.available": "105%"}}, `eviction_hard["memory.available"]`},
		{"eviction bad percentage", Kubelet{EvictionHard: map[string]string{"memory.available": "5x%"}}, `eviction_hard["memory.available"]`},
		{"eviction bad quantity", Kubelet{EvictionHard: map[string]string{"memory.available": "lots"}}, `eviction_hard["memory.available"]`},
		{"empty", Kubelet{KubeReserved: map[string]string{"memory": ""}}, `kube_reserved["memory"]`},
		{"exponent too long", Kubelet{KubeReserved: map[string]string{"memory": "1e100"}}, `kube_reserved["memory"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Allocatable(m5Large(), tc.k)
			if !errors.Is(err, ErrInvalidQuantity) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want ErrInvalidQuantity naming %s", err, tc.want)
			}
		})
	}
	// Two bad keys: both named.
	_, err := Allocatable(m5Large(), Kubelet{KubeReserved: map[string]string{"cpu": "x"}, SystemReserved: map[string]string{"memory": "y"}})
	if err == nil || !strings.Contains(err.Error(), `kube_reserved["cpu"]`) || !strings.Contains(err.Error(), `system_reserved["memory"]`) {
		t.Errorf("two bad keys: %v", err)
	}
	if _, err := Allocatable(Type{Name: "broken", VCPUs: 0, MemoryMiB: 1024, MaxPods: 10}, Kubelet{}); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("zero vCPUs: %v", err)
	}
}

func TestParseQuantity(t *testing.T) {
	bytes := map[string]int64{
		"1Gi": 1 << 30, "512Mi": 512 * mi, "1.5Ki": 1536, "1G": 1_000_000_000, "1k": 1000, "1e3": 1000, "1E3": 1000,
		"+2Ki": 2048, ".5Ki": 512, "0": 0, "1": 1, "100m": 1, // 0.1 byte rounds up
		"2Pi": 2 << 50,
	}
	for in, want := range bytes {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	millis := map[string]int64{"500m": 500, "2": 2000, "0.25": 250, "1500u": 2, "1e-3": 1, "250000n": 1}
	for in, want := range millis {
		if got, err := parseCPUMilli(in); err != nil || got != want {
			t.Errorf("parseCPUMilli(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Gi", "1.2.3", "-1", "1 Gi", "1e", "1e+", "1e123", "0x10", "1GiB", "Inf", "8Ei", "1E"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q): no error", in)
		}
	}
}
