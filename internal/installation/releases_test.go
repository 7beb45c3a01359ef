package installation

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

// releaseZips calls each with every supported minor and the files of the module zip of the
// release its CRDs come from (hash checked) that keep takes, by path inside the module.
func releaseZips(t *testing.T, keep func(path string) bool, each func(minor, module string, files map[string][]byte)) {
	t.Helper()
	for _, minor := range manifest.Versions() {
		crds, err := manifest.CRDsFor(minor)
		if err != nil {
			t.Fatal(err)
		}
		src := crds[manifest.EC2NodeClassKind].Source
		module, version, _ := strings.Cut(src.Module, "@")
		zipPath, _, err := modzip.Download(module, version)
		if err != nil {
			t.Fatal(err)
		}
		z, err := modzip.Open(zipPath, src.ModuleSum)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for name, f := range z.Files {
			path := strings.TrimPrefix(name, src.Module+"/")
			if !keep(path) {
				continue
			}
			b, err := modzip.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			files[path] = b
		}
		_ = z.Close()
		each(minor, src.Module, files)
	}
}
