package provider

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// stricterOnPurpose are attributes required where the CRD is not, each with why.
var stricterOnPurpose = map[string]string{}

// TestSchemaNoStricterThanCRD walks every field of the embedded CRDs of every supported version
// and fails when the attribute it maps to is required although the CRD does not require the
// field (or defaults it), unless stricterOnPurpose says why: what the API server fills, the
// plan must not ask for. It also counts the CRD defaults, to show the walk sees them.
func TestSchemaNoStricterThanCRD(t *testing.T) {
	checked, defaulted := 0, 0
	for _, v := range manifest.Versions() {
		crds, err := manifest.CRDsFor(v)
		if err != nil {
			t.Fatal(err)
		}
		for kind, s := range map[string]schema.Schema{manifest.EC2NodeClassKind: nodeClassSchema(), manifest.NodePoolKind: nodePoolSchema(),
			manifest.NodeOverlayKind: nodeOverlaySchema()} {
			walkFields(crds[kind].Schema.Properties["spec"], "spec", true, func(field string, p apiextensionsv1.JSONSchemaProps, required bool) {
				attrOf := func(f string) attrpath.Path {
					return manifest.AttributePath(kind, crds[kind].ParseFieldPath(strings.ReplaceAll(f, "[]", "[0]")))
				}
				attr := attrOf(field)
				parent := field[:strings.LastIndexAny(field, ".")]
				if parent != "spec" && attrOf(parent).String() == attr.String() {
					return // no attribute of its own (spec.template.metadata is template's)
				}
				a := attributeAt(s.Attributes, attr.Steps())
				if a == nil {
					return
				}
				checked++
				if p.Default != nil {
					defaulted++
				}
				if !a.IsRequired() || (required && p.Default == nil) {
					return
				}
				if _, ok := stricterOnPurpose[kind+" "+attr.String()]; ok {
					return
				}
				t.Errorf("Karpenter %s %s: %s is required but the CRD's %s is optional%s", v, kind, attr, field,
					map[bool]string{true: " (it has a default)", false: ""}[p.Default != nil])
			})
		}
	}
	t.Logf("%d CRD fields with an attribute checked over %d versions, %d of them defaulted by the CRD", checked, len(manifest.Versions()), defaulted)
	if checked < 500 || defaulted < 20 {
		t.Fatalf("checked %d fields (%d defaulted): the walk missed the CRDs", checked, defaulted)
	}
}

// walkFields calls visit for every property under s (objects and lists of objects descended),
// with whether its parent requires it.
func walkFields(s apiextensionsv1.JSONSchemaProps, p string, required bool, visit func(string, apiextensionsv1.JSONSchemaProps, bool)) {
	if p != "spec" {
		visit(p, s, required)
	}
	switch {
	case s.Type == "object":
		for name, c := range s.Properties {
			walkFields(c, p+"."+name, slices.Contains(s.Required, name), visit)
		}
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Type == "object":
		walkFields(*s.Items.Schema, p+"[]", true, func(f string, c apiextensionsv1.JSONSchemaProps, r bool) {
			if f != p+"[]" {
				visit(f, c, r)
			}
		})
	}
}

// attributeAt is the schema attribute at p (nil when none), stepping through nested attributes
// and list indexes.
func attributeAt(attrs map[string]schema.Attribute, p []attrpath.Step) schema.Attribute {
	if len(p) == 0 || p[0].Kind != attrpath.Attr {
		return nil
	}
	a, ok := attrs[p[0].Name]
	if !ok || len(p) == 1 {
		return a
	}
	rest := p[1:]
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return attributeAt(a.Attributes, rest)
	case schema.ListNestedAttribute:
		if rest[0].Kind == attrpath.Index && len(rest) > 1 {
			return attributeAt(a.NestedObject.Attributes, rest[1:])
		}
	}
	return nil
}
