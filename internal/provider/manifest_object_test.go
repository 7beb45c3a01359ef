package provider

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

// The manifest object is the YAML read back: mappings are objects, lists tuples, numbers and
// bools keep their type, and only a placeholder string turns unknown.
func TestManifestObject(t *testing.T) {
	doc := "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: c\nspec:\n  role: " + nodeclass.RoleKnownAfterApply +
		"\n  subnetSelectorTerms:\n    - tags: {karpenter.sh/discovery: demo}\n  kubelet:\n    maxPods: 110\n  detailedMonitoring: true\n"
	v, err := manifestObject(doc, nodeclass.RoleKnownAfterApply)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsFullyKnown() {
		t.Fatal("the object is fully known; spec.role should be unknown")
	}
	at := func(steps ...any) tftypes.Value {
		p := tftypes.NewAttributePath()
		for _, s := range steps {
			switch s := s.(type) {
			case string:
				p = p.WithAttributeName(s)
			case int:
				p = p.WithElementKeyInt(s)
			}
		}
		got, _, err := tftypes.WalkAttributePath(v, p)
		if err != nil {
			t.Fatalf("%v: %v", steps, err)
		}
		return got.(tftypes.Value)
	}
	if r := at("spec", "role"); r.IsKnown() {
		t.Errorf("spec.role = %v, want unknown", r)
	}
	var kind, tag string
	var pods big.Float
	var monitoring bool
	_ = at("kind").As(&kind)
	_ = at("spec", "subnetSelectorTerms", 0, "tags", "karpenter.sh/discovery").As(&tag)
	_ = at("spec", "kubelet", "maxPods").As(&pods)
	_ = at("spec", "detailedMonitoring").As(&monitoring)
	if n, _ := pods.Int64(); kind != "EC2NodeClass" || tag != "demo" || n != 110 || !monitoring {
		t.Errorf("kind %q, tag %q, maxPods %v, detailedMonitoring %v", kind, tag, n, monitoring)
	}
	known, err := manifestObject(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !known.IsFullyKnown() {
		t.Error("without placeholders the object must be fully known")
	}
	if _, err := manifestObject("a: [unclosed"); err == nil {
		t.Error("a manifest that does not parse must fail")
	}
}
