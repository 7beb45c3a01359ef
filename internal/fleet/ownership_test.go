package fleet_test

import (
	"maps"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// Objects are the pool's only with every ownership tag; the read scope is the cluster's managed
// objects, and without a cluster name there is none (each pool lists its own).
func TestOwnershipTags(t *testing.T) {
	if fleet.ReadScope("") != nil {
		t.Error("a read scope without a cluster")
	}
	if got := fleet.ReadScope("c"); !maps.Equal(got, map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: "c"}) {
		t.Errorf("ReadScope = %v", got)
	}
	if got := fleet.PoolTags("", "p"); !maps.Equal(got, map[string]string{launchplan.TagNodePool: "p", launchplan.TagManagedBy: launchplan.ManagedBy}) {
		t.Errorf("PoolTags without a cluster = %v", got)
	}
	own := fleet.OwnershipOf("c", "p", "0123456789abcdef")
	want := map[string]string{launchplan.TagNodePool: "p", launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagCluster: "c",
		launchplan.TagOwner: "0123456789abcdef"}
	if !maps.Equal(map[string]string(own), want) {
		t.Errorf("OwnershipOf = %v", own)
	}
	if _, leaked := fleet.PoolTags("c", "p")[launchplan.TagOwner]; leaked {
		t.Error("pool tags carry an owner")
	}
}

// One rule decides replace-or-keep for the plan's warnings and the apply.
func TestClassify(t *testing.T) {
	fps := map[string]string{"lt-a": "fp1"}
	zones, subnets := []string{"z1"}, map[string]bool{"subnet-1": true}
	stamp := func(fp string) launchplan.TemplateStamp {
		return launchplan.TemplateStamp{Template: "lt-a", Fingerprint: fp}
	}
	for _, tc := range []struct {
		name         string
		zone, subnet string
		fp           string
		want         fleet.NodeVerdict
	}{
		{"kept", "z1", "subnet-1", "fp1", fleet.NodeVerdict{}},
		{"another zone", "z2", "subnet-1", "fp1", fleet.NodeVerdict{Outside: true}},
		{"a subnet no longer selected", "z1", "subnet-2", "fp1", fleet.NodeVerdict{Outside: true}},
		{"changed content", "z1", "subnet-1", "fp0", fleet.NodeVerdict{Drifted: true}},
	} {
		v := fleet.Classify(tc.zone, tc.subnet, stamp(tc.fp), fps, zones, subnets)
		if v != tc.want || v.Replace() != (tc.want != fleet.NodeVerdict{}) {
			t.Errorf("%s: %+v, want %+v", tc.name, v, tc.want)
		}
	}
}
