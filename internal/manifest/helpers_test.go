package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest/crdcheck"
)

// crdDir holds the Karpenter v1.14.1 CRDs, outside the repository (shared reference material).
const crdDir = "../../../shared/reference/crds"

var (
	ec2NodeClassCRD = filepath.Join(crdDir, "karpenter.k8s.aws_ec2nodeclasses.yaml")
	nodePoolCRD     = filepath.Join(crdDir, "karpenter.sh_nodepools.yaml")
)

// requireCRD skips the test when the CRD file is not present.
func requireCRD(t *testing.T, crdPath string) {
	t.Helper()
	if _, err := os.Stat(crdPath); err != nil {
		t.Skipf("CRD %s not available (%v): skipping CRD validation", crdPath, err)
	}
}

// validateAgainstCRD fails the test unless yamlDoc passes the CRD's v1 schema and the CEL rules
// crdcheck implements.
func validateAgainstCRD(t *testing.T, crdPath, yamlDoc string) {
	t.Helper()
	requireCRD(t, crdPath)
	if err := crdcheck.Validate(crdPath, yamlDoc); err != nil {
		t.Fatalf("document rejected by %s:\n%v\n--- document ---\n%s", filepath.Base(crdPath), err, yamlDoc)
	}
}

// rejectedByCRD returns crdcheck's error for yamlDoc, failing the test if the document is accepted.
func rejectedByCRD(t *testing.T, crdPath, yamlDoc string) error {
	t.Helper()
	requireCRD(t, crdPath)
	err := crdcheck.Validate(crdPath, yamlDoc)
	if err == nil {
		t.Fatalf("document accepted by %s, want a rejection:\n%s", filepath.Base(crdPath), yamlDoc)
	}
	return err
}
