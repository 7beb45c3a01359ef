package provider

import (
	"context"
	"fmt"
	"math/big"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"gopkg.in/yaml.v3"
)

// manifestObject turns a rendered manifest into a Terraform object value, the form
// `kubernetes_manifest` takes: mappings become objects, sequences tuples, scalars strings,
// numbers and bools. A string equal to one of the placeholders (what the plan rendered in place
// of a value known only after apply) becomes an unknown value, so the object is known except
// for that field and `kubernetes_manifest` can plan it.
func manifestObject(doc string, placeholders ...string) (types.Dynamic, error) {
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		return types.DynamicNull(), fmt.Errorf("reading the rendered manifest back: %w", err)
	}
	unknown := map[string]bool{}
	for _, p := range placeholders {
		unknown[p] = true
	}
	val, err := objectValue(v, unknown)
	if err != nil {
		return types.DynamicNull(), err
	}
	return types.DynamicValue(val), nil
}

func objectValue(v any, unknown map[string]bool) (attr.Value, error) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		attrTypes := make(map[string]attr.Type, len(t))
		attrs := make(map[string]attr.Value, len(t))
		for _, k := range keys {
			ev, err := objectValue(t[k], unknown)
			if err != nil {
				return nil, err
			}
			attrTypes[k], attrs[k] = ev.Type(context.Background()), ev
		}
		obj, d := types.ObjectValue(attrTypes, attrs)
		if d.HasError() {
			return nil, fmt.Errorf("building the manifest object: %v", d)
		}
		return obj, nil
	case []any:
		elemTypes := make([]attr.Type, len(t))
		elems := make([]attr.Value, len(t))
		for i, e := range t {
			ev, err := objectValue(e, unknown)
			if err != nil {
				return nil, err
			}
			elemTypes[i], elems[i] = ev.Type(context.Background()), ev
		}
		tup, d := types.TupleValue(elemTypes, elems)
		if d.HasError() {
			return nil, fmt.Errorf("building the manifest object: %v", d)
		}
		return tup, nil
	case string:
		if unknown[t] {
			return types.StringUnknown(), nil
		}
		return types.StringValue(t), nil
	case int:
		return types.NumberValue(new(big.Float).SetInt64(int64(t))), nil
	case float64:
		return types.NumberValue(big.NewFloat(t)), nil
	case bool:
		return types.BoolValue(t), nil
	case nil:
		return types.StringNull(), nil
	}
	return nil, fmt.Errorf("building the manifest object: unexpected %T in the manifest", v)
}
