package fleet_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsfake"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

func TestApplyPoolNewPoolOnATakenName(t *testing.T) {
	taken := fleet.LaunchTemplate{ID: "lt-9", Name: "c1/general/x", Tags: fleet.OwnershipOf("c1", "general", "o9")}
	f := &awsfake.EC2{}
	claimed := false
	res := stageOf(f).ApplyPool(context.Background(), fleet.PoolApply{Cluster: fleet.Cluster{Name: "c1", EC2: &fakeListing{templates: []fleet.LaunchTemplate{taken}}},
		Name: "general", Static: true, Replicas: 1, BeforeClaim: func(string) { claimed = true }})
	if len(res.Conflicts) != 1 || res.Owner != "" || claimed || len(f.Log()) != 0 {
		t.Errorf("conflicts %v, owner %q, claimed %v, EC2 calls %v: want one conflict and no claim or call", res.Conflicts, res.Owner, claimed, f.Log())
	}
}

func TestApplyPoolDynamic(t *testing.T) {
	ctx := context.Background()
	f := &awsfake.EC2{}
	if _, err := stageOf(f).EnsureTemplates(ctx, own("o1"), []launchplan.LaunchTemplate{{Name: "c1/general/old", Tags: own("o1")}}); err != nil {
		t.Fatal(err)
	}
	cluster := fleet.Cluster{Name: "c1", EC2: &fakeListing{}}
	// A new dynamic pool claims an owner id and touches nothing in EC2.
	calls := len(f.Log())
	res := stageOf(f).ApplyPool(ctx, fleet.PoolApply{Cluster: cluster, Name: "general"})
	if len(res.Owner) != 16 || len(res.Errors) != 0 || len(f.Log()) != calls || res.Nodes != nil {
		t.Errorf("new dynamic pool: %+v, %d calls", res, len(f.Log())-calls)
	}
	// An existing one deletes the templates its owner left from earlier provider versions.
	res = stageOf(f).ApplyPool(ctx, fleet.PoolApply{Cluster: cluster, Name: "general", Owner: "o1"})
	if res.Owner != "o1" || len(res.Errors) != 0 || len(awsfake.Inputs[ec2.DeleteLaunchTemplateInput](f)) != 1 || len(f.LaunchTemplates) != 0 {
		t.Errorf("existing dynamic pool: %+v, templates left %d", res, len(f.LaunchTemplates))
	}
}

// Another owner takes the name between the check and the first template: the new pool fails on
// that template, removes what it created, and keeps no owner id.
func TestApplyPoolLosesTheRace(t *testing.T) {
	ctx := context.Background()
	f := &awsfake.EC2{}
	planned := launchplan.Plan{LaunchTemplates: []launchplan.LaunchTemplate{{Name: "c1/general/a"}, {Name: "c1/general/b"}}}
	res := stageOf(f).ApplyPool(ctx, fleet.PoolApply{Cluster: fleet.Cluster{Name: "c1", EC2: &fakeListing{}}, Name: "general", Static: true, Replicas: 1, Plan: planned,
		BeforeClaim: func(string) {
			if _, err := stageOf(f).EnsureTemplates(ctx, own("o9"), []launchplan.LaunchTemplate{{Name: "c1/general/b", Tags: own("o9")}}); err != nil {
				t.Fatal(err)
			}
		}})
	if res.Owner != "" || len(res.Errors) == 0 || res.Templates != nil {
		t.Fatalf("lost race: %+v", res)
	}
	if len(f.LaunchTemplates) != 1 || *f.LaunchTemplates[0].LaunchTemplateName != "c1/general/b" {
		t.Errorf("left %d templates, want only the other owner's", len(f.LaunchTemplates))
	}
}
