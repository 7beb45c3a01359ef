package planner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

// PoolEC2 are the pool's doors to its own EC2 objects: the apply stage's ports, which the AWS
// adapter implements, and the test hooks of a simulated crash.
type PoolEC2 struct {
	Listing   fleet.Listing
	Templates fleet.Templates
	Instances fleet.Instances
	// AfterLaunch and BeforeClaim are set by tests only (fleet.Stage, fleet.PoolApply).
	AfterLaunch func(pool string) error
	BeforeClaim func(pool string)
}

func (e PoolEC2) cluster(name string) fleet.Cluster { return fleet.Cluster{Name: name, EC2: e.Listing} }

func (e PoolEC2) stage() fleet.Stage {
	return fleet.Stage{Templates: e.Templates, Instances: e.Instances, AfterLaunch: e.AfterLaunch}
}

// PlannedTemplate is one planned `launch_templates` entry; a static pool's id and default
// version are known from the state or wait for apply.
type PlannedTemplate struct {
	TemplateRecord
	IDUnknown, VersionUnknown bool
}

// PlanTemplates are the planned `launch_templates` (nil when the plan shows none): a static
// pool's ids come from the state when the template is already known there (a content change
// writes a new version under the same id, so the default version stays only while the
// fingerprint does); a dynamic pool's are only planned, with null id and default version.
func PlanTemplates(outs []launchplan.TemplateOutput, recorded []TemplateRecord, static bool) []PlannedTemplate {
	if outs == nil {
		return nil
	}
	known := make(map[string]TemplateRecord, len(recorded))
	for _, lt := range recorded {
		known[lt.Name] = lt
	}
	out := make([]PlannedTemplate, len(outs))
	for i, o := range outs {
		out[i] = PlannedTemplate{TemplateRecord: TemplateRecord{TemplateOutput: o}}
		if !static {
			continue
		}
		out[i].IDUnknown, out[i].VersionUnknown = true, true
		if prev := known[o.Name]; prev.ID != nil {
			out[i].ID, out[i].IDUnknown = prev.ID, false
			if prev.Fingerprint == o.Fingerprint {
				out[i].DefaultVersion, out[i].VersionUnknown = prev.DefaultVersion, false
			}
		}
	}
	return out
}

// PoolApplyInput is one create or update of a pool: the applied values and what the plan showed.
type PoolApplyInput struct {
	PoolInput
	// Unreadable: the shell could not read the applied values into PoolInput (and said why).
	// Nothing is planned or applied; what the plan recorded is kept as after a failed apply.
	Unreadable bool
	// Creating: a new pool, whose owner id the apply picks after checking the name is free.
	Creating bool
	// Shown is what the plan showed of the launch (nil: planned while the node class was unknown,
	// so this apply's plan is the plan).
	Shown *launchplan.Shown
	// Recorded are the planned `launch_templates`; TemplatesNull: the plan shows none.
	Recorded      []TemplateRecord
	TemplatesNull bool
	// NodesNull: the plan's `nodes` is null or unknown.
	NodesNull bool
	Wait      time.Duration
}

// PoolApplied is what an apply leaves in state.
type PoolApplied struct {
	OwnerID string
	// Templates are the `launch_templates` to save (TemplatesNull in the input: leave it null).
	Templates []TemplateRecord
	// Nodes: Kept leaves the plan's value (null when it was unknown).
	Nodes            Answer[[]Node]
	Errors, Warnings []attrpath.Finding
	// Save is false when nothing is to be saved: nothing was created, or a test hook simulated
	// a crash (state is lost then, as after a killed apply).
	Save bool
}

// ApplyPool plans the pool again on the applied values, checks that the launch is the one the
// plan showed (apply executes what the plan showed, or nothing) and runs the apply stage
// (fleet.Stage.ApplyPool). After a failure it still records what exists (launch templates and
// live nodes), so nothing that launched is lost from state.
func ApplyPool(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolApplyInput) PoolApplied {
	static := in.ProviderStatic()
	out := PoolApplied{OwnerID: in.OwnerID, Nodes: Answer[[]Node]{Kept: true}}
	recorded := slices.Clone(in.Recorded)
	var res PoolResult
	if !in.Unreadable {
		if _, p, ok := res.launchPlan(ctx, ports, facts, in.PoolInput); ok && res.holds(in, p) {
			if aborted := res.runStage(ctx, ports, facts, in, p, &out, recorded); aborted {
				out.Errors, out.Warnings = res.Errors, res.Warnings
				return out
			}
		}
	}
	out.Errors, out.Warnings = res.Errors, res.Warnings
	// A static pool's template without an id was never launched; a dynamic pool's are only planned.
	out.Templates = slices.DeleteFunc(recorded, func(lt TemplateRecord) bool { return static && lt.ID == nil })
	if out.Templates == nil {
		out.Templates = []TemplateRecord{}
	}
	failed := in.Unreadable || len(out.Errors) > 0
	nodesNull := out.Nodes.Value == nil && (!out.Nodes.Kept || in.NodesNull)
	out.Save = !failed || len(out.Templates) > 0 || !nodesNull
	return out
}

// runStage runs the apply stage on the plan and merges what it left into out and the recorded
// templates (their ids); aborted is set when a test hook simulated a crash: nothing may be saved.
func (res *PoolResult) runStage(ctx context.Context, ports PoolPorts, facts PoolFacts, in PoolApplyInput, p launchplan.Plan,
	out *PoolApplied, recorded []TemplateRecord) (aborted bool) {
	static := in.ProviderStatic()
	owner := in.OwnerID
	if in.Creating {
		owner = ""
	}
	applied := ports.EC2.stage().ApplyPool(ctx, fleet.PoolApply{Cluster: ports.EC2.cluster(facts.ClusterName), Name: in.Name, Owner: owner,
		Static: static, Replicas: derefInt(in.Replicas), Plan: p, Class: in.Class, Wait: in.Wait, BeforeClaim: ports.EC2.BeforeClaim})
	res.Errors = append(res.Errors, applied.Conflicts...)
	for _, e := range applied.Errors {
		res.Errors = append(res.Errors, fleet.ErrorFinding(e))
	}
	if applied.Aborted {
		return true
	}
	out.OwnerID = applied.Owner
	switch {
	case !static:
		out.Nodes = Answer[[]Node]{}
	case applied.Nodes != nil || applied.Templates != nil:
		out.Nodes = Answer[[]Node]{Value: applied.Nodes}
	}
	for i, lt := range recorded {
		if got, ok := applied.Templates[lt.Name]; ok && static {
			recorded[i].ID, recorded[i].DefaultVersion = &got.ID, &got.DefaultVersion
		}
	}
	return false
}

// holds fails the apply when the plan made again no longer gives what the plan showed.
func (res *PoolResult) holds(in PoolApplyInput, p launchplan.Plan) bool {
	if in.Shown == nil {
		return true
	}
	shown := *in.Shown
	if !in.TemplatesNull {
		shown.Fingerprints = make(map[string]string, len(in.Recorded))
		for _, lt := range in.Recorded {
			shown.Fingerprints[lt.Name] = lt.Fingerprint
		}
	}
	if shown.Holds(p, fleet.PlannedFingerprints(p)) {
		return true
	}
	res.Errors = append(res.Errors, attrpath.Finding{Summary: "The plan no longer holds", Message: shown.NoLongerHolds(p)})
	return false
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// RefreshPool reconciles a pool's recorded templates and nodes with what its owner holds in EC2
// (fleet.Cluster.Refresh).
func RefreshPool(ctx context.Context, ports PoolPorts, facts PoolFacts, r PoolRecord) (Refreshed, []attrpath.Finding) {
	got, err := ports.EC2.cluster(facts.ClusterName).Refresh(ctx, r)
	if err != nil {
		return got, []attrpath.Finding{fleet.ErrorFinding(err)}
	}
	return got, nil
}

// DeletePool terminates the pool's own instances (they use the templates), then deletes its own
// templates: objects of another owner are never listed. A state without an owner id deletes
// nothing, with a warning.
func DeletePool(ctx context.Context, ports PoolPorts, facts PoolFacts, pool, owner string, wait time.Duration) (errs, warnings []attrpath.Finding) {
	if owner == "" {
		return nil, []attrpath.Finding{fleet.DeleteWithoutOwner}
	}
	own := ports.EC2.cluster(facts.ClusterName).Own(pool, owner)
	st := ports.EC2.stage()
	if err := st.TerminateAll(ctx, own, wait); err != nil {
		return []attrpath.Finding{fleet.ErrorFinding(err)}, nil
	}
	if err := st.DeleteTemplates(ctx, own); err != nil {
		return []attrpath.Finding{fleet.ErrorFinding(err)}, nil
	}
	return nil, nil
}

// PoolImported is what an import records; the refresh after it finds the owner's launch
// templates and instances.
type PoolImported struct {
	Name, OwnerID string
	// Replicas is set (with empty Nodes) when the owner has live instances: a static pool.
	Replicas *int
	Nodes    []Node
}

// ImportPool adopts a pool by `<name>` or `<name>/<owner id>` (fleet.Cluster.ImportTarget).
func ImportPool(ctx context.Context, ports PoolPorts, facts PoolFacts, id string) (PoolImported, []attrpath.Finding, []attrpath.Finding) {
	imp, err := ports.EC2.cluster(facts.ClusterName).ImportTarget(ctx, id)
	if err != nil {
		return PoolImported{}, []attrpath.Finding{fleet.ErrorFinding(err)}, nil
	}
	var warnings []attrpath.Finding
	if imp.Warning != "" {
		warnings = append(warnings, attrpath.Finding{Summary: "Node pool imported as a dynamic pool", Message: imp.Warning})
	}
	out := PoolImported{Name: imp.Pool, OwnerID: imp.Owner}
	if imp.Live > 0 {
		out.Replicas, out.Nodes = &imp.Live, []Node{}
	}
	return out, nil, warnings
}

// StaticPool is a static pool a list finds in EC2: its name and the owner id its launch
// templates carry.
type StaticPool struct{ Name, Owner string }

// StaticPools are the provider's static pools in EC2, found by their ownership tags
// (fleet.Cluster.StaticPools), whose name starts with prefix and is not among listed (the
// NodePools a list shows already), sorted by name, then owner id.
func StaticPools(ctx context.Context, ports PoolPorts, facts PoolFacts, prefix string, listed []string) ([]StaticPool, []attrpath.Finding) {
	static, err := ports.EC2.cluster(facts.ClusterName).StaticPools(ctx)
	if err != nil {
		return nil, []attrpath.Finding{{Summary: "Cannot list the static pools' launch templates",
			Message: err.Error() + "\n\n" + fleet.IAMPermissionsHint}}
	}
	var out []StaticPool
	for _, name := range slices.Sorted(maps.Keys(static)) {
		if !strings.HasPrefix(name, prefix) || slices.Contains(listed, name) {
			continue
		}
		for _, owner := range static[name] {
			out = append(out, StaticPool{Name: name, Owner: owner})
		}
	}
	return out, nil
}
