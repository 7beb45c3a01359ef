package nodepool

import (
	"strings"
	"testing"
)

func intp(i int) *int { return &i }

func base() Spec {
	return Spec{Name: "general", ConsolidationPolicy: PolicyWhenEmptyOrUnderutilized, ConsolidateAfter: "30s",
		Labels: map[string]string{"team": "platform"}, ExpireAfter: "720h", Limits: map[string]string{"cpu": "1000", "memory": "1000Gi"}}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		mut     func(*Spec)
		path    string // "" = valid
		message string
	}{
		{"valid", func(*Spec) {}, "", ""},
		{"valid static pool", func(s *Spec) { s.Replicas = intp(3); s.Limits = map[string]string{"nodes": "5"} }, "", ""},
		{"bad name", func(s *Spec) { s.Name = "General_Pool" }, "name", "not a valid Kubernetes object name"},
		{"bad name says the rule", func(s *Spec) { s.Name = "General_Pool" }, "name", "RFC 1123 subdomain must consist of lower case alphanumeric"},
		{"name too long", func(s *Spec) { s.Name = strings.Repeat("a", 254) }, "name", "must be no more than 253 characters"},
		{"name of 253", func(s *Spec) { s.Name = strings.Repeat("a", 253) }, "", ""},
		{"restricted label", func(s *Spec) { s.Labels = map[string]string{"kubernetes.io/hostname": "x"} }, `template.labels["kubernetes.io/hostname"]`, "hostname"},
		{"bad label value", func(s *Spec) { s.Labels = map[string]string{"team": "a b"} }, `template.labels["team"]`, "not a valid label value"},
		{"bad expire_after", func(s *Spec) { s.ExpireAfter = "30 days" }, "template.expire_after", "not a duration"},
		{"bad termination grace", func(s *Spec) { s.TerminationGracePeriod = "Never" }, "template.termination_grace_period", "not a duration"},
		{"bad policy", func(s *Spec) { s.ConsolidationPolicy = "Always" }, "disruption.consolidation_policy", "not a consolidation policy"},
		{"bad consolidate_after", func(s *Spec) { s.ConsolidateAfter = "soon" }, "disruption.consolidate_after", "not a duration"},
		{"budget nodes", func(s *Spec) { s.Budgets = []Budget{{Nodes: "110%"}} }, "disruption.budgets[0].nodes", "percentage"},
		{"budget reason", func(s *Spec) { s.Budgets = []Budget{{Reasons: []string{"Expired"}}} }, "disruption.budgets[0].reasons", "not a disruption reason"},
		{"schedule without duration", func(s *Spec) { s.Budgets = []Budget{{Schedule: "@daily"}} }, "disruption.budgets[0]", "go together"},
		{"bad budget duration", func(s *Spec) { s.Budgets = []Budget{{Schedule: "@daily", Duration: "1d"}} }, "disruption.budgets[0].duration", "budget duration"},
		{"negative limit", func(s *Spec) { s.Limits = map[string]string{"cpu": "-1"} }, `limits["cpu"]`, "non-negative quantity"},
		{"junk limit", func(s *Spec) { s.Limits = map[string]string{"memory": "lots"} }, `limits["memory"]`, "non-negative quantity"},
		{"replicas with weight", func(s *Spec) { s.Replicas = intp(2); s.Weight = intp(10); s.Limits = nil }, "weight", "not allowed on a static pool"},
		{"replicas with cpu limit", func(s *Spec) { s.Replicas = intp(2); s.Limits = map[string]string{"cpu": "10"} }, `limits["cpu"]`, "may only limit `nodes`"},
		{"replicas above nodes limit", func(s *Spec) { s.Replicas = intp(4); s.Limits = map[string]string{"nodes": "3"} }, "replicas", "exceeds limits.nodes"},
		{"negative replicas", func(s *Spec) { s.Replicas = intp(-1); s.Limits = nil }, "replicas", "0 or more"},
		{"weight out of range", func(s *Spec) { s.Weight = intp(101) }, "weight", "between 1 and 100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			c.mut(&s)
			errs := Validate(s)
			if c.path == "" {
				if len(errs) != 0 {
					t.Fatalf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Path.String() != c.path || !strings.Contains(errs[0].Message, c.message) {
				t.Fatalf("errors = %+v, want one at %s containing %q", errs, c.path, c.message)
			}
		})
	}
}

func TestValidate_whenUnderutilizedIsRefusedWithTheV1Name(t *testing.T) {
	s := base()
	s.ConsolidationPolicy = PolicyWhenUnderutilized
	errs := Validate(s)
	if len(errs) != 1 || errs[0].Path.String() != "disruption.consolidation_policy" || !strings.Contains(errs[0].Message, "write that") ||
		!strings.Contains(errs[0].Message, PolicyWhenEmptyOrUnderutilized) {
		t.Fatalf("errors = %v", errs)
	}
}

// A disruption block with budgets alone takes the CRD's defaults for the rest, as the API
// server does, and validates.
func TestDisruptionDefaultsPerField(t *testing.T) {
	never := "Never"
	c := Config{Name: "general", Disruption: &Disruption{Budgets: []Budget{{Nodes: "10%"}}}}
	s := c.Spec()
	if s.ConsolidationPolicy != PolicyWhenEmptyOrUnderutilized || s.ConsolidateAfter != "0s" || len(s.Budgets) != 1 {
		t.Fatalf("spec %+v", s)
	}
	if problems := Validate(s); len(problems) > 0 {
		t.Errorf("budgets alone: %v", problems)
	}
	c.Disruption.ConsolidateAfter = &never
	if s = c.Spec(); s.ConsolidateAfter != "Never" || s.ConsolidationPolicy != PolicyWhenEmptyOrUnderutilized {
		t.Errorf("an explicit value: %+v", s)
	}
}
