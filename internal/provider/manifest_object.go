package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"gopkg.in/yaml.v3"

	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// manifestObject turns a rendered manifest into a Terraform object value, the form
// `kubernetes_manifest` takes: mappings become objects, sequences tuples, scalars strings,
// numbers and bools. A string equal to one of the placeholders (what the plan rendered in place
// of a value known only after apply) becomes an unknown value, so the object is known except
// for that field and `kubernetes_manifest` can plan it.
func manifestObject(doc string, placeholders ...string) (tftypes.Value, error) {
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		return tftypes.Value{}, fmt.Errorf("reading the rendered manifest back: %w", err)
	}
	unknown := map[string]bool{}
	for _, p := range placeholders {
		unknown[p] = true
	}
	obj, err := tfvalue.Encode(tftypes.DynamicPseudoType, markUnknown(v, unknown))
	if err != nil {
		return tftypes.Value{}, fmt.Errorf("building the manifest object: %w", err)
	}
	return obj, nil
}

// markUnknown replaces the placeholder strings of a decoded document by unknown values.
func markUnknown(v any, unknown map[string]bool) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = markUnknown(e, unknown)
		}
	case []any:
		for i, e := range t {
			t[i] = markUnknown(e, unknown)
		}
	case string:
		if unknown[t] {
			return tfvalue.Unknown(tftypes.String)
		}
	}
	return v
}
