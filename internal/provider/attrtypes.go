package provider

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// attrTypesOf derives Terraform object attribute types from a Go struct with tfsdk tags and
// native field types (string, bool, int64, pointers, slices, string-keyed maps, structs), so a
// computed object (node class `resolved`) and the attribute that takes it (node pool
// `node_class`) share one definition: the Go struct tfvalue encodes and decodes.
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
		if name == "" || name == "-" || f.Name == "_" { // blank: an attribute tfvalue.Decode ignores
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
