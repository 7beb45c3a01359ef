package provider

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// The shell's side of tfvalue, shared by the resources and data sources: reading a raw value
// into tagged types, writing what a step computed back, and the diagnostics a failure gives.

// decodeInto reads raw into dst, a pointer to a tagged struct (unknown values read as unset);
// false, with an error naming what was read, when it does not decode.
func decodeInto(raw tftypes.Value, dst any, what string, diags *diag.Diagnostics) bool {
	err := tfvalue.Decode(raw, dst)
	var bad *tfvalue.NumberError
	switch {
	case err == nil:
		return true
	case errors.As(err, &bad) && !bad.Path().IsEmpty():
		// The configuration's number, not the provider: the error goes on its attribute.
		addFindings(diags, []attrpath.Finding{{Path: bad.Path(), Summary: "Invalid number",
			Message: fmt.Sprintf("%s is not a whole number in range for this attribute", bad.Value)}}, nil)
	default:
		diags.AddError("Cannot read the "+what, err.Error())
	}
	return false
}

// setRaw writes the tagged fields of src into a plan or state value.
func setRaw(raw *tftypes.Value, src any, what string, diags *diag.Diagnostics) {
	v, err := tfvalue.Set(*raw, src)
	writeRaw(raw, v, err, what, diags)
}

// withRaw writes attribute values into a plan or state value.
func withRaw(raw *tftypes.Value, values map[string]any, what string, diags *diag.Diagnostics) {
	v, err := tfvalue.With(*raw, values)
	writeRaw(raw, v, err, what, diags)
}

func writeRaw(raw *tftypes.Value, v tftypes.Value, err error, what string, diags *diag.Diagnostics) {
	if err != nil {
		diags.AddError("Cannot write the "+what, err.Error()+"; this is a bug in the provider")
		return
	}
	*raw = v
}

// decoded is v as a T: the zero T when v is null, unknown or not of T's shape.
func decoded[T any](v tftypes.Value) T {
	var out T
	_ = tfvalue.Decode(v, &out)
	return out
}

// unknownAttr is an unknown value of an object type's attribute.
func unknownAttr(obj tftypes.Type, name string) tftypes.Value {
	return tfvalue.Unknown(tfvalue.AttributeType(obj, name))
}

// unknownComputed plans every attribute of planned (a resource's computed attributes) but
// `id` as unknown, for a plan whose inputs are known only after apply.
func unknownComputed(obj tftypes.Type, planned any) map[string]any {
	values := map[string]any{}
	for _, name := range tfvalue.Names(planned) {
		if name != "id" {
			values[name] = unknownAttr(obj, name)
		}
	}
	return values
}

// knownOrNull is v with every unknown value null: what a state may hold of a plan (an import's
// plan leaves unknown what only an apply would learn).
func knownOrNull(v tftypes.Value) tftypes.Value {
	return mapValues(v, func(_ *tftypes.AttributePath, e tftypes.Value) tftypes.Value {
		if !e.IsKnown() {
			return tftypes.NewValue(e.Type(), nil)
		}
		return e
	})
}

// configValue is an imported configuration as a user writes it: a string the configuration
// leaves out is null, not "" (the provider's core types read both as ""), and so are the flags
// whose false is their absence (`efa`, `root_volume`: plain bools in the core types).
func configValue(v tftypes.Value) tftypes.Value {
	return mapValues(v, func(p *tftypes.AttributePath, e tftypes.Value) tftypes.Value {
		var s string
		var b bool
		switch {
		case !e.IsKnown() || e.IsNull():
		case e.Type().Is(tftypes.String) && e.As(&s) == nil && s == "":
			return tftypes.NewValue(tftypes.String, nil)
		case e.Type().Is(tftypes.Bool) && e.As(&b) == nil && !b && absentWhenFalse(p):
			return tftypes.NewValue(tftypes.Bool, nil)
		}
		return e
	})
}

// mapValues is v with f applied to every value in it, innermost first (tftypes.Transform).
func mapValues(v tftypes.Value, f func(*tftypes.AttributePath, tftypes.Value) tftypes.Value) tftypes.Value {
	out, err := tftypes.Transform(v, func(p *tftypes.AttributePath, e tftypes.Value) (tftypes.Value, error) { return f(p, e), nil })
	if err != nil { // Transform fails only on a callback error, which f cannot return
		return v
	}
	return out
}

// absentWhenFalse reports whether the attribute at p is a flag whose false means it is not set.
func absentWhenFalse(p *tftypes.AttributePath) bool {
	steps := p.Steps()
	if len(steps) == 0 {
		return false
	}
	name, ok := steps[len(steps)-1].(tftypes.AttributeName)
	return ok && (name == "efa" || name == "root_volume")
}
