package provider

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// attrTypesOf derives Terraform object attribute types from a Go struct with tfsdk tags and
// native field types (string, bool, int64, pointers, slices, string-keyed maps, structs), so a
// computed object (node class `resolved`) and the attribute that takes it (node pool
// `node_class`) share one definition: the Go struct that ObjectValueFrom and As use.
func attrTypesOf(v any) map[string]attr.Type {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return structAttrTypes(t)
}

func structAttrTypes(t reflect.Type) map[string]attr.Type {
	out := map[string]attr.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("tfsdk"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = goAttrType(f.Type)
	}
	return out
}

func goAttrType(t reflect.Type) attr.Type {
	switch t.Kind() {
	case reflect.Pointer:
		return goAttrType(t.Elem())
	case reflect.String:
		return types.StringType
	case reflect.Bool:
		return types.BoolType
	case reflect.Int, reflect.Int32, reflect.Int64:
		return types.Int64Type
	case reflect.Float64:
		return types.Float64Type
	case reflect.Slice:
		return types.ListType{ElemType: goAttrType(t.Elem())}
	case reflect.Map:
		return types.MapType{ElemType: goAttrType(t.Elem())}
	case reflect.Struct:
		return types.ObjectType{AttrTypes: structAttrTypes(t)}
	}
	panic(fmt.Sprintf("attrTypesOf: unsupported field type %s", t))
}

// setTopLevel writes top-level attribute values into a plan in one pass over its raw value:
// what ModifyPlan computed, without converting the whole model (its large inputs, such as a
// pool's node_class, are unchanged) by reflection or walking one path per attribute.
func setTopLevel(ctx context.Context, plan *tfsdk.Plan, values map[string]attr.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	var attrs map[string]tftypes.Value
	if err := plan.Raw.As(&attrs); err != nil {
		diags.AddError("Cannot set the plan", err.Error())
		return diags
	}
	for name, v := range values {
		if _, ok := attrs[name]; !ok {
			diags.AddError("Cannot set the plan", "no attribute "+name+"; this is a bug in the provider")
			continue
		}
		tv, err := v.ToTerraformValue(ctx)
		if err != nil {
			diags.AddError("Cannot set the plan", name+": "+err.Error())
			continue
		}
		attrs[name] = tv
	}
	if diags.HasError() {
		return diags
	}
	if err := tftypes.ValidateValue(plan.Raw.Type(), attrs); err != nil {
		diags.AddError("Cannot set the plan", err.Error())
		return diags
	}
	plan.Raw = tftypes.NewValue(plan.Raw.Type(), attrs)
	return diags
}
