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

// controllerSet are CRD paths a user does not write: Kubernetes' node lifecycle controller sets
// a taint's timeAdded (and only for NoExecute taints on a node, never in a NodePool template).
var controllerSet = []string{
	"spec.template.spec.taints[].timeAdded",
	"spec.template.spec.startupTaints[].timeAdded",
}

// TestSchemaCoverage walks every user-settable field of the embedded CRDs of every supported
// Karpenter version (spec and metadata.name; status is the controller's) and fails when the
// resource has no attribute at the path manifest.AttributePath maps it to.
func TestSchemaCoverage(t *testing.T) {
	for _, v := range manifest.Versions() {
		schemaCoverage(t, v)
	}
}

func schemaCoverage(t *testing.T, version string) {
	crds, err := manifest.CRDsFor(version)
	if err != nil {
		t.Fatal(err)
	}
	for kind, s := range map[string]schema.Schema{manifest.EC2NodeClassKind: nodeClassSchema(), manifest.NodePoolKind: nodePoolSchema(),
		manifest.NodeOverlayKind: nodeOverlaySchema()} {
		spec := crds[kind].Schema.Properties["spec"]
		leaves := []string{"metadata.name"}
		walkLeaves(spec, "spec", &leaves)
		var mapped, unmapped []string
		for _, leaf := range leaves {
			if slices.Contains(controllerSet, leaf) {
				continue
			}
			attr := manifest.AttributePath(kind, crds[kind].ParseFieldPath(strings.ReplaceAll(leaf, "[]", "[0]")))
			if hasAttribute(s.Attributes, attr.Steps()) {
				mapped = append(mapped, leaf)
			} else {
				unmapped = append(unmapped, leaf+" → "+attr.String())
			}
		}
		for _, u := range unmapped {
			t.Errorf("Karpenter %s %s: no attribute for %s", version, kind, u)
		}
		t.Logf("Karpenter %s %s: %d of %d user-settable CRD paths have an attribute (%d controller-set paths excluded)",
			version, kind, len(mapped), len(mapped)+len(unmapped), len(leaves)-len(mapped)-len(unmapped))
	}
}

// walkLeaves lists the paths of s's scalar fields, lists of scalars and maps (arrays as []).
func walkLeaves(s apiextensionsv1.JSONSchemaProps, p string, out *[]string) {
	switch {
	case s.Type == "object" && len(s.Properties) > 0:
		for name, c := range s.Properties {
			walkLeaves(c, p+"."+name, out)
		}
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Type == "object":
		walkLeaves(*s.Items.Schema, p+"[]", out)
	default:
		*out = append(*out, p)
	}
	slices.Sort(*out)
}

// hasAttribute follows p through nested attributes; list indexes step into list-nested
// objects and a map key or list index ends at a map or list attribute.
func hasAttribute(attrs map[string]schema.Attribute, p []attrpath.Step) bool {
	if len(p) == 0 || p[0].Kind != attrpath.Attr {
		return false
	}
	a, ok := attrs[p[0].Name]
	if !ok {
		return false
	}
	rest := p[1:]
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return len(rest) == 0 || hasAttribute(a.Attributes, rest)
	case schema.ListNestedAttribute:
		if len(rest) == 0 {
			return true
		}
		return rest[0].Kind == attrpath.Index && (len(rest) == 1 || hasAttribute(a.NestedObject.Attributes, rest[1:]))
	case schema.MapAttribute, schema.ListAttribute, schema.ObjectAttribute:
		return len(rest) == 0 || len(rest) == 1 && rest[0].Kind != attrpath.Attr
	default:
		return len(rest) == 0
	}
}
