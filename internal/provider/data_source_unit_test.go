package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

type term struct {
	tags     map[string]string
	id, name string
}

// termsConfig builds a data-source config value with the given selector terms; withName adds
// the security-group `name` attribute to the term object type.
func termsConfig(t *testing.T, ds datasource.DataSource, terms []term, withName bool) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var sresp datasource.SchemaResponse
	ds.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	termType := objType.AttributeTypes["selector_terms"].(tftypes.List).ElementType.(tftypes.Object)

	var list []tftypes.Value
	for _, tm := range terms {
		attrs := map[string]tftypes.Value{
			"tags": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil),
			"id":   tftypes.NewValue(tftypes.String, nil),
		}
		if tm.tags != nil {
			m := map[string]tftypes.Value{}
			for k, v := range tm.tags {
				m[k] = tftypes.NewValue(tftypes.String, v)
			}
			attrs["tags"] = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, m)
		}
		if tm.id != "" {
			attrs["id"] = tftypes.NewValue(tftypes.String, tm.id)
		}
		if withName {
			attrs["name"] = tftypes.NewValue(tftypes.String, nil)
			if tm.name != "" {
				attrs["name"] = tftypes.NewValue(tftypes.String, tm.name)
			}
		}
		list = append(list, tftypes.NewValue(termType, attrs))
	}
	vals := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		vals[name] = tftypes.NewValue(typ, nil)
	}
	vals["selector_terms"] = tftypes.NewValue(objType.AttributeTypes["selector_terms"], list)
	return tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, vals)}
}

func errorPaths(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		if dp, ok := d.(diag.DiagnosticWithPath); ok {
			out = append(out, dp.Path().String())
		}
	}
	return out
}

func TestSubnetsValidateConfig_paths(t *testing.T) {
	cases := []struct {
		name  string
		terms []term
		want  []string
	}{
		{"id and tags", []term{{tags: map[string]string{"a": "b"}, id: "subnet-1"}}, []string{"selector_terms[0].id"}},
		{"bad id in second term", []term{{id: "subnet-1"}, {id: "sn-2"}}, []string{"selector_terms[1].id"}},
		{"empty tag value", []term{{tags: map[string]string{"team": ""}}}, []string{`selector_terms[0].tags["team"]`}},
		{"empty term", []term{{}}, []string{"selector_terms[0]"}},
		{"valid", []term{{tags: map[string]string{"a": "*"}}, {id: "subnet-0abc"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := &subnetsDataSource{} // unconfigured: any API call would panic
			var resp datasource.ValidateConfigResponse
			ds.ValidateConfig(context.Background(), datasource.ValidateConfigRequest{Config: termsConfig(t, ds, c.terms, false)}, &resp)
			got := errorPaths(resp.Diagnostics)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("error paths = %v, want %v (diags: %v)", got, c.want, resp.Diagnostics)
			}
		})
	}
}

func TestSecurityGroupsValidateConfig_paths(t *testing.T) {
	cases := []struct {
		name  string
		terms []term
		want  []string
	}{
		{"name and tags", []term{{tags: map[string]string{"a": "b"}, name: "x"}}, []string{"selector_terms[0].name"}},
		{"id and name", []term{{id: "sg-1", name: "x"}}, []string{"selector_terms[0].id"}},
		{"bad id", []term{{id: "sg_1"}}, []string{"selector_terms[0].id"}},
		{"valid", []term{{name: "default"}, {id: "sg-0abc"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := &securityGroupsDataSource{}
			var resp datasource.ValidateConfigResponse
			ds.ValidateConfig(context.Background(), datasource.ValidateConfigRequest{Config: termsConfig(t, ds, c.terms, true)}, &resp)
			got := errorPaths(resp.Diagnostics)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("error paths = %v, want %v (diags: %v)", got, c.want, resp.Diagnostics)
			}
		})
	}
}

// readWithFake runs Read against a fake EC2 that matches nothing.
func readWithFake(t *testing.T, ds datasource.DataSource, cfg tfsdk.Config) datasource.ReadResponse {
	t.Helper()
	resp := datasource.ReadResponse{State: tfsdk.State(cfg)}
	ds.Read(context.Background(), datasource.ReadRequest{Config: cfg}, &resp)
	return resp
}

func TestNoMatchWarns(t *testing.T) {
	fake := &awsfake.EC2{}
	meta := &Meta{Client: &awsclient.Client{EC2: fake, Region: "ap-southeast-1", Calls: awsclient.NewCallCounter()}}
	wantPath := path.Root("selector_terms")

	sub := &subnetsDataSource{meta: meta}
	resp := readWithFake(t, sub, termsConfig(t, sub, []term{{tags: map[string]string{"a": "b"}}}, false))
	assertSingleWarning(t, resp.Diagnostics, wantPath, "No subnet matched")

	sg := &securityGroupsDataSource{meta: meta}
	resp = readWithFake(t, sg, termsConfig(t, sg, []term{{name: "nothing"}}, true))
	assertSingleWarning(t, resp.Diagnostics, wantPath, "No security group matched")

	if n := fake.Calls("DescribeSubnets", "DescribeSecurityGroups"); n != 2 {
		t.Fatalf("expected one EC2 call per data source, got %d", n)
	}
}

func assertSingleWarning(t *testing.T, diags diag.Diagnostics, p path.Path, summary string) {
	t.Helper()
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	w := diags.Warnings()
	if len(w) != 1 || w[0].Summary() != summary {
		t.Fatalf("warnings = %v, want one %q", w, summary)
	}
	if dp, ok := w[0].(diag.DiagnosticWithPath); !ok || !dp.Path().Equal(p) {
		t.Fatalf("warning path = %v, want %s", w[0], p)
	}
}
