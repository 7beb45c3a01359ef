package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/kubeclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
)

// liveObjects serves objects by resource/name; the others are kubeclient.ErrNotFound.
func liveObjects(objs map[string]map[string]any) LiveObject {
	return func(_ context.Context, _, resource, name string) (map[string]any, error) {
		if o, ok := objs[resource+"/"+name]; ok {
			return o, nil
		}
		return nil, fmt.Errorf("%w: no %s named %q", kubeclient.ErrNotFound, resource, name)
	}
}

var (
	liveRoleClass = map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": map[string]any{"name": "default"},
		"spec": map[string]any{"role": "KarpenterNodeRole", "amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}}}}
	livePool = map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": "general"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"requirements": []any{},
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
)

// TestImportFromCluster: a class with role has no profile of the provider's, unless the
// provider's profile for it exists (then the configuration keeps it and says so); a pool brings
// its class's values and says to replace them; a pool not in the cluster is not found without a
// finding (EC2 is asked next); a pool whose class is missing fails naming both.
func TestImportFromCluster(t *testing.T) {
	ctx := context.Background()
	read := liveObjects(map[string]map[string]any{"ec2nodeclasses/default": liveRoleClass, "nodepools/general": livePool,
		"nodepools/orphan": withClassRef(livePool, "gone")})
	c, errs, warnings := ClassFromCluster(ctx, read, "default", "")
	if len(errs) > 0 || c.Config.Role != "KarpenterNodeRole" || c.Config.ProfileForStaticPools() || len(warnings) != 0 {
		t.Errorf("class: %+v %v %v", c.Config, errs, warnings)
	}
	c, _, warnings = ClassFromCluster(ctx, read, "default", "owner-1")
	if !c.Config.ProfileForStaticPools() || len(warnings) != 1 || !strings.Contains(warnings[0].Message, "owner id owner-1") ||
		!strings.Contains(warnings[0].Message, "instance_profile_for_static_pools = true") {
		t.Errorf("class with the provider's profile: %+v %v", c.Config, warnings)
	}
	p, class, found, errs, warnings := PoolFromCluster(ctx, read, "general")
	if !found || len(errs) > 0 || p.NodeClass != "default" || class.Config.Name != "default" || len(warnings) != 1 ||
		!strings.Contains(warnings[0].Message, "karpenter_node_class.<name>.resolved") {
		t.Errorf("pool: %v %v %v %v", found, p.NodeClass, errs, warnings)
	}
	if _, _, found, errs, _ := PoolFromCluster(ctx, read, "absent"); found || len(errs) > 0 {
		t.Errorf("absent pool: found %v, %v", found, errs)
	}
	if _, _, _, errs, _ := PoolFromCluster(ctx, read, "orphan"); len(errs) != 1 ||
		!strings.Contains(errs[0].Message, `names EC2NodeClass "gone" in its nodeClassRef`) || !strings.Contains(errs[0].Message, "kubectl get ec2nodeclasses") {
		t.Errorf("orphan pool: %v", errs)
	}
}

// withClassRef is a copy of pool whose nodeClassRef names class.
func withClassRef(pool map[string]any, class string) map[string]any {
	return map[string]any{"apiVersion": pool["apiVersion"], "kind": pool["kind"], "metadata": map[string]any{"name": "orphan"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"requirements": []any{},
			"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class}}}}}
}

// TestImportClass: the provider's profile for the class name gives the owner id, which the
// import's plan is made with, and the configuration keeps the profile; without one, a class read
// from the cluster gets a new owner id and no profile (nothing to say);
// without the cluster, the owner id (or none) and a warning; an unreadable profile is an error
// naming the IAM permissions.
func TestImportClass(t *testing.T) {
	ctx := context.Background()
	read := liveObjects(map[string]map[string]any{"ec2nodeclasses/default": liveRoleClass})
	held := &fakeIAM{profiles: map[string]fleet.InstanceProfile{profileName(): {Name: profileName(), Roles: []string{"KarpenterNodeRole"},
		Tags: map[string]string{launchplan.TagManagedBy: launchplan.ManagedBy, launchplan.TagNodeClass: "default", launchplan.TagOwner: "owner-1"}}}}
	got, errs, warnings := ImportClass(ctx, ClassPorts{Profiles: held}, profileFacts, read, "default")
	if len(errs) > 0 || len(warnings) != 1 || got.OwnerID != "owner-1" || !got.Adopted || got.Class == nil ||
		got.Class.Config.Role != "KarpenterNodeRole" || !got.Class.Config.ProfileForStaticPools() {
		t.Errorf("held profile: %+v %v %v", got, errs, warnings)
	}
	got, errs, warnings = ImportClass(ctx, ClassPorts{Profiles: &fakeIAM{}}, profileFacts, read, "default")
	if len(errs) > 0 || got.OwnerID == "" || got.Adopted || got.Class == nil || got.Class.Config.ProfileForStaticPools() || len(warnings) != 0 {
		t.Errorf("no profile: %+v %v %v", got, errs, warnings)
	}
	got, errs, warnings = ImportClass(ctx, ClassPorts{Profiles: held}, profileFacts, nil, "default")
	if len(errs) > 0 || got.OwnerID != "owner-1" || got.Class != nil || len(warnings) != 1 || warnings[0].Message != NoClusterAccess(manifest.EC2NodeClassKind).Message {
		t.Errorf("no cluster access: %+v %v %v", got, errs, warnings)
	}
	if got, _, _ = ImportClass(ctx, ClassPorts{Profiles: &fakeIAM{}}, profileFacts, nil, "default"); got.OwnerID != "" {
		t.Errorf("no cluster access, no profile: owner id %q", got.OwnerID)
	}
	if _, errs, _ = ImportClass(ctx, ClassPorts{Profiles: held}, profileFacts, read, "absent"); len(errs) != 1 {
		t.Errorf("absent class: %v", errs)
	}
	_, errs, _ = ImportClass(ctx, ClassPorts{Profiles: &fakeIAM{getErr: errors.New("AccessDenied")}}, profileFacts, read, "default")
	if len(errs) != 1 || errs[0].Summary != "Cannot read the class's instance profile" ||
		errs[0].Message != "AccessDenied\n\n"+fleet.IAMPermissionsHint {
		t.Errorf("unreadable profile: %s", dump(errs))
	}
}
