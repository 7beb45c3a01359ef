package manifest

import (
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FuzzRenderNodePool renders NodePools whose free-form strings (labels, annotations, requirement
// keys and values, limits, taints, nodeClassRef name) come from the fuzzer. Rendering must never
// panic; it fails only for invalid UTF-8, and otherwise the output must parse as YAML, both
// generically (every string reads back as that string, not as a number, bool or null) and into
// the typed document (the values equal the input).
func FuzzRenderNodePool(f *testing.F) {
	seeds := [][8]string{
		{"team", "platform", "example.com/owner", "1000", "karpenter.k8s.aws/instance-family", "m5", "c5", "1000Gi"},
		{"enabled", "true", "note", "yes", "kubernetes.io/arch", "on", "off", "1000"},
		{"", "", "", "", "", "", "", ""},
		{"1", "0x10", "~", "null", "-", "1e3", ".inf", "-1"},
		{"a: b", "#x", "[1]", "{a: 1}", "*ref", "&anchor", "!tag", "%YAML"},
		{"multi", "line\nvalue", "crlf", "a\r\nb", "tab", "\t", " lead", "trail "},
		{"unicode", "日本語", "bom", "\ufeff", "ls", "\u2028", "nel", "\u0085"},
		{"ctrl", "\x00\x01\x7f", "q", "'\"", "k", "\\", "v", "2001-12-14"},
		{"bad", "\xff", "k", "v", "k", "v", "v", "1"},
		{"<<", "\n", "\t\n", "\n\n", "\na", "=", "<<", "? "},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
	}
	f.Fuzz(func(t *testing.T, labelKey, labelValue, annKey, annValue, reqKey, reqValue1, reqValue2, limit string) {
		np := NodePool{
			Name:        "fuzz",
			Labels:      map[string]string{labelKey: annValue},
			Annotations: map[string]string{annKey: labelValue},
			Spec: NodePoolSpec{
				Template: NodeClaimTemplate{
					Metadata: TemplateMetadata{
						Labels:      map[string]string{labelKey: labelValue, "fixed": reqValue1},
						Annotations: map[string]string{annKey: annValue},
					},
					Spec: NodeClaimTemplateSpec{
						NodeClassRef: NodeClassReference{Name: reqValue2},
						Requirements: []NodeSelectorRequirement{
							{Key: reqKey, Operator: "In", Values: []string{reqValue1, reqValue2}},
							{Key: labelKey, Operator: "Gt", Values: []string{limit}},
						},
						Taints:      []Taint{{Key: annKey, Value: annValue, Effect: "NoSchedule"}},
						ExpireAfter: limit,
					},
				},
				Disruption: Disruption{ConsolidateAfter: limit, Budgets: []Budget{{Nodes: limit, Schedule: reqValue1, Duration: reqValue2}}},
				Limits:     map[string]string{"cpu": limit, limit: labelValue},
			},
		}
		out, err := RenderNodePool(np)
		valid := true
		for _, s := range []string{labelKey, labelValue, annKey, annValue, reqKey, reqValue1, reqValue2, limit} {
			valid = valid && utf8.ValidString(s)
		}
		if !valid {
			if !errors.Is(err, errInvalidUTF8) {
				t.Fatalf("invalid UTF-8 input: error %v, want errInvalidUTF8", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("RenderNodePool: %v", err)
		}
		if again, _ := RenderNodePool(np); again != out {
			t.Fatalf("render is not deterministic:\n%s\n---\n%s", out, again)
		}
		recordSeed(out)

		// Typed decode: the values equal the input.
		var doc nodePoolDoc
		if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		want := np.Spec
		want.Template.Spec.NodeClassRef.Group = DefaultNodeClassGroup
		want.Template.Spec.NodeClassRef.Kind = DefaultNodeClassKind
		if !reflect.DeepEqual(doc.Spec, want) {
			t.Fatalf("typed round trip differs:\n got %#v\nwant %#v\n%s", doc.Spec, want, out)
		}
		if doc.Metadata.Name != np.Name || !reflect.DeepEqual(doc.Metadata.Labels, np.Labels) || !reflect.DeepEqual(doc.Metadata.Annotations, np.Annotations) {
			t.Fatalf("metadata differs: %#v\n%s", doc.Metadata, out)
		}

		// Generic decode (what yamldecode sees): strings stay strings, keys included.
		var generic map[string]any
		if err := yaml.Unmarshal([]byte(out), &generic); err != nil {
			t.Fatalf("output does not parse generically: %v\n%s", err, out)
		}
		spec := generic["spec"].(map[string]any)
		tmpl := spec["template"].(map[string]any)
		checkStringMap(t, "template labels", tmpl["metadata"].(map[string]any)["labels"], np.Spec.Template.Metadata.Labels, out)
		checkStringMap(t, "template annotations", tmpl["metadata"].(map[string]any)["annotations"], np.Spec.Template.Metadata.Annotations, out)
		checkStringMap(t, "limits", spec["limits"], np.Spec.Limits, out)
		checkStringMap(t, "metadata labels", generic["metadata"].(map[string]any)["labels"], np.Labels, out)
		reqs := tmpl["spec"].(map[string]any)["requirements"].([]any)
		r0 := reqs[0].(map[string]any)
		if r0["key"] != reqKey {
			t.Fatalf("requirement key = %#v, want %q\n%s", r0["key"], reqKey, out)
		}
		vals := r0["values"].([]any)
		if len(vals) != 2 || vals[0] != reqValue1 || vals[1] != reqValue2 {
			t.Fatalf("requirement values = %#v, want [%q %q]\n%s", vals, reqValue1, reqValue2, out)
		}
	})
}

func checkStringMap(t *testing.T, what string, got any, want map[string]string, out string) {
	t.Helper()
	m, ok := got.(map[string]any)
	if !ok || len(m) != len(want) {
		t.Fatalf("%s: got %#v, want %d string keys\n%s", what, got, len(want), out)
	}
	for k, v := range want {
		if s, ok := m[k].(string); !ok || s != v {
			t.Fatalf("%s[%q] = %#v, want string %q\n%s", what, k, m[k], v, out)
		}
	}
}
