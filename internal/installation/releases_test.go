package installation

import (
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/releasezip"
)

// releaseZips calls each with every supported minor and the files of the module zip of the
// release its CRDs come from (hash checked) that keep takes, by path inside the module.
func releaseZips(t *testing.T, keep func(path string) bool, each func(minor, module string, files map[string][]byte)) {
	t.Helper()
	for _, minor := range manifest.Versions() {
		module, files, err := releasezip.Files(minor, keep)
		if err != nil {
			t.Fatal(err)
		}
		each(minor, module, files)
	}
}
