package nodeclass

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// The EC2NodeClass's own labels and annotations are rendered at the object's root and left out
// of Karpenter's hash, in every hash version.
func TestObjectMetadata(t *testing.T) {
	c := Config{Name: "default", AMIFamily: "AL2023", Role: "NodeRole", AMISelectorTerms: []AMITerm{{Alias: "al2023@latest"}}}
	s, _ := c.Spec()
	plain, err := Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	c.Metadata = &manifest.ObjectMetadata{Annotations: map[string]string{"kubernetes.io/description": "General purpose"}}
	s, _ = c.Spec()
	doc, err := Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "metadata:\n  name: default\n  annotations:\n    kubernetes.io/description: General purpose\n") {
		t.Errorf("manifest:\n%s", doc)
	}
	for _, version := range []string{"1.9", "1.14", "1.15"} {
		a, _, errA := karpenterhash.EC2NodeClassHashFor(version, plain, "Q0E=")
		b, _, errB := karpenterhash.EC2NodeClassHashFor(version, doc, "Q0E=")
		if errA != nil || errB != nil || a != b {
			t.Errorf("Karpenter %s: hash %s vs %s (%v, %v)", version, a, b, errA, errB)
		}
	}
}
