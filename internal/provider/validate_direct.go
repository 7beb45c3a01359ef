package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform validates each resource's configuration in the validate process and again in the
// plan process. The framework's ValidateResourceConfig first walks the whole value to null its
// empty collection blocks (a schema without blocks has none) and then looks every attribute up
// from the schema's root: after the direct plan, that was a quarter of the plan process's CPU at
// 100 pools. directValidator validates a resource type's configuration with one decode and one
// walk of the schema beside the value: the resource's ValidateConfig, then each attribute's
// rules as the framework's SchemaValidate applies them (read-only and required attributes, the
// validators of every type, nested attributes element by element, deprecations). A test
// compares its diagnostics with the framework's.
type directValidator struct {
	typeName string
	schema   schema.Schema
	typ      tftypes.Type
	newRes   func() resource.ResourceWithValidateConfig
}

// validate answers a ValidateResourceConfig; handled is false when the framework should.
func (v *directValidator) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, bool) {
	if req.Config == nil {
		return nil, false
	}
	raw, err := req.Config.Unmarshal(v.typ)
	if err != nil {
		return nil, false // the framework reports it
	}
	config := tfsdk.Config{Raw: raw, Schema: v.schema}
	vreq := resource.ValidateConfigRequest{Config: config}
	if req.ClientCapabilities != nil {
		vreq.ClientCapabilities.WriteOnlyAttributesAllowed = req.ClientCapabilities.WriteOnlyAttributesAllowed
	}
	vresp := &resource.ValidateConfigResponse{}
	v.newRes().ValidateConfig(ctx, vreq, vresp)
	diags := vresp.Diagnostics
	w := attrWalk{config: config, writeOnlyAllowed: vreq.ClientCapabilities.WriteOnlyAttributesAllowed, diags: &diags}
	values := objectAttrs(raw)
	for _, name := range slices.Sorted(maps.Keys(v.schema.Attributes)) {
		w.attribute(ctx, v.schema.Attributes[name], path.Root(name), values[name])
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(ctx, diags)}, true
}

// attrWalk validates attributes against one configuration.
type attrWalk struct {
	config           tfsdk.Config
	writeOnlyAllowed bool
	diags            *diag.Diagnostics
}

// attribute validates one attribute's value (a null of its type when missing) and, through
// nestedAttributes, what it nests.
func (w attrWalk) attribute(ctx context.Context, a schema.Attribute, at path.Path, raw tftypes.Value) {
	if raw.Type() == nil {
		raw = tftypes.NewValue(a.GetType().TerraformType(ctx), nil)
	}
	value, err := a.GetType().ValueFromTerraform(ctx, raw)
	if err != nil {
		w.diags.AddAttributeError(at, "Value Conversion Error", err.Error())
		return
	}
	null, unknown := value.IsNull(), value.IsUnknown()
	errorsBefore := w.diags.ErrorsCount()
	if a.IsComputed() && !a.IsOptional() && !null {
		w.diags.AddAttributeError(at, "Invalid Configuration for Read-Only Attribute",
			"Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.\n\n"+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable and read-only attributes that are supported.")
	}
	if a.IsRequired() && null {
		w.diags.AddAttributeError(at, "Missing Configuration for Required Attribute",
			fmt.Sprintf("Must set a configuration value for the %s attribute as the provider has marked it as required.\n\n", at.String())+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable attributes that are required.")
	}
	if !w.writeOnlyAllowed && a.IsWriteOnly() && !null {
		w.diags.AddAttributeError(at, "WriteOnly Attribute Not Allowed",
			fmt.Sprintf("The resource contains a non-null value for WriteOnly attribute %s. Write-only attributes are only supported in Terraform 1.11 and later.", at.String()))
	}
	w.validators(ctx, a, at, value)
	if w.diags.ErrorsCount() == errorsBefore { // as the framework: an attribute in error is not descended into
		w.nestedAttributes(ctx, a, at, raw)
	}
	if msg := a.GetDeprecationMessage(); msg != "" && !null && !unknown {
		w.diags.AddAttributeWarning(at, "Attribute Deprecated", msg)
	}
}

// Validator lists of the attribute types the provider's schemas use.
type (
	stringValidated  interface{ StringValidators() []validator.String }
	int64Validated   interface{ Int64Validators() []validator.Int64 }
	listValidated    interface{ ListValidators() []validator.List }
	mapValidated     interface{ MapValidators() []validator.Map }
	objectValidated  interface{ ObjectValidators() []validator.Object }
	boolValidated    interface{ BoolValidators() []validator.Bool }
	float64Validated interface{ Float64Validators() []validator.Float64 }
)

// validators runs the attribute's own validators on its value.
func (w attrWalk) validators(ctx context.Context, a schema.Attribute, at path.Path, value attr.Value) {
	base := func() (tfsdk.Config, path.Path, path.Expression) { return w.config, at, at.Expression() }
	switch a := a.(type) {
	case stringValidated:
		if v, ok := value.(basetypes.StringValuable); ok && len(a.StringValidators()) > 0 {
			sv, d := v.ToStringValue(ctx)
			w.diags.Append(d...)
			c, p, e := base()
			for _, val := range a.StringValidators() {
				resp := &validator.StringResponse{}
				val.ValidateString(ctx, validator.StringRequest{Config: c, ConfigValue: sv, Path: p, PathExpression: e}, resp)
				w.diags.Append(resp.Diagnostics...)
			}
		}
	case int64Validated:
		if v, ok := value.(basetypes.Int64Valuable); ok && len(a.Int64Validators()) > 0 {
			iv, d := v.ToInt64Value(ctx)
			w.diags.Append(d...)
			c, p, e := base()
			for _, val := range a.Int64Validators() {
				resp := &validator.Int64Response{}
				val.ValidateInt64(ctx, validator.Int64Request{Config: c, ConfigValue: iv, Path: p, PathExpression: e}, resp)
				w.diags.Append(resp.Diagnostics...)
			}
		}
	case listValidated:
		if v, ok := value.(basetypes.ListValuable); ok && len(a.ListValidators()) > 0 {
			lv, d := v.ToListValue(ctx)
			w.diags.Append(d...)
			c, p, e := base()
			for _, val := range a.ListValidators() {
				resp := &validator.ListResponse{}
				val.ValidateList(ctx, validator.ListRequest{Config: c, ConfigValue: lv, Path: p, PathExpression: e}, resp)
				w.diags.Append(resp.Diagnostics...)
			}
		}
	default:
		w.otherValidators(ctx, a, at, value)
	}
}

// otherValidators runs the validators of the types the pool's schema does not use today.
func (w attrWalk) otherValidators(ctx context.Context, a schema.Attribute, at path.Path, value attr.Value) {
	switch a := a.(type) {
	case mapValidated:
		if v, ok := value.(basetypes.MapValuable); ok {
			mv, d := v.ToMapValue(ctx)
			w.diags.Append(d...)
			for _, val := range a.MapValidators() {
				resp := &validator.MapResponse{}
				val.ValidateMap(ctx, validator.MapRequest{Config: w.config, ConfigValue: mv, Path: at, PathExpression: at.Expression()}, resp)
				w.diags.Append(resp.Diagnostics...)
			}
		}
	case objectValidated:
		if v, ok := value.(basetypes.ObjectValuable); ok {
			ov, d := v.ToObjectValue(ctx)
			w.diags.Append(d...)
			for _, val := range a.ObjectValidators() {
				resp := &validator.ObjectResponse{}
				val.ValidateObject(ctx, validator.ObjectRequest{Config: w.config, ConfigValue: ov, Path: at, PathExpression: at.Expression()}, resp)
				w.diags.Append(resp.Diagnostics...)
			}
		}
	case boolValidated, float64Validated:
		if hasValidators(a) {
			w.diags.AddAttributeError(at, "Validator not applied", "the provider's direct validation does not apply this attribute's validators; this is a bug in the provider")
		}
	}
}

// hasValidators reports whether a bool or float attribute has validators.
func hasValidators(a schema.Attribute) bool {
	switch a := a.(type) {
	case boolValidated:
		return len(a.BoolValidators()) > 0
	case float64Validated:
		return len(a.Float64Validators()) > 0
	}
	return false
}

// nestedAttributes validates the attributes a nested attribute holds: each element of a list or
// map, the object of a single one (a null or unknown value has none to validate).
func (w attrWalk) nestedAttributes(ctx context.Context, a schema.Attribute, at path.Path, raw tftypes.Value) {
	if raw.IsNull() || !raw.IsKnown() {
		return
	}
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		w.object(ctx, a.Attributes, at, raw)
	case schema.ListNestedAttribute:
		if len(a.NestedObject.Validators) > 0 {
			w.diags.AddAttributeError(at, "Nested object not validated", "the provider's direct validation does not apply nested object validators; this is a bug in the provider")
		}
		var elems []tftypes.Value
		_ = raw.As(&elems)
		for i, e := range elems {
			w.object(ctx, a.NestedObject.Attributes, at.AtListIndex(i), e)
		}
	case schema.MapNestedAttribute:
		if len(a.NestedObject.Validators) > 0 {
			w.diags.AddAttributeError(at, "Nested object not validated", "the provider's direct validation does not apply nested object validators; this is a bug in the provider")
		}
		var elems map[string]tftypes.Value
		_ = raw.As(&elems)
		for _, k := range slices.Sorted(maps.Keys(elems)) {
			w.object(ctx, a.NestedObject.Attributes, at.AtMapKey(k), elems[k])
		}
	case schema.SetNestedAttribute:
		w.diags.AddAttributeError(at, "Nested set not validated", "the provider's direct validation does not walk nested sets; this is a bug in the provider")
	}
}

// object validates the attributes of one nested object value.
func (w attrWalk) object(ctx context.Context, attrs map[string]schema.Attribute, at path.Path, raw tftypes.Value) {
	if raw.IsNull() || !raw.IsKnown() {
		return
	}
	values := objectAttrs(raw)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		w.attribute(ctx, attrs[name], at.AtName(name), values[name])
	}
}

// newPoolValidator is the direct validation of karpenter_node_pool.
func newPoolValidator(ctx context.Context) *directValidator {
	s := nodePoolSchema()
	return &directValidator{typeName: "karpenter_node_pool", schema: s, typ: s.Type().TerraformType(ctx),
		newRes: func() resource.ResourceWithValidateConfig { return &nodePoolResource{} }}
}
