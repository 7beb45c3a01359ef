package kubeletconfig

import (
	"reflect"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

// splitPath splits a decode path ("logging.options.json.nope") into its parent
// ("logging.options.json") and last name ("nope").
func splitPath(path string) (parent, name string) {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i], path[i+1:]
	}
	return "", path
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// fieldNamesAt lists the JSON field names of the upstream struct reached by parent, a decode
// path ("" for KubeletConfiguration itself, "logging.options" for its nested options). Nil when
// the path doesn't lead to a struct.
func fieldNamesAt(parent string) []string {
	t := reflect.TypeFor[upstreamKubelet]()
	if parent != "" {
		for _, segment := range strings.Split(parent, ".") {
			name, _, _ := strings.Cut(segment, "[")
			t = unwrap(t)
			if t.Kind() == reflect.Map {
				t = t.Elem() // the segment is a map key
				continue
			}
			field, ok := jsonFields(t)[name]
			if !ok {
				return nil
			}
			t = field
		}
	}
	t = unwrap(t)
	if t.Kind() == reflect.Map {
		t = unwrap(t.Elem())
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	names := make([]string, 0, t.NumField())
	for name := range jsonFields(t) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// unwrap looks through pointers, slices and arrays to the element type.
func unwrap(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

// jsonFields maps the JSON names of a struct's fields to their types, with inline embedded
// structs (TypeMeta) flattened in, as encoding/json sees them.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return fields
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "" && f.Anonymous:
			for inner, typ := range jsonFields(unwrap(f.Type)) {
				fields[inner] = typ
			}
		case name == "" && f.IsExported():
			fields[f.Name] = f.Type
		case name != "":
			fields[name] = f.Type
		}
	}
	return fields
}

// closest returns the candidate nearest to name by edit distance (ignoring case) when it is
// near enough to be a likely typo, else "".
func closest(name string, candidates []string) string {
	limit := max(1, min(3, len(name)/3))
	best, bestDistance := "", limit+1
	lower := strings.ToLower(name)
	for _, candidate := range candidates {
		if candidate == name {
			continue
		}
		if d := requirements.EditDistance(lower, strings.ToLower(candidate)); d < bestDistance {
			best, bestDistance = candidate, d
		}
	}
	return best
}
