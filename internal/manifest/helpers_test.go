package manifest

import (
	"errors"
	"fmt"
	"testing"
)

// corpusVersion is the Karpenter minor the package's hand-written documents are judged against:
// they use the typed kubelet of v1.9 to v1.14. The differential judges them under every version.
const corpusVersion = "1.14"

// admitted fails the test unless the API server's validation (Admit) accepts yamlDoc.
func admitted(t *testing.T, yamlDoc string) {
	t.Helper()
	recordManifest(yamlDoc)
	violations, err := AdmitFor(corpusVersion, yamlDoc)
	if err != nil {
		t.Fatalf("%v\n--- document ---\n%s", err, yamlDoc)
	}
	if len(violations) > 0 {
		t.Fatalf("document refused:\n%v\n--- document ---\n%s", violations, yamlDoc)
	}
}

// refused returns Admit's violations for yamlDoc as one error, failing the test if the
// document is accepted.
func refused(t *testing.T, yamlDoc string) error {
	t.Helper()
	recordManifest(yamlDoc)
	violations, err := AdmitFor(corpusVersion, yamlDoc)
	if err != nil {
		t.Fatalf("%v\n--- document ---\n%s", err, yamlDoc)
	}
	if len(violations) == 0 {
		t.Fatalf("document accepted, want a refusal:\n%s", yamlDoc)
	}
	errs := make([]error, len(violations))
	for i, v := range violations {
		errs[i] = errors.New(v.String())
	}
	return fmt.Errorf("%w", errors.Join(errs...))
}
