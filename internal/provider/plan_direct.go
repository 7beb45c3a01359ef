package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A node pool's plan is the provider's hot path: a configuration has one class and many pools,
// and each pool's PlanResourceChange went through the plugin framework's generic plan steps
// before the pool's ModifyPlan ran. Those steps walk the pool's whole value once per top-level
// attribute (tftypes.Transform), and every node of each walk looks its attribute up from the
// schema's root, which copies the schema's attribute map (schema.GetAttributes): at 100 pools
// about half of the plan process's CPU went there, against 18 % for the pool's own plan.
//
// directPlanner serves PlanResourceChange for one resource type itself: it decodes the request
// once, applies the schema's rules (defaults, computed attributes unknown, the plan modifiers)
// to the top-level attributes in one pass, calls the resource's ModifyPlan, and encodes the
// answer once: the plan is written once, not attribute by attribute. It does what the framework
// does for that schema and no more: newDirectPlanner refuses a schema with a rule it does not
// handle (a plan modifier below the top level or on a non-string, a default other than an
// object's and its string attributes', a computed attribute inside a configured object,
// write-only attributes, blocks), and the tests compare its answers with the framework's.
type directPlanner struct {
	typeName string
	typ      tftypes.Object
	schema   schema.Schema
	identity tftypes.Type
	// newResource is the resource whose ModifyPlan plans, configured with the provider's data.
	newResource func(meta *Meta) resource.ResourceWithModifyPlan
	attrs       []directAttr
}

// directAttr is what the direct plan reads of one top-level attribute.
type directAttr struct {
	name     string
	computed bool
	// def is the attribute's default (nil: none); nested are the defaults of a single nested
	// object's attributes, applied when the object is configured without them.
	def       *tftypes.Value
	nested    map[string]tftypes.Value
	modifiers []planmodifier.String
}

// newDirectPlanner reads s once; it fails on a schema the direct plan does not cover.
func newDirectPlanner(ctx context.Context, typeName string, s schema.Schema, identity tftypes.Type,
	newResource func(meta *Meta) resource.ResourceWithModifyPlan) (*directPlanner, error) {
	if len(s.Blocks) > 0 {
		return nil, fmt.Errorf("%s: blocks are not planned directly", typeName)
	}
	typ, ok := s.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("%s: the schema is not an object", typeName)
	}
	p := &directPlanner{typeName: typeName, typ: typ, schema: s, identity: identity, newResource: newResource}
	for _, name := range slices.Sorted(maps.Keys(s.Attributes)) {
		a, err := directAttrOf(ctx, name, s.Attributes[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", typeName, err)
		}
		p.attrs = append(p.attrs, a)
	}
	return p, nil
}

// directAttrOf reads one top-level attribute's rules.
func directAttrOf(ctx context.Context, name string, a schema.Attribute) (directAttr, error) {
	out := directAttr{name: name, computed: a.IsComputed()}
	switch a := a.(type) {
	case schema.StringAttribute:
		if a.Default != nil {
			return out, fmt.Errorf("%s: a string default is not planned directly", name)
		}
		out.modifiers = a.PlanModifiers
		return out, checkRules(name, a, false)
	case schema.SingleNestedAttribute:
		if len(a.PlanModifiers) > 0 {
			return out, fmt.Errorf("%s: object plan modifiers are not planned directly", name)
		}
		if a.Default != nil {
			resp := &defaults.ObjectResponse{}
			a.Default.DefaultObject(ctx, defaults.ObjectRequest{Path: path.Root(name)}, resp)
			v, err := resp.PlanValue.ToTerraformValue(ctx)
			if err != nil || resp.Diagnostics.HasError() {
				return out, fmt.Errorf("%s: its default: %v %v", name, err, resp.Diagnostics)
			}
			out.def = &v
		}
		nested, err := nestedDefaults(ctx, name, a)
		out.nested = nested
		return out, err
	}
	return out, checkRules(name, a, false)
}

// nestedDefaults are the string and int64 defaults of a single nested object's attributes; any
// other rule inside it is refused.
func nestedDefaults(ctx context.Context, name string, a schema.SingleNestedAttribute) (map[string]tftypes.Value, error) {
	out := map[string]tftypes.Value{}
	for _, n := range slices.Sorted(maps.Keys(a.Attributes)) {
		at := name + "." + n
		v, modifiers, ok := scalarDefault(ctx, path.Root(name).AtName(n), a.Attributes[n])
		if !ok {
			if err := checkRules(at, a.Attributes[n], a.IsComputed()); err != nil {
				return nil, err
			}
			continue
		}
		if modifiers > 0 {
			return nil, fmt.Errorf("%s: nested plan modifiers are not planned directly", at)
		}
		tv, err := v.value.ToTerraformValue(ctx)
		if err != nil || v.diags.HasError() {
			return nil, fmt.Errorf("%s: its default: %v %v", at, err, v.diags)
		}
		out[n] = tv
	}
	return out, nil
}

// defaultAnswer is what a scalar attribute's default gave.
type defaultAnswer struct {
	value interface {
		ToTerraformValue(context.Context) (tftypes.Value, error)
	}
	diags diag.Diagnostics
}

// scalarDefault is the default of a string or int64 attribute at p and its count of plan
// modifiers; false for another attribute or one without a default.
func scalarDefault(ctx context.Context, p path.Path, a schema.Attribute) (defaultAnswer, int, bool) {
	switch a := a.(type) {
	case schema.StringAttribute:
		if a.Default != nil {
			resp := &defaults.StringResponse{}
			a.Default.DefaultString(ctx, defaults.StringRequest{Path: p}, resp)
			return defaultAnswer{resp.PlanValue, resp.Diagnostics}, len(a.PlanModifiers), true
		}
	case schema.Int64Attribute:
		if a.Default != nil {
			resp := &defaults.Int64Response{}
			a.Default.DefaultInt64(ctx, defaults.Int64Request{Path: p}, resp)
			return defaultAnswer{resp.PlanValue, resp.Diagnostics}, len(a.PlanModifiers), true
		}
	}
	return defaultAnswer{}, 0, false
}

// checkRules refuses, anywhere in a (an attribute at the given path), what the direct plan does
// not apply: plan modifiers and defaults below the top level, write-only attributes, and
// computed attributes inside a configured (not computed) parent.
func checkRules(at string, a schema.Attribute, parentComputed bool) error {
	if a.IsWriteOnly() {
		return fmt.Errorf("%s: write-only attributes are not planned directly", at)
	}
	v := reflect.ValueOf(a)
	top := !strings.Contains(at, ".")
	if f := v.FieldByName("PlanModifiers"); f.IsValid() && f.Len() > 0 {
		if _, ok := a.(schema.StringAttribute); !ok || !top {
			return fmt.Errorf("%s: plan modifiers are planned directly only on top-level strings", at)
		}
	}
	if f := v.FieldByName("Default"); f.IsValid() && !f.IsNil() {
		return fmt.Errorf("%s: this default is not planned directly", at)
	}
	if !top && a.IsComputed() && !parentComputed {
		return fmt.Errorf("%s: a computed attribute inside a configured one is not planned directly", at)
	}
	var children map[string]schema.Attribute
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		children = a.Attributes
	case schema.ListNestedAttribute:
		children = a.NestedObject.Attributes
	case schema.MapNestedAttribute:
		children = a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		children = a.NestedObject.Attributes
	}
	for _, n := range slices.Sorted(maps.Keys(children)) {
		if err := checkRules(at+"."+n, children[n], parentComputed || a.IsComputed()); err != nil {
			return err
		}
	}
	return nil
}

// plan answers a PlanResourceChange; handled is false when the framework should answer it (a
// destroy, or a provider not configured yet).
func (p *directPlanner) plan(ctx context.Context, meta *Meta, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	if meta == nil {
		return nil, false
	}
	config, err1 := p.decode(req.Config)
	prior, err2 := p.decode(req.PriorState)
	proposed, err3 := p.decode(req.ProposedNewState)
	if err := firstErr(err1, err2, err3); err != nil || proposed.IsNull() {
		return nil, false // the framework reports the error, or plans the destroy
	}
	var diags diag.Diagnostics
	planned := p.withDefaults(proposed, config)
	if !planned.Equal(prior) {
		planned = p.computedUnknown(planned, config)
	}
	replace := p.modify(ctx, config, prior, &planned, &diags)
	if !diags.HasError() {
		mreq := resource.ModifyPlanRequest{Config: tfsdk.Config{Raw: config, Schema: p.schema},
			Plan: tfsdk.Plan{Raw: planned, Schema: p.schema}, State: tfsdk.State{Raw: prior, Schema: p.schema}}
		mresp := resource.ModifyPlanResponse{Plan: mreq.Plan, Diagnostics: diags}
		p.newResource(meta).ModifyPlan(ctx, mreq, &mresp)
		diags, planned = mresp.Diagnostics, mresp.Plan.Raw
		replace = append(replace, mresp.RequiresReplace...)
	}
	return p.response(ctx, planned, replace, diags, req), true
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// decode reads a request's value; a missing one is null.
func (p *directPlanner) decode(v *tfprotov6.DynamicValue) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(p.typ, nil), nil
	}
	return v.Unmarshal(p.typ)
}

// withDefaults sets the defaults of the attributes the configuration leaves null.
func (p *directPlanner) withDefaults(plan, config tftypes.Value) tftypes.Value {
	pa, ca := objectAttrs(plan), objectAttrs(config)
	changed := false
	for _, a := range p.attrs {
		switch {
		case a.def != nil && ca[a.name].IsNull():
			pa[a.name], changed = *a.def, true
		case len(a.nested) > 0 && !ca[a.name].IsNull() && ca[a.name].IsKnown() && pa[a.name].IsKnown():
			np, nc := objectAttrs(pa[a.name]), objectAttrs(ca[a.name])
			for n, def := range a.nested {
				if nc[n].IsNull() {
					np[n], changed = def, true
				}
			}
			pa[a.name] = tftypes.NewValue(pa[a.name].Type(), np)
		}
	}
	if !changed {
		return plan
	}
	return tftypes.NewValue(p.typ, pa)
}

// computedUnknown plans as unknown every computed attribute the configuration leaves null and
// no default fills: the resource's plan then sets what it knows.
func (p *directPlanner) computedUnknown(plan, config tftypes.Value) tftypes.Value {
	pa, ca := objectAttrs(plan), objectAttrs(config)
	for _, a := range p.attrs {
		if a.computed && a.def == nil && ca[a.name].IsNull() {
			pa[a.name] = tftypes.NewValue(p.typ.AttributeTypes[a.name], tftypes.UnknownValue)
		}
	}
	return tftypes.NewValue(p.typ, pa)
}

// objectAttrs copies an object value's attributes (nil for a null or unknown value).
func objectAttrs(v tftypes.Value) map[string]tftypes.Value {
	var m map[string]tftypes.Value
	if !v.IsKnown() || v.IsNull() || v.As(&m) != nil {
		return map[string]tftypes.Value{}
	}
	return m
}

// modify runs the top-level string attributes' plan modifiers, in the schema's order, and
// returns the paths whose change replaces the resource.
func (p *directPlanner) modify(ctx context.Context, config, prior tftypes.Value, plan *tftypes.Value, diags *diag.Diagnostics) path.Paths {
	var replace path.Paths
	pa, ca, sa := objectAttrs(*plan), objectAttrs(config), objectAttrs(prior)
	changed := false
	for _, a := range p.attrs {
		if len(a.modifiers) == 0 {
			continue
		}
		at := path.Root(a.name)
		req := planmodifier.StringRequest{Path: at, PathExpression: at.Expression(),
			Config: tfsdk.Config{Raw: config, Schema: p.schema}, ConfigValue: stringOf(ca[a.name]),
			Plan: tfsdk.Plan{Raw: *plan, Schema: p.schema}, PlanValue: stringOf(pa[a.name]),
			State: tfsdk.State{Raw: prior, Schema: p.schema}, StateValue: stringOf(sa[a.name])}
		for _, m := range a.modifiers {
			resp := &planmodifier.StringResponse{PlanValue: req.PlanValue}
			m.PlanModifyString(ctx, req, resp)
			diags.Append(resp.Diagnostics...)
			if resp.RequiresReplace {
				replace = append(replace, at)
			}
			req.PlanValue = resp.PlanValue
		}
		v, err := req.PlanValue.ToTerraformValue(ctx)
		if err != nil {
			diags.AddAttributeError(at, "Cannot plan the attribute", err.Error())
			continue
		}
		if !v.Equal(pa[a.name]) {
			pa[a.name], changed = v, true
		}
	}
	if changed {
		*plan = tftypes.NewValue(p.typ, pa)
	}
	return replace
}

// stringOf is a raw string as the framework's plan modifiers read it (a null of a missing value).
func stringOf(v tftypes.Value) types.String {
	var s string
	switch {
	case v.Type() == nil || v.IsNull():
		return types.StringNull()
	case !v.IsKnown():
		return types.StringUnknown()
	case v.As(&s) != nil:
		return types.StringNull()
	}
	return types.StringValue(s)
}

// response encodes the plan as the framework would: the planned state, the replacement paths
// sorted and without duplicates, the prior private data and identity, and the diagnostics.
func (p *directPlanner) response(ctx context.Context, planned tftypes.Value, replace path.Paths, diags diag.Diagnostics,
	req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedPrivate: req.PriorPrivate, Diagnostics: protoDiagnostics(ctx, diags)}
	if req.PriorIdentity != nil {
		resp.PlannedIdentity = req.PriorIdentity
	} else if p.identity != nil {
		if dv, err := tfprotov6.NewDynamicValue(p.identity, tftypes.NewValue(p.identity, nil)); err == nil {
			resp.PlannedIdentity = &tfprotov6.ResourceIdentityData{IdentityData: &dv}
		}
	}
	if diags.HasError() {
		return resp
	}
	dv, err := tfprotov6.NewDynamicValue(p.typ, planned)
	if err != nil {
		resp.Diagnostics = append(resp.Diagnostics, &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError,
			Summary: "Cannot encode the plan", Detail: err.Error() + "; this is a bug in the provider"})
		return resp
	}
	resp.PlannedState = &dv
	seen := map[string]bool{}
	for _, at := range replace {
		if key := at.String(); !seen[key] {
			seen[key] = true
			resp.RequiresReplace = append(resp.RequiresReplace, protoPath(ctx, at))
		}
	}
	sort.Slice(resp.RequiresReplace, func(i, j int) bool {
		return resp.RequiresReplace[i].String() < resp.RequiresReplace[j].String()
	})
	return resp
}

// protoDiagnostics are diagnostics as the protocol carries them.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: d.Summary(), Detail: d.Detail()}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if dp, ok := d.(diag.DiagnosticWithPath); ok && len(dp.Path().Steps()) > 0 {
			pd.Attribute = protoPath(ctx, dp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// protoPath is a framework path as the protocol carries it.
func protoPath(ctx context.Context, p path.Path) *tftypes.AttributePath {
	out := tftypes.NewAttributePath()
	for _, s := range p.Steps() {
		switch s := s.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(s))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(s))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(s))
		case path.PathStepElementKeyValue:
			v, err := s.ToTerraformValue(ctx)
			if err != nil {
				return out
			}
			out = out.WithElementKeyValue(v)
		}
	}
	return out
}

// newPoolPlanner is the direct plan of karpenter_node_pool.
func newPoolPlanner(ctx context.Context) (*directPlanner, error) {
	return newDirectPlanner(ctx, "karpenter_node_pool", nodePoolSchema(), nameIdentitySchema("NodePool").Type().TerraformType(ctx),
		func(meta *Meta) resource.ResourceWithModifyPlan { return &nodePoolResource{meta: meta} })
}

// newClassPlanner is the direct planner of karpenter_node_class: one per plan, but its framework
// plan steps were a tenth of the class's plan against the emulator, on the path every pool
// waits on.
func newClassPlanner(ctx context.Context) (*directPlanner, error) {
	return newDirectPlanner(ctx, "karpenter_node_class", nodeClassSchema(), nameIdentitySchema("EC2NodeClass").Type().TerraformType(ctx),
		func(meta *Meta) resource.ResourceWithModifyPlan { return &nodeClassResource{meta: meta} })
}
