package fleet

import (
	"context"
	"maps"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// PoolApply is one apply of a pool, with the plan the apply executes (already checked against
// what the plan showed).
type PoolApply struct {
	Cluster Cluster
	Name    string
	// Owner is the pool's owner id; "" for a new pool: ApplyPool checks that no other owner holds
	// the name and picks one before its first mutating call.
	Owner    string
	Static   bool
	Replicas int
	Plan     launchplan.Plan
	Class    launchplan.Class
	Wait     time.Duration
	// BeforeClaim, when set (by tests), runs between a new pool's name check and its first
	// mutating call.
	BeforeClaim func(pool string)
}

// PoolApplied is what an apply left.
type PoolApplied struct {
	// Owner is the pool's owner id: "" when a new pool's apply failed and removed what it made
	// (its state is not saved).
	Owner string
	// Templates are the ensured templates by name (a static pool).
	Templates map[string]LaunchTemplate
	// Nodes are the live nodes of a static pool, also after a failure (nil for a dynamic pool).
	Nodes []Node
	// Conflicts are another owner's claims on a new pool's name: nothing was changed.
	Conflicts []attrpath.Finding
	Errors    []error
	// Aborted is set when a test hook simulated a crash: nothing may be saved.
	Aborted bool
}

// ApplyPool makes EC2 hold exactly the planned templates and Replicas nodes of a static pool.
// A dynamic pool holds no EC2 objects: its apply only deletes templates its owner created before
// (provider versions that created templates for dynamic pools too). A new pool gets its owner id
// after the check that no other owner holds the name; a pool whose name another owner takes in
// the meantime fails on its first template (names are unique per region) and removes what it
// created.
func (s Stage) ApplyPool(ctx context.Context, a PoolApply) PoolApplied {
	out := PoolApplied{Owner: a.Owner}
	creating := a.Owner == ""
	if creating {
		conflicts, err := a.Cluster.Conflicts(ctx, a.Name, false)
		if out.Conflicts = conflicts; err != nil || len(conflicts) > 0 {
			out.Errors = appendErr(out.Errors, err)
			return out
		}
		out.Owner = NewOwnerID()
		if a.BeforeClaim != nil {
			a.BeforeClaim(a.Name)
		}
	}
	own := a.Cluster.Own(a.Name, out.Owner)
	if !a.Static {
		if !creating { // a new owner id owns nothing yet
			// What is left, Read finds and the next plan deletes again.
			out.Errors = appendErr(out.Errors, s.DeleteTemplates(ctx, own))
		}
		return out
	}
	ensured, err := s.EnsureTemplates(ctx, own, owned(a.Plan.LaunchTemplates, own))
	if err != nil {
		out.Errors = append(out.Errors, err)
		if creating { // nothing of this new owner may stay behind: its state will not be saved
			out.Errors = appendErr(out.Errors, s.DeleteTemplates(ctx, own))
			out.Owner = ""
		}
		return out
	}
	out.Templates = ensured
	res := s.Reconcile(ctx, PoolOf(a.Name, a.Replicas, own, a.Plan, a.Class, ensured, a.Wait))
	for _, e := range res.Errors {
		out.Errors = append(out.Errors, e)
	}
	out.Nodes, out.Aborted = NodesOf(res.Live, PlannedSubnets(a.Plan)), res.Aborted
	return out
}

// owned are the planned templates with the owner's tags stamped on (a new pool's plan was made
// before it had an owner id).
func owned(planned []launchplan.LaunchTemplate, own Ownership) []launchplan.LaunchTemplate {
	out := make([]launchplan.LaunchTemplate, len(planned))
	for i, lt := range planned {
		lt.Tags = maps.Clone(lt.Tags)
		if lt.Tags == nil {
			lt.Tags = map[string]string{}
		}
		maps.Copy(lt.Tags, own)
		out[i] = lt
	}
	return out
}

func appendErr(errs []error, err error) []error {
	if err == nil {
		return errs
	}
	return append(errs, err)
}
