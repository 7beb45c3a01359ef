package manifest

import (
	"encoding/json"
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CompileCRD compiles one version of a CRD as a cluster serves it (its openAPIV3Schema,
// descriptions and all), to judge a manifest by what that cluster's API server would do rather
// than by the embedded CRDs.
func CompileCRD(group, version, kind string, schema *apiextensionsv1.JSONSchemaProps) (*CRD, error) {
	raw, err := json.Marshal(GeneratedFile{Group: group, Version: version, Kind: kind, Schema: schema})
	if err != nil {
		return nil, err
	}
	return compileCRD(raw)
}

// Store is what the API server makes of doc under c when the request does not ask for strict
// field validation (kubectl apply does ask, and then refuses the object instead): the fields c's
// schema does not declare are dropped, and what remains is validated as Admit does. dropped are
// the outermost fields dropped, refused what the validation refuses, each in a stable order.
func (c *CRD) Store(doc string) (dropped []Path, refused []Violation, err error) {
	obj, err := DecodeObject(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("manifest is %w", err)
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GetKind() != c.Kind || u.GetAPIVersion() != c.APIVersion() {
		return nil, nil, fmt.Errorf("manifest is %s %s, not a %s %s", u.GetAPIVersion(), u.GetKind(), c.APIVersion(), c.Kind)
	}
	for _, p := range structuralpruning.PruneWithOptions(u.Object, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		dropped = append(dropped, c.ParseFieldPath(p))
	}
	sort.SliceStable(dropped, func(i, j int) bool { return dropped[i].String() < dropped[j].String() })
	// Pruned, the object has no unknown field left: admit goes straight to defaulting and
	// validation, and never needs the version its unknown-field message would name.
	return dropped, c.admit(u, ""), nil
}

// Undeclared are the outermost fields under spec that want's schema declares and c's does not
// (a field below one c keeps unknown fields of counts as declared): what an older CRD lacks.
func (c *CRD) Undeclared(want *CRD) []Path {
	spec, ok := want.structural.Properties["spec"]
	if !ok {
		return nil
	}
	var out []Path
	var walk func(w *structuralschema.Structural, at Path)
	walk = func(w *structuralschema.Structural, at Path) {
		for _, name := range sortedKeys(w.Properties) {
			p := append(append(Path{}, at...), Step{Kind: FieldStep, Name: name})
			if !declares(c.structural, p) {
				out = append(out, p)
				continue
			}
			child := w.Properties[name]
			walk(&child, p)
		}
		if w.Items != nil {
			walk(w.Items, append(append(Path{}, at...), Step{Kind: IndexStep}))
		}
	}
	walk(&spec, Path{{Kind: FieldStep, Name: "spec"}})
	return out
}

func sortedKeys(m map[string]structuralschema.Structural) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
