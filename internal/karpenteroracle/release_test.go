package karpenteroracle

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenteroracle/oraclegen"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// The oracle of every supported Karpenter release is this one package. A release is its module
// file (go.mod for the newest, go.v1_N.mod for the others: `go test -modfile=go.v1_N.mod`) and
// the build tags that select the code of its API where releases differ: karpenter_pre_1_N for
// each minor N the release is older than (1.12 is karpenter_pre_1_13,karpenter_pre_1_14,
// karpenter_pre_1_15; scripts/karpenter-oracle.sh spells them). The files rel_<first>-<last>
// hold that code, each for the releases its name says; every boundary changes a signature
// the other side cannot compile against, so a module file run with another release's tags does
// not build. The release the test reports and the provider plans at is the one linked
// (minor), and each release's runs are in releaseRuns.

// minor is the Karpenter minor linked into the test binary ("1.12"): karpenter-provider-aws's
// version in the build information.
func minor(t *testing.T) string {
	t.Helper()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	for _, d := range bi.Deps {
		if d.Path != "github.com/aws/karpenter-provider-aws" {
			continue
		}
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version
		}
		return minorOf(v)
	}
	t.Fatal("karpenter-provider-aws is not linked")
	return ""
}

// minorOf is the minor of a module version as the provider spells it ("v1.12.0": "1.12"); an
// unknown one has no runs (runOf).
func minorOf(version string) string { return strings.TrimPrefix(manifest.MinorOf(version), "v") }

// runs are a release's comparisons: seeds, cases and floors.
type runs struct {
	hashes, pools, drift, overlays, launches, allocatable oraclegen.Run
}

// runOf is the runs of the linked release.
func runOf(t *testing.T) runs {
	t.Helper()
	r, ok := releaseRuns[minor(t)]
	if !ok {
		t.Fatalf("no runs for Karpenter %s", minor(t))
	}
	return r
}

// The class settings each release's EC2NodeClass has, which its launches draw: network
// interfaces and placement groups from 1.11, CPU options and connection tracking from 1.13,
// enclave options from 1.15.
var (
	settings1_11 = []string{oraclegen.SettingNetworkInterfaces, oraclegen.SettingPlacementGroup}
	settings1_13 = append(settings1_11[:2:2], oraclegen.SettingCPUOptions, oraclegen.SettingConnectionTracking)
	settings1_15 = append(settings1_13[:4:4], oraclegen.SettingEnclaveOptions)
)

// releaseRuns are the runs of each release. The newest and the two ends get the most cases; the
// releases between them fewer (each adds to make unit's time). No case may make Karpenter panic.
var releaseRuns = map[string]runs{
	"1.9":  wide(20261213, 20261212, 20261214, nil),
	"1.10": narrow(20261220, nil),
	"1.11": narrow(20261230, settings1_11),
	"1.12": narrow(20261240, settings1_11),
	"1.13": narrow(20261250, settings1_13),
	"1.14": wide(20261209, 20261207, 20261211, settings1_13),
	"1.15": {
		hashes: oraclegen.Run{Seed: 20261203, Cases: 3000, Floor: 2500}, pools: oraclegen.Run{Seed: 20261204, Cases: 3000, Floor: 2500},
		drift:       oraclegen.Run{Seed: 20261205, Cases: 20000, Floor: 15000},
		overlays:    oraclegen.Run{Seed: 20261206, Cases: 2000, Floor: 1500},
		launches:    oraclegen.Run{Seed: 20261208, Cases: 4500, Floor: 4000, Reserved: 500, Settings: settings1_15},
		allocatable: oraclegen.Run{Seed: 20261210, Cases: 5000, Floor: 4000},
	},
}

// wide is the runs of 1.9 and 1.14 (the seeds of their former modules).
func wide(launch, overlays, alloc int64, settings []string) runs {
	return runs{hashes: oraclegen.Run{Seed: 20261203, Cases: 3000, Floor: 2500}, pools: oraclegen.Run{Seed: 20261204, Cases: 3000, Floor: 2500},
		drift:       oraclegen.Run{Seed: 20261205, Cases: 20000, Floor: 15000},
		overlays:    oraclegen.Run{Seed: overlays, Cases: 1000, Floor: 800},
		launches:    oraclegen.Run{Seed: launch, Cases: 3000, Floor: 2700, Reserved: 300, Settings: settings},
		allocatable: oraclegen.Run{Seed: alloc, Cases: 5000, Floor: 4000}}
}

// narrow is the runs of a release between them, seeded from seed.
func narrow(seed int64, settings []string) runs {
	return runs{hashes: oraclegen.Run{Seed: seed, Cases: 1000, Floor: 800}, pools: oraclegen.Run{Seed: seed + 1, Cases: 1000, Floor: 800},
		drift:       oraclegen.Run{Seed: seed + 2, Cases: 5000, Floor: 4000},
		overlays:    oraclegen.Run{Seed: seed + 3, Cases: 500, Floor: 400},
		launches:    oraclegen.Run{Seed: seed + 4, Cases: 1500, Floor: 1350, Reserved: 150, Settings: settings},
		allocatable: oraclegen.Run{Seed: seed + 5, Cases: 2000, Floor: 1600}}
}
