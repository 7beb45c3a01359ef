package nodepool

import (
	"encoding/json"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// FuzzValidatePool decodes a pool configuration from JSON (Config's Go field names) and
// validates it and its requirements: no panic, every finding on an attribute path, and a pool
// without findings renders its NodePool.
func FuzzValidatePool(f *testing.F) {
	policy, after, weight := "WhenEmpty", "30s", 10
	for _, c := range []Config{
		{Name: "general", Template: &Template{Requirements: []requirements.Requirement{
			{Key: requirements.LabelCapacityType, Operator: requirements.OpIn, Values: []string{"on-demand"}},
			{Key: "karpenter.k8s.aws/instance-generation", Operator: requirements.OpGt, Values: []string{"2"}}}},
			Limits: map[string]string{"cpu": "1000"}, Weight: &weight},
		{Name: "x", Template: &Template{ExpireAfter: "Never", Labels: map[string]string{"karpenter.sh/nodepool": "y"}},
			Disruption: &Disruption{ConsolidationPolicy: &policy, ConsolidateAfter: &after, Budgets: []Budget{{Nodes: "10%"}}}},
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
		findings := append(requirements.Validate(c.Requirements()), Validate(c.Spec())...)
		for _, e := range findings {
			if e.Message == "" {
				t.Fatalf("a finding without a message: %+v", e)
			}
		}
		for _, e := range Validate(c.Spec()) { // requirements' findings are relative to template.requirements
			if len(e.Path.Steps()) == 0 {
				t.Fatalf("a finding without a path: %+v", e)
			}
		}
		if len(findings) == 0 {
			if _, err := Manifest(c.Spec(), "default"); err != nil {
				t.Fatalf("a valid pool does not render: %v", err)
			}
		}
	})
}
