package manifest

import (
	"context"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateObjectMeta is the API server's validation of the object's embedded ObjectMetas
// (schemaobjectmeta.Validate, not at the resource root). Its signature gained a context in
// k8s.io/apiextensions-apiserver v0.37; both forms are called here so that this package also
// builds in internal/karpenteroracle, a module of its own where Karpenter's requirements raise
// k8s.io to v0.37 (the provider itself builds with v0.34).
func validateObjectMeta(obj map[string]any, s *structuralschema.Structural) field.ErrorList {
	switch validate := any(schemaobjectmeta.Validate).(type) {
	case func(*field.Path, any, *structuralschema.Structural, bool) field.ErrorList: // v0.34
		return validate(nil, obj, s, false)
	case func(context.Context, *field.Path, any, *structuralschema.Structural, bool) field.ErrorList: // v0.37
		return validate(context.Background(), nil, obj, s, false)
	default:
		panic("manifest: unknown signature of k8s.io/apiextensions-apiserver's objectmeta.Validate")
	}
}
