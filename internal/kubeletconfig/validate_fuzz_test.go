package kubeletconfig

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzKubeletConfig reads a kubelet.config from JSON or YAML, as a person writes it, and runs
// every rule on it for each AMI family: no panic, every problem worded, and the max pods of a
// config the rules accept resolves for an instance type.
func FuzzKubeletConfig(f *testing.F) {
	for _, seed := range []string{
		`{"maxPods": 110}`,
		`{"podsPerCore": 4, "systemReserved": {"cpu": "100m", "memory": "100Mi"}, "evictionHard": {"memory.available": "5%"}}`,
		`{"maxPods": "self.eniLimitedPods - 2", "kubeReserved": {"memory": "self.maxPods * 11 + 255"}}`,
		`{"cpuManagerPolicy": "static", "clusterDNS": ["10.100.0.10"], "bogus": true}`,
		`maxPods: -1`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	families := []string{"AL2023", "AL2", "Bottlerocket", "Windows2022", "Custom", ""}
	inst := Instance{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, DefaultENIs: 3}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		var config map[string]any
		if len(data) > 8<<10 || yaml.Unmarshal(data, &config) != nil {
			return
		}
		family, gates := families[int(which)%len(families)], which&0x80 != 0
		problems := Validate(config)
		problems = append(problems, FamilyProblems(family, config)...)
		problems = append(problems, ExpressionProblems(config)...)
		problems = append(problems, GateProblems(config, gates)...)
		problems = append(problems, InstanceProblems(family, config, inst)...)
		_, checked := Check(family, config, gates)
		problems = append(problems, checked...)
		for _, p := range problems {
			if p.Message == "" {
				t.Fatalf("a problem without a message: %+v", p)
			}
		}
		_ = UnmanagedFields(config)
		_, _ = ResolveMaxPods(family, config, inst, gates)
	})
}
