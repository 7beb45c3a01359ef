package karpenteroracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/karpenter-provider-aws/pkg/apis"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// karpenterSchemas are the structural schemas of the v1 version of the CRDs Karpenter's own
// module embeds (karpenter-provider-aws pkg/apis: the EC2NodeClass CRD and the NodePool CRD it
// installs), by kind. They are read from Karpenter's module, not from the provider's embedded
// copies, so the defaults applied on the oracle side are Karpenter's.
var karpenterSchemas = sync.OnceValues(func() (map[string]*structuralschema.Structural, error) {
	out := map[string]*structuralschema.Structural{}
	for _, raw := range [][]byte{apis.EC2NodeClassCRD, apis.NodePoolCRD} {
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
})

// stored returns the JSON the API server stores for the YAML document doc of kind kind on
// create with Karpenter's CRD: unknown fields pruned, then the schema defaults applied (the two
// steps of the API server's decoding of a custom resource that change fields; validation is
// left out, the documents are only hashed). Integers decode as int64 and other numbers as
// float64, as the API server's JSON decoding does.
func stored(t testing.TB, kind, doc string) []byte {
	t.Helper()
	schemas, err := karpenterSchemas()
	if err != nil {
		t.Fatal(err)
	}
	s := schemas[kind]
	if s == nil {
		t.Fatalf("no Karpenter CRD for kind %s", kind)
	}
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("document is not YAML: %v\n%s", err, doc)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("document is not a JSON object: %v\n%s", err, doc)
	}
	structuralpruning.Prune(obj, s, true)
	structuraldefaulting.Default(obj, s)
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeInto decodes the stored JSON into Karpenter's Go type out, failing on a field the type
// does not have (which would mean the CRD and the Go type disagree, or the oracle is wrong).
func decodeInto(t testing.TB, raw []byte, out any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("decoding into %T: %v\n%s", out, err, raw)
	}
}
