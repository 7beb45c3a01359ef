package nodeclass

import (
	"encoding/json"
	"testing"
)

// FuzzValidateClass decodes a class configuration from JSON (Config's Go field names), reads it
// as the rules do and validates it: no panic, every finding on an attribute path, and a class
// without findings renders its EC2NodeClass.
func FuzzValidateClass(f *testing.F) {
	for _, c := range []Config{
		{Name: "default", Role: "NodeRole", AMISelectorTerms: []AMITerm{{Alias: "al2023@latest"}}},
		{Name: "x", InstanceProfile: "p", AMISelectorTerms: []AMITerm{{ID: "ami-1"}, {Name: "n", Owner: "self"}},
			Kubelet: &KubeletConfig{Config: map[string]any{"maxPods": 110.0}}, Networking: &NetworkingConfig{ReservedENIs: -1,
				CustomNetworking: &CustomNetworkingConfig{}}, Tags: map[string]string{"aws:x": "", "": ""}},
	} {
		b, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		if len(data) > 16<<10 || json.Unmarshal(data, &c) != nil {
			return
		}
		s, findings := c.Spec()
		findings = append(findings, Validate(s)...)
		for _, e := range findings {
			if len(e.Path.Steps()) == 0 || e.Message == "" {
				t.Fatalf("a finding without a path or a message: %+v", e)
			}
		}
		if len(findings) == 0 {
			if _, err := Manifest(s); err != nil {
				t.Fatalf("a valid class does not render: %v", err)
			}
		}
	})
}
