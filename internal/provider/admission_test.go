package provider

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/admitted"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

const admissionPoolDoc = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    spec:\n" +
	"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n"

// The Admit port records what it admits and takes a recorded verdict instead of judging again;
// a refusal is never recorded, so its findings come back on every plan.
func TestAdmissionRecordsAdmittedManifestsOnly(t *testing.T) {
	dir := t.TempDir()
	store := admitted.OpenFor(dir, "test-build")
	defer store.Close()
	admit := admission("1.15", store)

	findings, err := admit(manifest.NodePoolKind, admissionPoolDoc)
	if err != nil || len(findings) != 0 {
		t.Fatalf("the pool should be admitted: %v %v", findings, err)
	}
	if !store.Has("1.15", manifest.NodePoolKind, admissionPoolDoc) {
		t.Fatal("an admitted manifest was not recorded")
	}
	if store.Has("1.14", manifest.NodePoolKind, admissionPoolDoc) {
		t.Fatal("the record is for 1.15 only")
	}

	refusedDoc := strings.Replace(admissionPoolDoc, "  template:\n", "  weight: 1000\n  template:\n", 1)
	for range 2 {
		findings, err = admit(manifest.NodePoolKind, refusedDoc)
		if err != nil || len(findings) == 0 {
			t.Fatalf("weight 1000 should be refused: %v %v", findings, err)
		}
	}
	if store.Has("1.15", manifest.NodePoolKind, refusedDoc) {
		t.Fatal("a refused manifest was recorded")
	}

	// A later process of the same build takes the record without judging: a document recorded
	// as admitted (here by hand, though CEL refuses it) comes back without findings.
	store.Add("1.15", manifest.NodePoolKind, refusedDoc)
	later := admitted.OpenFor(dir, "test-build")
	if !later.Recorded() {
		t.Fatal("the later process sees no records")
	}
	if findings, err := admission("1.15", later)(manifest.NodePoolKind, refusedDoc); err != nil || len(findings) != 0 {
		t.Fatalf("the recorded verdict was not taken: %v %v", findings, err)
	}
	if findings, _ := admission("1.15", nil)(manifest.NodePoolKind, refusedDoc); len(findings) == 0 {
		t.Fatal("without a store every manifest is judged")
	}
}
