package launchplan

import (
	"slices"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

func a1Large() catalog.InstanceType { return itype("a1.large", 2, 4096, "arm64", "nitro", 1, 3, 10) }

// Karpenter leaves a1 types out of an AL2023 class from 1.11 on; an AL2 class, and Karpenter
// before 1.11, keep them.
func TestA1NotOfferedToAL2023(t *testing.T) {
	for _, tc := range []struct {
		version, family string
		offered         bool
	}{
		{"1.15", capacity.FamilyAL2023, false},
		{"1.11", capacity.FamilyAL2023, false},
		{"", capacity.FamilyAL2023, false}, // the default version
		{"1.10", capacity.FamilyAL2023, true},
		{"1.9", capacity.FamilyAL2023, true},
		{"1.15", capacity.FamilyAL2, true},
		{"1.15", capacity.FamilyBottlerocket, true},
	} {
		in := baseInput()
		in.KarpenterVersion, in.Class.AMIFamily = tc.version, tc.family
		in.Catalog = catalog.New([]catalog.InstanceType{a1Large(), c7gLarge()})
		in.Prices.OnDemand["a1.large"] = 0.051 // cheaper than c7g.large: it would launch first
		p := mustBuild(t, in)
		if got := slices.Contains(typeNames(p), "a1.large"); got != tc.offered {
			t.Errorf("Karpenter %q, %s: a1.large eligible = %v, want %v (types %v)", tc.version, tc.family, got, tc.offered, typeNames(p))
		}
		warned := hasProblem(p.Warnings, "template.requirements", "1 instance type that Karpenter", "does not offer to an AL2023 node class (a1.large)")
		if warned == tc.offered {
			t.Errorf("Karpenter %q, %s: warning about a1.large = %v; warnings %v", tc.version, tc.family, warned, p.Warnings)
		}
		if OfferedForFamily(tc.version, tc.family, "a1.large") != tc.offered || !OfferedForFamily(tc.version, tc.family, "c7g.large") {
			t.Errorf("OfferedForFamily(%q, %s) disagrees with the plan", tc.version, tc.family)
		}
	}
}
