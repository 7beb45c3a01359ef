package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// dynamicObject decodes a dynamic attribute holding an object or map (`kubelet.config`) into
// the JSON-like values a manifest carries: nil when null or unknown (unknown values are planned
// as placeholders elsewhere).
func dynamicObject(d types.Dynamic, diags *diag.Diagnostics) map[string]any {
	if d.IsNull() || d.IsUnknown() || d.IsUnderlyingValueNull() || d.IsUnderlyingValueUnknown() {
		return nil
	}
	v, err := plainValue(d.UnderlyingValue())
	if err == nil {
		if m, ok := v.(map[string]any); ok {
			return m
		}
		err = fmt.Errorf("must be an object of KubeletConfiguration fields, got %s", d.UnderlyingValue().Type(context.Background()))
	}
	diags.AddAttributeError(path.Root("kubelet").AtName("config"), "Invalid kubelet.config", err.Error())
	return nil
}

// plainValue is a Terraform value as JSON decodes one: objects and maps as map[string]any,
// lists, sets and tuples as []any, numbers as int64 when whole, else float64.
func plainValue(v attr.Value) (any, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	if v.IsUnknown() {
		return nil, fmt.Errorf("a value is known only after apply")
	}
	switch x := v.(type) {
	case basetypes.StringValue:
		return x.ValueString(), nil
	case basetypes.BoolValue:
		return x.ValueBool(), nil
	case basetypes.NumberValue:
		return plainNumber(x.ValueBigFloat()), nil
	case basetypes.Int64Value:
		return x.ValueInt64(), nil
	case basetypes.Float64Value:
		return x.ValueFloat64(), nil
	case basetypes.DynamicValue:
		return plainValue(x.UnderlyingValue())
	case basetypes.ObjectValue:
		return plainMap(x.Attributes())
	case basetypes.MapValue:
		return plainMap(x.Elements())
	case basetypes.ListValue:
		return plainList(x.Elements())
	case basetypes.SetValue:
		return plainList(x.Elements())
	case basetypes.TupleValue:
		return plainList(x.Elements())
	}
	return nil, fmt.Errorf("unsupported value type %s", v.Type(context.Background()))
}

func plainNumber(f *big.Float) any {
	if i, acc := f.Int64(); acc == big.Exact {
		return i
	}
	out, _ := f.Float64()
	return out
}

func plainMap(in map[string]attr.Value) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for k, e := range in {
		v, err := plainValue(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func plainList(in []attr.Value) ([]any, error) {
	out := make([]any, 0, len(in))
	for i, e := range in {
		v, err := plainValue(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, v)
	}
	return out, nil
}
