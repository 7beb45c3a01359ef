package nodepool

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

func TestManifest(t *testing.T) {
	two := 2
	doc, err := Manifest(Spec{Name: "general", ConsolidationPolicy: PolicyWhenEmpty, ConsolidateAfter: "30s", Weight: &two,
		Budgets:      []Budget{{Reasons: []string{"Drifted"}}},
		Requirements: []requirements.Requirement{{Key: "kubernetes.io/arch", Operator: requirements.OpIn, Values: []string{"amd64"}, MinValues: &two}},
	}, "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: general", "kind: EC2NodeClass", "name: default", "nodes: 10%", "weight: 2", "minValues: 2", "consolidateAfter: 30s"} {
		if !strings.Contains(doc, want) {
			t.Errorf("manifest lacks %q:\n%s", want, doc)
		}
	}
}
