package planner

import (
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
)

// A static pool of the provider's launcher needs its class's instance profile: without one (a
// class with `role` and no instance_profile_for_static_pools) its plan fails on
// node_class.instance_profile naming the fix. Karpenter's launcher, a dynamic pool, a class with
// a profile, and a class whose late values wait for apply are not refused.
func TestStaticPoolNeedsProfile(t *testing.T) {
	two, karpenter := 2, nodepool.LauncherKarpenter
	static := PoolInput{Config: nodepool.Config{Replicas: &two}, Class: launchplan.Class{Name: "default"}}
	errs := staticProfileFindings(static)
	if len(errs) != 1 || errs[0].Path.String() != "node_class.instance_profile" ||
		!strings.Contains(errs[0].Message, "instance_profile_for_static_pools = true") || !strings.Contains(errs[0].Message, `class "default"`) {
		t.Errorf("static pool without a profile: %s", dump(errs))
	}
	withProfile := static
	withProfile.Class.InstanceProfile = "nodeplane-c1-default-0123456789"
	byKarpenter := static
	byKarpenter.Launcher = &karpenter
	late := static
	late.LateClass = true
	for name, in := range map[string]PoolInput{"with a profile": withProfile, "Karpenter's launcher": byKarpenter,
		"dynamic": {Class: launchplan.Class{Name: "default"}}, "late class": late} {
		if errs := staticProfileFindings(in); len(errs) != 0 {
			t.Errorf("%s: %s", name, dump(errs))
		}
	}
}
