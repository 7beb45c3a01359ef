package nodepool

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// The NodePool's own labels and annotations are rendered at the object's root, validated as the
// API server validates them (a finding on `metadata`), and left out of Karpenter's hash.
func TestObjectMetadata(t *testing.T) {
	c := Config{Name: "general", Template: &Template{Labels: map[string]string{"team": "web"}}}
	plain, err := Manifest(c.Spec(), "default")
	if err != nil {
		t.Fatal(err)
	}
	c.Metadata = &manifest.ObjectMetadata{Labels: map[string]string{"app.kubernetes.io/managed-by": "terraform"},
		Annotations: map[string]string{"kubernetes.io/description": "General purpose"}}
	doc, err := Manifest(c.Spec(), "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"metadata:\n  name: general\n  labels:\n    app.kubernetes.io/managed-by: terraform\n  annotations:\n    kubernetes.io/description: General purpose\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("manifest lacks %q:\n%s", want, doc)
		}
	}
	hash := func(d string) string {
		np, err := karpenterhash.DecodeNodePool(d)
		if err != nil {
			t.Fatal(err)
		}
		h, err := karpenterhash.NodePoolHash(np)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if hash(plain) != hash(doc) {
		t.Errorf("the object's metadata changed the NodePool hash: %s → %s", hash(plain), hash(doc))
	}
	if v, _, err := manifest.AdmitAll(manifest.DefaultVersion, doc); err != nil || len(v) != 0 {
		t.Errorf("admission: %v %v", v, err)
	}
	c.Metadata.Labels = map[string]string{"not a key!": "x"}
	doc, _ = Manifest(c.Spec(), "default")
	v, _, err := manifest.AdmitAll(manifest.DefaultVersion, doc)
	if err != nil {
		t.Fatal(err)
	}
	fs := manifest.Findings(manifest.DefaultVersion, manifest.NodePoolKind, v, nil)
	if len(fs) != 1 || fs[0].Path.String() != "metadata.labels" || !strings.Contains(fs[0].Message, "not a key!") {
		t.Errorf("a bad label key: %v", fs)
	}
}
