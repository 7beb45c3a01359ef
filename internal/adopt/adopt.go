// Package adopt reads live Karpenter objects, as the API server returns them, into the
// configuration of the provider's resources: an EC2NodeClass into a karpenter_node_class, a
// NodePool into a karpenter_node_pool, a NodeOverlay into a karpenter_node_overlay. What the
// configuration cannot carry is named, never dropped silently: the configuration is rendered
// back and compared with the live spec, so a field from a newer Karpenter or one the provider
// does not model shows up by its path.
//
// The package is pure: it imports neither Terraform nor the AWS SDK.
package adopt

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Object is a live object, JSON decoded.
type Object = map[string]any

// Left are the metadata entries adoption leaves to the cluster: written by Karpenter (its hashes
// of the spec, which the provider must not overwrite) or by kubectl.
var leftAnnotations = []string{
	"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version",
	"karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version",
	"kubectl.kubernetes.io/last-applied-configuration",
}

// Adopted is what adoption says besides the configuration.
type Adopted struct {
	// Unexpressed are the spec fields the configuration does not carry as the cluster has them,
	// by path (e.g. spec.template.spec.taints[0].timeAdded): applying the configuration would
	// drop or change them.
	Unexpressed []string
	// LeftToCluster are the object's annotations written by Karpenter or kubectl, not adopted.
	LeftToCluster []string
	// Ignored are metadata fields the resources do not manage (ownerReferences, finalizers other
	// than Karpenter's), by name.
	Ignored []string
}

// checkKind reports an object that is not apiVersion/kind, naming what it is.
func checkKind(obj Object, apiVersion, kind string) error {
	gotVersion, _ := obj["apiVersion"].(string)
	gotKind, _ := obj["kind"].(string)
	if gotVersion != apiVersion || gotKind != kind {
		return fmt.Errorf("the object is %s %s, not a %s %s", orNone(gotVersion), orNone(gotKind), apiVersion, kind)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// metadataOf are the object's own labels and annotations that the configuration adopts (nil
// when there are none) and what adoption leaves out.
func metadataOf(obj Object, adopted *Adopted) *manifest.ObjectMetadata {
	meta, _ := obj["metadata"].(map[string]any)
	out := manifest.ObjectMetadata{Labels: stringMap(meta["labels"]), Annotations: stringMap(meta["annotations"])}
	for _, k := range leftAnnotations {
		if _, ok := out.Annotations[k]; ok {
			delete(out.Annotations, k)
			adopted.LeftToCluster = append(adopted.LeftToCluster, k)
		}
	}
	if refs, _ := meta["ownerReferences"].([]any); len(refs) > 0 {
		adopted.Ignored = append(adopted.Ignored, "metadata.ownerReferences")
	}
	if fins, _ := meta["finalizers"].([]any); slices.ContainsFunc(fins, func(f any) bool {
		s, _ := f.(string)
		return !strings.HasPrefix(s, "karpenter.sh/") && !strings.HasPrefix(s, "karpenter.k8s.aws/")
	}) {
		adopted.Ignored = append(adopted.Ignored, "metadata.finalizers")
	}
	if len(out.Labels) == 0 {
		out.Labels = nil
	}
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	if out.Labels == nil && out.Annotations == nil {
		return nil
	}
	return &out
}

// stringMap is a JSON object of scalars as strings (quantities may be JSON numbers); nil when
// there is none.
func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k] = scalar(e)
	}
	return out
}

// scalar is a JSON scalar as the text Kubernetes would print for it.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// specOf is the object's spec (nil when it has none).
func specOf(obj Object) map[string]any {
	spec, _ := obj["spec"].(map[string]any)
	return spec
}

// decodeInto decodes a JSON-decoded value into a typed one by its JSON tags.
func decodeInto(v any, dst any, what string) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", what, err)
	}
	return nil
}

// unexpressed compares a live spec with the spec the adopted configuration renders (a YAML
// document) and names every path of the live spec the rendering drops or changes. What the
// rendering adds is what the CRD defaults (the live object from an API server holds it already).
func unexpressed(live map[string]any, doc string) ([]string, error) {
	var rendered struct {
		Spec map[string]any `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(doc), &rendered); err != nil {
		return nil, fmt.Errorf("cannot read the rendered manifest: %w", err)
	}
	a, b := map[string]string{}, map[string]string{}
	flatten("spec", live, a)
	flatten("spec", rendered.Spec, b)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if v, ok := b[k]; !ok || v != a[k] {
			out = append(out, k)
		}
	}
	return out, nil
}

// flatten writes each leaf of v under its path; empty objects and lists are leaves of their own
// so that `{}` and absent differ only when one side has content.
func flatten(at string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(at+key(k), e, out)
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s[%d]", at, i), e, out)
		}
	case nil:
	case float64, string:
		out[at] = scalar(x)
	default:
		out[at] = fmt.Sprint(x)
	}
}

// key is a map key in a path: .name for a plain name, ["a/b"] otherwise.
func key(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_'
	}) < 0 {
		return "." + k
	}
	return fmt.Sprintf("[%q]", k)
}

// intPtr is an optional count as the configuration holds it.
func intPtr[T int32 | int64](p *T) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// strPtr is an optional string that the API server defaults (empty: not set).
func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nameOf is metadata.name.
func nameOf(obj Object) string {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name
}
