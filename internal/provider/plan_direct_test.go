package provider

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// echoResource has a directly planned resource's schema and identity (the node pool's or the
// node class's) and a ModifyPlan that only records what it was handed, and adds a warning on
// `name` and a replacement when asked: the framework's plan steps before ModifyPlan, and the
// direct planner's, are then compared on their own.
type echoResource struct {
	seen *[]tftypes.Value
	kind echoKind
}

// echoKind is a directly planned resource type.
type echoKind struct {
	typeName, identity string
	schema             func() schema.Schema
}

var (
	echoPool  = echoKind{"karpenter_node_pool", "NodePool", nodePoolSchema}
	echoClass = echoKind{"karpenter_node_class", "EC2NodeClass", nodeClassSchema}
)

func (r echoResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = r.kind.typeName
}
func (r echoResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.kind.schema()
}
func (r echoResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema(r.kind.identity)
}
func (r echoResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {}
func (r echoResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse)       {}
func (r echoResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {}
func (r echoResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
func (r echoResource) ModifyPlan(_ context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	*r.seen = append(*r.seen, req.Plan.Raw)
	if name := tfvalueString(req.Config.Raw, "name"); name == "warn" {
		if r.kind.typeName == echoPool.typeName {
			resp.Diagnostics.AddAttributeWarning(path.Root("template").AtName("requirements").AtListIndex(0), "A warning", "detail")
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas"), path.Root("replicas"))
		} else {
			resp.Diagnostics.AddAttributeWarning(path.Root("ami_selector_terms").AtListIndex(0), "A warning", "detail")
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("role"), path.Root("role"))
		}
	}
}

func tfvalueString(v tftypes.Value, name string) string {
	s := decoded[*string](objectAttrs(v)[name])
	if s == nil {
		return ""
	}
	return *s
}

type echoProvider struct {
	seen *[]tftypes.Value
	kind echoKind
}

func (p echoProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "karpenter"
}
func (p echoProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p echoProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (p echoProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return echoResource(p) }}
}
func (p echoProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// planCase is one PlanResourceChange: the configuration and prior state as attribute values
// (the rest null); the proposed new state is Terraform's: the configuration, with each computed
// attribute the configuration leaves null taken from the prior state.
type planCase struct {
	name          string
	config, prior map[string]tftypes.Value
}

func (c planCase) request(t *testing.T, kind echoKind, typ tftypes.Object) *tfprotov6.PlanResourceChangeRequest {
	t.Helper()
	s := kind.schema()
	obj := func(m map[string]tftypes.Value) tftypes.Value {
		if m == nil {
			return tftypes.NewValue(typ, nil)
		}
		full := map[string]tftypes.Value{}
		for name, at := range typ.AttributeTypes {
			full[name] = tftypes.NewValue(at, nil)
			if v, ok := m[name]; ok {
				full[name] = v
			}
		}
		return tftypes.NewValue(typ, full)
	}
	config, prior := obj(c.config), obj(c.prior)
	proposed := map[string]tftypes.Value{}
	for name := range typ.AttributeTypes {
		proposed[name] = objectAttrs(config)[name]
		if s.Attributes[name].IsComputed() && proposed[name].IsNull() && c.prior != nil {
			proposed[name] = objectAttrs(prior)[name]
		}
	}
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	return &tfprotov6.PlanResourceChangeRequest{TypeName: kind.typeName, Config: dv(config), PriorState: dv(prior),
		ProposedNewState: dv(tftypes.NewValue(typ, proposed))}
}

// The direct plan of a pool, and of a class, hands ModifyPlan the value the framework's plan
// steps hand it, and answers with the same planned state, replacement paths, identity and
// diagnostics, over creates, updates, no-op plans, replacements, nested defaults and unknown
// values.
func TestDirectPlanMatchesTheFramework(t *testing.T) {
	t.Run("pool", func(t *testing.T) { compareDirectPlans(t, echoPool, planCases) })
	t.Run("class", func(t *testing.T) { compareDirectPlans(t, echoClass, classPlanCases) })
}

func compareDirectPlans(t *testing.T, kind echoKind, cases func(tftypes.Object) []planCase) {
	ctx := context.Background()
	var frameworkSeen, directSeen []tftypes.Value
	srv, err := providerserver.NewProtocol6WithError(echoProvider{seen: &frameworkSeen, kind: kind})()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	direct, err := newDirectPlanner(ctx, kind.typeName, kind.schema(), nameIdentitySchema(kind.identity).Type().TerraformType(ctx),
		func(*Meta) resource.ResourceWithModifyPlan { return echoResource{seen: &directSeen, kind: kind} })
	if err != nil {
		t.Fatal(err)
	}
	typ := direct.typ
	compared := 0
	for _, c := range cases(typ) {
		t.Run(c.name, func(t *testing.T) {
			req := c.request(t, kind, typ)
			want, err := srv.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := direct.plan(ctx, &Meta{}, req)
			if !ok {
				t.Fatal("the direct plan declined a plan it covers")
			}
			compareResponses(t, typ, want, got)
			if len(frameworkSeen) != len(directSeen) || !frameworkSeen[len(frameworkSeen)-1].Equal(directSeen[len(directSeen)-1]) {
				t.Errorf("ModifyPlan was handed\n%v\nby the direct plan, the framework hands it\n%v", directSeen[len(directSeen)-1], frameworkSeen[len(frameworkSeen)-1])
			}
			compared++
		})
	}
	if compared < 8 {
		t.Fatalf("compared %d plans, want at least 8", compared)
	}
}

func compareResponses(t *testing.T, typ tftypes.Object, want, got *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if fmt.Sprint(diagSummaries(want.Diagnostics)) != fmt.Sprint(diagSummaries(got.Diagnostics)) {
		t.Errorf("diagnostics: got %v, want %v", diagSummaries(got.Diagnostics), diagSummaries(want.Diagnostics))
	}
	if fmt.Sprint(want.RequiresReplace) != fmt.Sprint(got.RequiresReplace) {
		t.Errorf("requires replace: got %v, want %v", got.RequiresReplace, want.RequiresReplace)
	}
	wv, err1 := want.PlannedState.Unmarshal(typ)
	gv, err2 := got.PlannedState.Unmarshal(typ)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !wv.Equal(gv) {
		t.Errorf("planned state:\n got %v\nwant %v", gv, wv)
	}
	if (want.PlannedIdentity == nil) != (got.PlannedIdentity == nil) {
		t.Errorf("planned identity: got %v, want %v", got.PlannedIdentity, want.PlannedIdentity)
	}
}

func diagSummaries(ds []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %s %s %v", d.Severity, d.Summary, d.Detail, d.Attribute))
	}
	return out
}

func planCases(typ tftypes.Object) []planCase {
	dis := typ.AttributeTypes["disruption"].(tftypes.Object)
	disruption := func(policy, after tftypes.Value) tftypes.Value {
		return tftypes.NewValue(dis, map[string]tftypes.Value{"consolidation_policy": policy, "consolidate_after": after,
			"budgets": tftypes.NewValue(dis.AttributeTypes["budgets"], nil)})
	}
	nullStr := tftypes.NewValue(tftypes.String, nil)
	base := func(name string) map[string]tftypes.Value { return map[string]tftypes.Value{"name": str(name)} }
	stored := with(with(with(with(base("general"), "id", str("general")), "owner_id", str("0123abcd")),
		"disruption", disruption(str("WhenEmpty"), str("0s"))), "manifest", str("kind: NodePool\n"))
	return []planCase{
		{name: "create", config: base("general")},
		{name: "create with disruption policy only", config: with(base("general"), "disruption", disruption(str("WhenEmpty"), nullStr))},
		{name: "create with disruption after only", config: with(base("general"), "disruption", disruption(nullStr, str("30s")))},
		{name: "create with unknown disruption", config: with(base("general"), "disruption", unknownOf(typ, "disruption"))},
		{name: "create with unknown name", config: with(base("general"), "name", unknownOf(typ, "name"))},
		{name: "create with a warning and replacement", config: base("warn")},
		{name: "no-op update", config: with(base("general"), "disruption", disruption(str("WhenEmpty"), nullStr)), prior: stored},
		{name: "update: defaults return", config: base("general"), prior: stored},
		{name: "update: weight", config: with(with(base("general"), "weight", tftypes.NewValue(tftypes.Number, 10)),
			"disruption", disruption(str("WhenEmpty"), nullStr)), prior: stored},
		{name: "rename replaces", config: base("other"), prior: stored},
		{name: "update with unknown name", config: with(base("general"), "name", unknownOf(typ, "name")), prior: stored},
	}
}

// str, unknownOf and with build the plan cases' attribute values.
func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func unknownOf(typ tftypes.Object, name string) tftypes.Value {
	return tftypes.NewValue(typ.AttributeTypes[name], tftypes.UnknownValue)
}

// with is m with k set to v (a copy).
func with(m map[string]tftypes.Value, k string, v tftypes.Value) map[string]tftypes.Value {
	out := maps.Clone(m)
	out[k] = v
	return out
}

// classPlanCases are a node class's plans: its nested defaults (metadata options, of which one
// an int64, and the connectivity checks' mode) partly or wholly configured, unknown, and back
// after an update; the name's replacement.
func classPlanCases(typ tftypes.Object) []planCase {
	nullStr := tftypes.NewValue(tftypes.String, nil)
	md := typ.AttributeTypes["metadata_options"].(tftypes.Object)
	metadata := func(tokens tftypes.Value, hops tftypes.Value) tftypes.Value {
		v := map[string]tftypes.Value{}
		for name, at := range md.AttributeTypes {
			v[name] = tftypes.NewValue(at, nil)
		}
		v["http_tokens"], v["http_put_response_hop_limit"] = tokens, hops
		return tftypes.NewValue(md, v)
	}
	conn := typ.AttributeTypes["connectivity"].(tftypes.Object)
	connectivity := func(checks tftypes.Value) tftypes.Value {
		v := map[string]tftypes.Value{}
		for name, at := range conn.AttributeTypes {
			v[name] = tftypes.NewValue(at, nil)
		}
		v["checks"] = checks
		return tftypes.NewValue(conn, v)
	}
	hops := func(n int) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	nullHops := tftypes.NewValue(tftypes.Number, nil)
	base := func(name string) map[string]tftypes.Value {
		return map[string]tftypes.Value{"name": str(name), "role": str("KarpenterNodeRole")}
	}
	stored := with(with(with(base("default"), "id", str("default")), "owner_id", str("0123abcd")),
		"metadata_options", metadata(str("optional"), hops(2)))
	return []planCase{
		{name: "create", config: base("default")},
		{name: "create with some metadata options", config: with(base("default"), "metadata_options", metadata(str("optional"), nullHops))},
		{name: "create with the int64 metadata option", config: with(base("default"), "metadata_options", metadata(nullStr, hops(3)))},
		{name: "create with unknown metadata options", config: with(base("default"), "metadata_options", unknownOf(typ, "metadata_options"))},
		{name: "create with connectivity but no checks", config: with(base("default"), "connectivity", connectivity(nullStr))},
		{name: "create with checks off", config: with(base("default"), "connectivity", connectivity(str("off")))},
		{name: "create with unknown name", config: with(base("default"), "name", unknownOf(typ, "name"))},
		{name: "create with a warning and replacement", config: base("warn")},
		{name: "no-op update", config: with(base("default"), "metadata_options", metadata(str("optional"), hops(2))), prior: stored},
		{name: "update: defaults return", config: base("default"), prior: stored},
		{name: "rename replaces", config: base("other"), prior: stored},
		{name: "update with unknown name", config: with(base("default"), "name", unknownOf(typ, "name")), prior: stored},
	}
}

// The direct planner refuses a schema with a rule it does not apply, rather than planning it
// differently from the framework.
func TestDirectPlannerRefusesUncoveredRules(t *testing.T) {
	ctx := context.Background()
	for name, a := range map[string]schema.Attribute{
		"nested modifier": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Optional: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}}}},
		"list modifier": schema.ListAttribute{Optional: true, ElementType: types.StringType,
			PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()}},
		"string default": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("x")},
		"computed inside configured": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Computed: true}}},
		"write-only": schema.StringAttribute{Optional: true, WriteOnly: true},
	} {
		s := schema.Schema{Attributes: map[string]schema.Attribute{"a": a}}
		_, err := newDirectPlanner(ctx, "x", s, nil, nil)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
