package provider

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// Attributes whose sample would collide with another's rendering (both are spec.kubelet.maxPods).
var renderSkip = []string{"kubelet.max_pods_expression"}

// TestSchemaRendersEveryField sets every configurable attribute of each resource to a sample of
// its type, renders the manifest, and looks up every user-settable field of the CRDs (of every
// supported Karpenter version) in it: the field must be there, with a value of the CRD's type.
// TestSchemaCoverage proves an attribute exists for each field; this proves it renders it.
func TestSchemaRendersEveryField(t *testing.T) {
	ctx := context.Background()
	for kind, s := range map[string]schema.Schema{manifest.EC2NodeClassKind: nodeClassSchema(), manifest.NodePoolKind: nodePoolSchema(),
		manifest.NodeOverlayKind: nodeOverlaySchema()} {
		t.Run(kind, func(t *testing.T) {
			raw := sampleObject(s.Attributes, "")
			plan := tfsdk.Plan{Schema: s, Raw: raw}
			doc := renderSample(ctx, t, kind, plan)
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%v\n%s", err, doc)
			}
			checked := 0
			for _, v := range manifest.Versions() {
				crds, err := manifest.CRDsFor(v)
				if err != nil {
					t.Fatal(err)
				}
				spec := crds[kind].Schema.Properties["spec"]
				var leaves []string
				walkLeaves(spec, "spec", &leaves)
				for _, leaf := range leaves {
					if slices.Contains(controllerSet, leaf) {
						continue
					}
					prop := propertyAt(spec, strings.TrimPrefix(leaf, "spec"))
					got, ok := valueAt(obj, leaf)
					switch {
					case !ok:
						t.Errorf("Karpenter %s: %s is not rendered with every attribute set\n%s", v, leaf, doc)
					case !typeFits(prop.Type, got):
						t.Errorf("Karpenter %s: %s renders %T (%v), the CRD says %s", v, leaf, got, got, prop.Type)
					}
					checked++
				}
			}
			t.Logf("%s: %d CRD fields over %d versions found in the rendered manifest", kind, checked, len(manifest.Versions()))
		})
	}
}

func renderSample(ctx context.Context, t *testing.T, kind string, plan tfsdk.Plan) string {
	t.Helper()
	if kind == manifest.EC2NodeClassKind {
		var v classValue
		if err := tfvalue.Decode(plan.Raw, &v); err != nil {
			t.Fatal(err)
		}
		s, findings := v.Spec()
		if len(findings) > 0 {
			t.Fatal(findings)
		}
		doc, err := nodeclass.Manifest(s)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	if kind == manifest.NodeOverlayKind {
		var v overlayValue
		if err := tfvalue.Decode(plan.Raw, &v); err != nil {
			t.Fatal(err)
		}
		doc, err := nodeoverlay.Manifest(v.Config, v.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	var v poolValue
	if err := tfvalue.Decode(plan.Raw, &v); err != nil {
		t.Fatal(err)
	}
	doc, err := nodepool.Manifest(v.Spec(), className(v.NodeClass))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// sampleObject is a value of the attributes with every configurable one set: strings "x",
// numbers 1, booleans true, one element per list, one key per map; computed-only ones null.
func sampleObject(attrs map[string]schema.Attribute, prefix string) tftypes.Value {
	types := map[string]tftypes.Type{}
	vals := map[string]tftypes.Value{}
	for name, a := range attrs {
		typ := a.GetType().TerraformType(context.Background())
		types[name] = typ
		full := strings.TrimPrefix(prefix+"."+name, ".")
		if (!a.IsOptional() && !a.IsRequired()) || slices.Contains(renderSkip, full) {
			vals[name] = tftypes.NewValue(typ, nil)
			continue
		}
		vals[name] = sampleValue(a, typ, full)
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
}

func sampleValue(a schema.Attribute, typ tftypes.Type, full string) tftypes.Value {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return sampleObject(a.Attributes, full)
	case schema.ListNestedAttribute:
		return tftypes.NewValue(typ, []tftypes.Value{sampleObject(a.NestedObject.Attributes, full)})
	case schema.MapNestedAttribute:
		return tftypes.NewValue(typ, map[string]tftypes.Value{"k": sampleObject(a.NestedObject.Attributes, full)})
	case schema.DynamicAttribute: // kubelet.config: one free-form field
		obj := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"serializeImagePulls": tftypes.Bool}}
		return tftypes.NewValue(obj, map[string]tftypes.Value{"serializeImagePulls": tftypes.NewValue(tftypes.Bool, false)})
	}
	return sampleOfType(typ)
}

func sampleOfType(typ tftypes.Type) tftypes.Value {
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, "x")
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, big.NewFloat(1))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, true)
	case typ.Is(tftypes.List{}):
		return tftypes.NewValue(typ, []tftypes.Value{sampleOfType(typ.(tftypes.List).ElementType)})
	case typ.Is(tftypes.Set{}):
		return tftypes.NewValue(typ, []tftypes.Value{sampleOfType(typ.(tftypes.Set).ElementType)})
	case typ.Is(tftypes.Map{}):
		return tftypes.NewValue(typ, map[string]tftypes.Value{"k": sampleOfType(typ.(tftypes.Map).ElementType)})
	case typ.Is(tftypes.Object{}):
		o := typ.(tftypes.Object)
		vals := map[string]tftypes.Value{}
		for name, at := range o.AttributeTypes {
			vals[name] = sampleOfType(at)
		}
		return tftypes.NewValue(typ, vals)
	}
	return tftypes.NewValue(typ, nil)
}

// propertyAt is the CRD schema of a path below spec (".a.b[].c").
func propertyAt(s apiextensionsv1.JSONSchemaProps, p string) apiextensionsv1.JSONSchemaProps {
	for _, part := range strings.Split(strings.TrimPrefix(p, "."), ".") {
		if part == "" {
			continue
		}
		name, list := strings.CutSuffix(part, "[]")
		s = s.Properties[name]
		if list && s.Items != nil && s.Items.Schema != nil {
			s = *s.Items.Schema
		}
	}
	return s
}

// valueAt is the rendered value at a leaf path ("spec.a.b[].c": the first element of lists).
func valueAt(obj map[string]any, leaf string) (any, bool) {
	var cur any = obj
	for _, part := range strings.Split(leaf, ".") {
		name, list := strings.CutSuffix(part, "[]")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		if list {
			l, ok := cur.([]any)
			if !ok || len(l) == 0 {
				return nil, false
			}
			cur = l[0]
		}
	}
	return cur, true
}

// typeFits reports whether a rendered value (as JSON decodes YAML) has the CRD's type.
func typeFits(crdType string, v any) bool {
	switch crdType {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer", "number":
		switch n := v.(type) {
		case float64:
			return true
		case json.Number:
			_, err := strconv.ParseFloat(string(n), 64)
			return err == nil
		}
		return false
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object", "":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}
