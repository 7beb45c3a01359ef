package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// poolConfigJSON is a pool configuration written as JSON (attributes left out are null).
func poolConfigJSON(t *testing.T, typ tftypes.Type, doc string) tftypes.Value {
	t.Helper()
	v, err := tftypes.ValueFromJSONWithOpts([]byte(doc), typ, tftypes.ValueFromJSONOpts{})
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return v
}

// The direct validation of a pool's configuration gives the diagnostics the framework's
// ValidateResourceConfig gives, over valid configurations and ones that break each kind of rule
// the schema has: read-only and required attributes, validators of strings, numbers and lists at
// the top level and inside nested lists, maps and objects, unknown values, and the resource's own
// ValidateConfig.
func TestDirectValidationMatchesTheFramework(t *testing.T) {
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	direct := newPoolValidator(ctx)
	reqs := []string{}
	for i := 0; i < 101; i++ {
		reqs = append(reqs, `{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}`)
	}
	budgets := strings.Repeat(`{"nodes":"1"},`, 51)
	cases := map[string]string{
		"valid":                    `{"name":"a","node_class":{"name":"c"},"template":{}}`,
		"missing required":         `{"name":"a"}`,
		"read-only set":            `{"name":"a","node_class":{},"template":{},"summary":{"instance_types":3},"owner_id":"x"}`,
		"weight out of range":      `{"name":"a","node_class":{},"template":{},"weight":0}`,
		"launcher":                 `{"name":"a","node_class":{},"template":{},"launcher":"someone","replicas":-1}`,
		"taint effect":             `{"name":"a","node_class":{},"template":{"taints":[{"key":"k","effect":"Sometimes"},{"effect":"NoSchedule"}]}}`,
		"too many requirements":    `{"name":"a","node_class":{},"template":{"requirements":[` + strings.Join(reqs, ",") + `]}}`,
		"workloads":                `{"name":"a","node_class":{},"template":{},"workloads":{"web":{"replicas":-2,"max_pods_per_node":0},"db":{}}}`,
		"budgets":                  `{"name":"a","node_class":{},"template":{},"disruption":{"budgets":[` + strings.TrimSuffix(budgets, ",") + `]}}`,
		"timeouts":                 `{"name":"a","node_class":{},"template":{},"timeouts":{"create":"soon"}}`,
		"spread without karpenter": `{"name":"a","node_class":{},"template":{},"spread":"zones","replicas":2,"min_values_policy":"Sometimes"}`,
		"resource rule":            `{"name":"a","node_class":{},"template":{"requirements":[{"key":"karpenter.sh/capacity-type","operator":"Gt","values":["x"]}]}}`,
	}
	compared, failing := 0, 0
	names := slices.Sorted(maps.Keys(cases))
	for _, name := range names {
		raw := poolConfigJSON(t, direct.typ, cases[name])
		compared += compareValidation(t, ctx, srv, direct, name, raw, &failing)
	}
	// Unknown values: the launcher and a whole requirement.
	raw := poolConfigJSON(t, direct.typ, `{"name":"a","node_class":{},"template":{}}`)
	attrs := objectAttrs(raw)
	attrs["launcher"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	attrs["weight"] = tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	compared += compareValidation(t, ctx, srv, direct, "unknown", tftypes.NewValue(direct.typ, attrs), &failing)
	if compared < 13 || failing < 9 {
		t.Fatalf("compared %d configurations (%d with errors), want at least 13 and 9", compared, failing)
	}
}

func compareValidation(t *testing.T, ctx context.Context, srv tfprotov6.ProviderServer, direct *directValidator, name string,
	raw tftypes.Value, failing *int) int {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(direct.typ, raw)
	if err != nil {
		t.Fatal(err)
	}
	req := &tfprotov6.ValidateResourceConfigRequest{TypeName: "karpenter_node_pool", Config: &dv}
	want, err := srv.ValidateResourceConfig(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := direct.validate(ctx, req)
	if !ok {
		t.Fatalf("%s: the direct validation declined", name)
	}
	w, g := sortedDiags(want.Diagnostics), sortedDiags(got.Diagnostics)
	if strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("%s: diagnostics differ\n got %s\nwant %s", name, strings.Join(g, "\n     "), strings.Join(w, "\n     "))
	}
	for _, d := range want.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			*failing++
			break
		}
	}
	return 1
}

func sortedDiags(ds []*tfprotov6.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s|%s|%s|%v", d.Severity, d.Summary, d.Detail, d.Attribute))
	}
	sort.Strings(out)
	return out
}
