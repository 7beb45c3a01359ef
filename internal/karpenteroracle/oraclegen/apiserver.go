package oraclegen

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// APIServer stores documents the way the API server does on create, with the structural
// schemas of the v1 version of the CRDs it was given, by kind. The oracle modules give it the
// CRDs Karpenter's own module embeds (karpenter-provider-aws pkg/apis), not the provider's
// copies, so the defaults applied on the oracle side are Karpenter's.
type APIServer map[string]*structuralschema.Structural

// NewAPIServer reads the CRD YAML documents crds.
func NewAPIServer(crds ...[]byte) (APIServer, error) {
	out := APIServer{}
	for _, raw := range crds {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
			return nil, err
		}
		var v1 *apiextensionsv1.CustomResourceValidation
		for _, v := range crd.Spec.Versions {
			if v.Name == "v1" {
				v1 = v.Schema
			}
		}
		if v1 == nil || v1.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("CRD %s has no v1 schema", crd.Name)
		}
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1.OpenAPIV3Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
		}
		out[crd.Spec.Names.Kind] = s
	}
	return out, nil
}

// Store returns the JSON the API server stores for the YAML document doc of kind kind: unknown
// fields pruned, then the schema defaults applied (the two steps of its decoding of a custom
// resource that change fields; validation is left out, the documents are only hashed).
// Integers decode as int64 and other numbers as float64, as the API server's JSON decoding
// does.
func (a APIServer) Store(kind, doc string) ([]byte, error) {
	s := a[kind]
	if s == nil {
		return nil, fmt.Errorf("no CRD for kind %s", kind)
	}
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, fmt.Errorf("document is not YAML: %w", err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("document is not a JSON object: %w", err)
	}
	structuralpruning.Prune(obj, s, true)
	structuraldefaulting.Default(obj, s)
	return json.Marshal(obj)
}

// DecodeStrict decodes the stored JSON raw into out (Karpenter's Go type), failing on a field
// out does not have: the CRD and the Go type would disagree, or the oracle would be wrong.
func DecodeStrict(raw []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("decoding into %T: %w", out, err)
	}
	return nil
}
