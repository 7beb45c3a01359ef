package fleet_test

import (
	"context"
	"errors"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

func record(name, fingerprint, id string, version int64) fleet.TemplateRecord {
	r := fleet.TemplateRecord{TemplateOutput: launchplan.TemplateOutput{Name: name, Fingerprint: fingerprint, MaxPods: 29}}
	if id != "" {
		r.ID, r.DefaultVersion = &id, &version
	}
	return r
}

// A static pool's refresh keeps each recorded template's planned content with what EC2 holds
// now, drops one deleted outside Terraform, and lists the owner's live nodes.
func TestRefreshStaticPool(t *testing.T) {
	changed := poolTemplate("lt-1", "c/p/a", "c", "p", "o1")
	changed.Fingerprint, changed.DefaultVersion = "fp-changed", 3
	f := &fakeListing{templates: []fleet.LaunchTemplate{changed}, instances: []fleet.Instance{
		{ID: "i-1", Zone: "za", SubnetID: "subnet-a", State: "running", Tags: fleet.OwnershipOf("c", "p", "o1")},
		{ID: "i-2", Zone: "za", SubnetID: "subnet-a", State: "terminated", Tags: fleet.OwnershipOf("c", "p", "o1")},
		{ID: "i-3", Zone: "za", SubnetID: "subnet-a", State: "running", Tags: fleet.OwnershipOf("c", "p", "o2")},
	}}
	got, err := fleet.Cluster{Name: "c", EC2: f}.Refresh(context.Background(), fleet.PoolRecord{Name: "p", Owner: "o1", Static: true,
		Templates: []fleet.TemplateRecord{record("c/p/a", "fp", "lt-1", 1), record("c/p/b", "fp-b", "lt-2", 1)},
		Subnets:   map[string]string{"za": "subnet-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Templates) != 1 || got.Templates[0].Fingerprint != "fp-changed" || *got.Templates[0].DefaultVersion != 3 ||
		*got.Templates[0].ID != "lt-1" || got.Templates[0].MaxPods != 29 {
		t.Errorf("templates: %+v", got.Templates)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].InstanceID != "i-1" || !got.Nodes[0].InPlannedSubnet {
		t.Errorf("nodes: %+v", got.Nodes)
	}
}

// A dynamic pool without recorded templates or nodes reads none: both stay as recorded.
func TestRefreshDynamicPool(t *testing.T) {
	f := &fakeListing{}
	got, err := fleet.Cluster{Name: "c", EC2: f}.Refresh(context.Background(), fleet.PoolRecord{Name: "p", Owner: "o1", TemplatesNull: true})
	if err != nil || got.Templates != nil || got.Nodes != nil || len(f.instanceTags) != 0 {
		t.Errorf("got %+v, %v (instance reads %d)", got, err, len(f.instanceTags))
	}
	planned := []fleet.TemplateRecord{record("c/p/a", "fp", "", 0)}
	got, err = fleet.Cluster{Name: "c", EC2: f}.Refresh(context.Background(), fleet.PoolRecord{Name: "p", Owner: "o1", Templates: planned})
	if err != nil || len(got.Templates) != 1 || got.Templates[0].ID != nil || got.Templates[0].Fingerprint != "fp" {
		t.Errorf("a planned template stays as recorded: %+v, %v", got.Templates, err)
	}
	f.err = errors.New("throttled")
	_, err = fleet.Cluster{Name: "c", EC2: f}.Refresh(context.Background(), fleet.PoolRecord{Name: "p", Owner: "o1", Templates: planned})
	var e fleet.Error
	if !errors.As(err, &e) || e.Summary != "Cannot read the pool's launch templates" || e.Detail != "throttled" {
		t.Errorf("a failed read: %v", err)
	}
}
