package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// The README's Compatibility table names the Karpenter versions the provider renders and admits
// for: the oldest and newest embedded CRD versions and the default. It fails when a version is
// added or the default moves without the README saying so.
func TestReadmeKarpenterVersions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\| Karpenter API \|.*CRDs of v([0-9.]+)–v([0-9.]+) by ` + "`karpenter_version`" + ` \(default v([0-9.]+)\) \|$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("README.md's Compatibility table has no Karpenter API row naming the CRD versions and the default")
	}
	versions := manifest.Versions()
	if len(versions) < 2 {
		t.Fatalf("embedded versions %v", versions)
	}
	if got, want := [3]string{string(m[1]), string(m[2]), string(m[3])}, [3]string{versions[0], versions[len(versions)-1], manifest.DefaultVersion}; got != want {
		t.Errorf("README says CRDs of v%s–v%s, default v%s; the code embeds v%s–v%s, default v%s", got[0], got[1], got[2], want[0], want[1], want[2])
	}
}
