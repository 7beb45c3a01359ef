package oraclegen

import (
	"fmt"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// Oracle is one Karpenter release's own code, as an oracle module links it.
type Oracle struct {
	// Minor is the Karpenter minor as the provider spells it ("1.14", "1.15").
	Minor string
	// APIServer stores documents with the CRDs that release embeds.
	APIServer APIServer
	// EC2NodeClassHashVersion and NodePoolHashVersion are the release's hash versions.
	EC2NodeClassHashVersion, NodePoolHashVersion string
	// EC2NodeClassHash decodes a stored EC2NodeClass (JSON) into the release's Go type (see
	// DecodeStrict) and returns its Hash with the cluster CA bundle caBundle.
	EC2NodeClassHash func(stored []byte, caBundle string) (string, error)
	// NodePoolHash decodes a stored NodePool into the release's Go type and returns its Hash.
	NodePoolHash func(stored []byte) (string, error)
}

// Run is one comparison: Cases random documents drawn from Seed; the test fails when fewer
// than Floor were compared (a differential test that compares nothing would pass vacuously) or
// when fewer than 90% of Karpenter's hashes are distinct (a generator that draws the same spec
// again and again compares little).
type Run struct {
	Seed         int64
	Cases, Floor int
	// Reserved is the launch comparison's floor on cases that launch into reserved capacity.
	Reserved int
	// Settings are the class settings (SettingNetworkInterfaces, ...) the release's instance-type
	// compatibility check reads: the launch comparison draws network interfaces only for a
	// release that has them, and requires each listed setting to decide launches.
	Settings []string
}

// maxReported is how many disagreements a comparison prints in full (all are counted).
const maxReported = 5

// CompareEC2NodeClasses renders random EC2NodeClasses with the provider's renderer and
// compares the hash and hash version the provider computes for each document
// (karpenterhash.EC2NodeClassHashFor, with the provider's embedded CRD defaults) with those of
// Karpenter's own code on the object the API server would store with Karpenter's CRD.
func CompareEC2NodeClasses(t *testing.T, o Oracle, run Run) {
	t.Helper()
	g := New(run.Seed, o.Minor)
	compared, disagree, distinct := 0, 0, map[string]bool{}
	for i := range run.Cases {
		nc := manifest.EC2NodeClass{Name: fmt.Sprintf("oracle-%d", i), Spec: g.EC2NodeClassSpec()}
		caBundle := g.CABundle()
		doc, err := manifest.RenderEC2NodeClass(nc)
		if err != nil {
			t.Fatalf("case %d: render: %v", i, err)
		}
		stored, err := o.APIServer.Store(manifest.EC2NodeClassKind, doc)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, doc)
		}
		want, err := o.EC2NodeClassHash(stored, caBundle)
		if err != nil {
			t.Fatalf("case %d: Karpenter: %v\n%s", i, err, stored)
		}
		got, version, err := karpenterhash.EC2NodeClassHashFor(o.Minor, doc, caBundle)
		if err != nil {
			t.Fatalf("case %d: provider: %v\n%s", i, err, doc)
		}
		if version != o.EC2NodeClassHashVersion {
			t.Fatalf("EC2NodeClass hash version: provider %q, Karpenter %q", version, o.EC2NodeClassHashVersion)
		}
		if got != want {
			disagree++
			if disagree <= maxReported {
				t.Errorf("case %d: EC2NodeClass hash: provider %s, Karpenter %s (caBundle %q)\n%s", i, got, want, caBundle, doc)
			}
		}
		compared++
		distinct[want] = true
	}
	t.Logf("compared %d EC2NodeClasses (Karpenter %s, hash %s): %d distinct hashes, %d disagreements",
		compared, o.Minor, o.EC2NodeClassHashVersion, len(distinct), disagree)
	checkCount(t, "EC2NodeClasses", run, compared, len(distinct))
}

// CompareNodePools renders random NodePools with the provider's renderer and compares the hash
// the provider computes for each document (karpenterhash.DecodeNodePoolFor and NodePoolHash,
// with the provider's embedded CRD defaults) with that of Karpenter's own code on the object the
// API server would store with Karpenter's CRD.
func CompareNodePools(t *testing.T, o Oracle, run Run) {
	t.Helper()
	if karpenterhash.NodePoolHashVersion != o.NodePoolHashVersion {
		t.Errorf("NodePool hash version: provider %q, Karpenter %q", karpenterhash.NodePoolHashVersion, o.NodePoolHashVersion)
	}
	g := New(run.Seed, o.Minor)
	compared, disagree, distinct := 0, 0, map[string]bool{}
	for i := range run.Cases {
		np := manifest.NodePool{Name: fmt.Sprintf("oracle-%d", i), Spec: g.NodePoolSpec()}
		doc, err := manifest.RenderNodePool(np)
		if err != nil {
			t.Fatalf("case %d: render: %v", i, err)
		}
		stored, err := o.APIServer.Store(manifest.NodePoolKind, doc)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, doc)
		}
		want, err := o.NodePoolHash(stored)
		if err != nil {
			t.Fatalf("case %d: Karpenter: %v\n%s", i, err, stored)
		}
		tmpl, err := karpenterhash.DecodeNodePoolFor(o.Minor, doc)
		if err != nil {
			t.Fatalf("case %d: provider: %v\n%s", i, err, doc)
		}
		got, err := karpenterhash.NodePoolHash(tmpl)
		if err != nil {
			t.Fatalf("case %d: provider: %v\n%s", i, err, doc)
		}
		if got != want {
			disagree++
			if disagree <= maxReported {
				t.Errorf("case %d: NodePool hash: provider %s, Karpenter %s\n%s", i, got, want, doc)
			}
		}
		compared++
		distinct[want] = true
	}
	t.Logf("compared %d NodePools (Karpenter %s, hash %s): %d distinct hashes, %d disagreements",
		compared, o.Minor, o.NodePoolHashVersion, len(distinct), disagree)
	checkCount(t, "NodePools", run, compared, len(distinct))
}

func checkCount(t *testing.T, what string, run Run, compared, distinct int) {
	t.Helper()
	if run.Floor < 1 {
		t.Fatalf("the floor of %s compared is %d: it must be at least 1", what, run.Floor)
	}
	if compared < run.Floor {
		t.Fatalf("compared %d %s, want at least %d", compared, what, run.Floor)
	}
	if distinct < compared*9/10 {
		t.Fatalf("only %d distinct Karpenter hashes in %d %s: the generator is too narrow", distinct, compared, what)
	}
}
