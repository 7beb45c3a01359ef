package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestResolvable(t *testing.T) {
	path := func(steps ...tftypes.AttributePathStep) *tftypes.AttributePath {
		return tftypes.NewAttributePathWithSteps(steps)
	}
	name := func(s string) tftypes.AttributePathStep { return tftypes.AttributeName(s) }
	for _, tc := range []struct {
		name       string
		in         *tftypes.AttributePath
		wantPath   string
		wantDetail string
	}{
		{"a top-level attribute stays", path(name("name")), "name", "bad"},
		{"one index stays", path(name("subnet_selector_terms"), tftypes.ElementKeyInt(1)), "subnet_selector_terms[1]", "bad"},
		{"one key stays", path(name("tags"), tftypes.ElementKeyString("aws:owner")), `tags["aws:owner"]`, "bad"},
		{"a nested attribute goes", path(name("template"), name("taints"), tftypes.ElementKeyInt(0), name("value")), "template",
			"template.taints[0].value: bad"},
		{"past an index goes", path(name("subnet_selector_terms"), tftypes.ElementKeyInt(0), name("name")), "subnet_selector_terms[0]",
			"subnet_selector_terms[0].name: bad"},
		{"a key in a nested map goes", path(name("kubelet"), name("eviction_hard"), tftypes.ElementKeyString("memory.available")), "kubelet",
			`kubelet.eviction_hard["memory.available"]: bad`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: "s", Detail: "bad", Attribute: tc.in}
			resolvable([]*tfprotov6.Diagnostic{d, nil, {Detail: "no path"}})
			if got := terraformPath(d.Attribute.Steps()); got != tc.wantPath || d.Detail != tc.wantDetail {
				t.Errorf("%s, %q; want %s, %q", got, d.Detail, tc.wantPath, tc.wantDetail)
			}
			resolvable([]*tfprotov6.Diagnostic{d}) // idempotent
			if d.Detail != tc.wantDetail {
				t.Errorf("a second pass changed the detail to %q", d.Detail)
			}
		})
	}
}
