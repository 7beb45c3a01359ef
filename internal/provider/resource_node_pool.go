package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*nodePoolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodePoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodePoolResource)(nil)
	_ resource.ResourceWithImportState    = (*nodePoolResource)(nil)
)

type nodePoolResource struct{ meta *Meta }

func newNodePoolResource() resource.Resource { return &nodePoolResource{} }

func (r *nodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodePoolSchema()
}

func (r *nodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *nodePoolResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v poolValue
	if !req.Config.Raw.IsFullyKnown() || !decodeInto(req.Config.Raw, &v, "node pool", &resp.Diagnostics) {
		return
	}
	if v.Disruption == nil { // the default applies after validation
		v.Disruption = &nodepool.DefaultDisruption
	}
	addFindings(&resp.Diagnostics, planner.ValidatePool(v.Config), nil)
}

// ModifyPlan plans the launches (planner.Pool): CPU only, from the node class value and the
// catalog (loaded once per provider process). It adds no discovery call.
func (r *nodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan poolValue
	if !decodeInto(req.Plan.Raw, &plan, "node pool", &resp.Diagnostics) {
		return
	}
	var state *poolValue
	if !req.State.Raw.IsNull() {
		state = &poolValue{}
		if !decodeInto(req.State.Raw, state, "node pool", &resp.Diagnostics) {
			return
		}
		if replicas := tfvalue.Attributes(req.Plan.Raw)["replicas"]; replicas.IsKnown() && state.static() != !replicas.IsNull() {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas")) // Karpenter forbids switching modes
		}
	}
	if !poolPlannable(req.Config.Raw) { // e.g. a node class whose selectors resolve only at apply
		setPoolComputedUnknown(&resp.Plan, &plan, &resp.Diagnostics)
		return
	}
	if !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	in, ok := r.poolInput(&plan, state, !req.Config.Raw.IsFullyKnown(), &resp.Diagnostics)
	if !ok {
		return
	}
	res := planner.Pool(ctx, r.ports(), r.facts(), in)
	addFindings(&resp.Diagnostics, res.Errors, res.Warnings)
	if resp.Diagnostics.HasError() {
		return
	}
	typ := req.Plan.Raw.Type()
	var recordedDrift any
	if state != nil {
		recordedDrift = state.Drift
	}
	out := poolPlanned{Outputs: res.Outputs, ID: plan.Name, Manifest: res.Manifest, Nodes: plannedValue(res.Nodes, typ, "nodes", nil),
		Drift: plannedValue(res.Drift, typ, "drift", recordedDrift)}
	if templates := plannedTemplates(res.Outputs.LaunchTemplates, state, plan.static()); templates != nil {
		out.LaunchTemplates = templates
		if in.LateClass { // their content names the late values
			out.LaunchTemplates = unknownAttr(typ, "launch_templates")
		}
	}
	setRaw(&resp.Plan.Raw, out, "node pool", &resp.Diagnostics)
}

// plannedValue encodes a planned attribute that may wait for apply or keep the state's value.
func plannedValue[T any](a planner.Answer[T], typ tftypes.Type, name string, kept any) any {
	switch {
	case a.Unknown:
		return unknownAttr(typ, name)
	case a.Kept:
		return kept
	}
	return a.Value
}

// poolInput is what planner.Pool reads of the plan and the state (nil for a new pool).
func (r *nodePoolResource) poolInput(plan, state *poolValue, lateClass bool, diags *diag.Diagnostics) (planner.PoolInput, bool) {
	_, class, err := poolClass(plan.NodeClass)
	if err != nil {
		diags.AddAttributeError(path.Root("node_class"), "Cannot read the node class", err.Error())
		return planner.PoolInput{}, false
	}
	in := planner.PoolInput{Config: plan.Config, Class: class, ClassName: className(plan.NodeClass), ClassHashLate: lateClassHash(plan.NodeClass),
		LateClass: lateClass, Details: plan.Details, MinValuesBestEffort: plan.MinValuesPolicy == "BestEffort", Workloads: plan.Workloads,
		OwnerID: plan.OwnerID}
	if state == nil {
		return in, true
	}
	in.Prior = &planner.PoolPrior{OwnerID: state.OwnerID, Nodes: decoded[[]fleet.Node](state.Nodes), NodesKnown: knownValue(state.Nodes),
		Manifest: decoded[string](state.Manifest), SameClass: state.NodeClass.Equal(plan.NodeClass), Requirements: state.Requirements()}
	if knownValue(state.Drift) {
		d := decoded[drift.Output](state.Drift)
		in.Prior.Drift = &d
	}
	if knownValue(state.NodeClass) && !plan.static() { // null after an import; only drift reads it
		_, c, err := decodeClassValue(state.NodeClass)
		if err != nil {
			diags.AddError("Cannot read the recorded node class", err.Error())
			return in, false
		}
		in.Prior.Class = &c
	}
	return in, true
}

// knownValue reports whether a value is known and not null.
func knownValue(v tftypes.Value) bool { return v.IsKnown() && !v.IsNull() }

// ports are the pool plan's doors to AWS and the cluster.
func (r *nodePoolResource) ports() planner.PoolPorts {
	c := r.meta.Client
	p := planner.PoolPorts{Catalog: c.Catalog, Prices: c.Prices, Admit: admission(r.meta.KarpenterVersion),
		Conflicts: func(ctx context.Context, pool string) ([]attrpath.Finding, error) {
			return r.cluster().Conflicts(ctx, pool, true)
		}}
	if r.meta.Kube != nil {
		p.NodeClaims = r.meta.Kube.NodeClaims
		p.InstanceSubnets = func(ctx context.Context, ids []string) (map[string]string, error) {
			found, err := awsclient.Instances{EC2: c.EC2}.Describe(ctx, ids)
			subnets := make(map[string]string, len(found))
			for _, in := range found {
				subnets[in.ID] = in.SubnetID
			}
			return subnets, err
		}
	}
	return p
}

func (r *nodePoolResource) facts() planner.PoolFacts {
	return planner.PoolFacts{ClusterName: r.meta.ClusterName, Region: r.meta.Client.Region, Bootstrap: r.meta.Bootstrap, Now: time.Now()}
}

// poolPlannable reports whether a pool's configuration is known enough to plan: fully, or but
// for the late values of its node class, which no planned number depends on.
func poolPlannable(config tftypes.Value) bool {
	if config.IsFullyKnown() {
		return true
	}
	attrs := tfvalue.Attributes(config)
	if attrs == nil {
		return false
	}
	for k, a := range attrs {
		if k == "node_class" {
			if !knownBesides(a, lateResolvedAttrs...) {
				return false
			}
		} else if !a.IsFullyKnown() {
			return false
		}
	}
	return true
}

// setPoolComputedUnknown plans every computed attribute as unknown but what the configuration
// already says: the per-type detail is null without `details`, a static pool has no manifest.
func setPoolComputedUnknown(plan *tfsdk.Plan, v *poolValue, diags *diag.Diagnostics) {
	values := unknownComputed(plan.Raw.Type(), poolPlanned{})
	if tfvalue.Attributes(plan.Raw)["details"].IsKnown() && !v.Details {
		for _, name := range []string{"instance_types", "max_pods", "prices", "karpenter_assumed_pods", "launch_plan"} {
			values[name] = nil
		}
	}
	if replicas := tfvalue.Attributes(plan.Raw)["replicas"]; replicas.IsKnown() && !replicas.IsNull() {
		values["manifest"] = nil // a static pool has none
	}
	withRaw(&plan.Raw, values, "node pool", diags)
}

// launchPlan is the launch plan apply executes (planner.LaunchPlan); ok is false when it failed.
func (r *nodePoolResource) launchPlan(ctx context.Context, v *poolValue, diags *diag.Diagnostics) (launchplan.Plan, launchplan.Class, bool) {
	in, ok := r.poolInput(v, nil, false, diags)
	if !ok {
		return launchplan.Plan{}, in.Class, false
	}
	p, errs, warnings := planner.LaunchPlan(ctx, r.ports(), r.facts(), in)
	addFindings(diags, errs, warnings)
	return p, in.Class, !diags.HasError()
}

func (r *nodePoolResource) cluster() fleet.Cluster {
	return fleet.Cluster{Name: r.meta.ClusterName, EC2: r.meta.Client}
}

func (r *nodePoolResource) stage() fleet.Stage {
	return fleet.Stage{Templates: awsclient.LaunchTemplates{EC2: r.meta.Client.EC2}, Instances: awsclient.Instances{EC2: r.meta.Client.EC2},
		AfterLaunch: r.meta.AfterLaunch}
}

// poolApplied are the attributes apply records.
type poolApplied struct {
	OwnerID         *string `tfsdk:"owner_id"`
	LaunchTemplates any     `tfsdk:"launch_templates"`
	Nodes           any     `tfsdk:"nodes"`
}

// apply runs the pool's apply (fleet.Stage.ApplyPool) on the plan, planned again and checked
// against what the plan showed, and returns the state to save. After a failure it still records
// what exists (launch templates and live nodes), so nothing that launched is lost from state;
// ok is false when there is nothing to save, or after a simulated crash (state is lost then, as
// after a killed apply).
func (r *nodePoolResource) apply(ctx context.Context, raw tftypes.Value, creating bool, op string, diags *diag.Diagnostics) (tftypes.Value, bool) {
	var v poolValue
	if !decodeInto(raw, &v, "node pool", diags) {
		return raw, false
	}
	recorded := decoded[[]fleet.TemplateRecord](v.LaunchTemplates) // a static pool's ids: known, or nil until apply assigns them
	out := poolApplied{OwnerID: emptyNil(v.OwnerID), LaunchTemplates: v.LaunchTemplates, Nodes: v.Nodes}
	if p, class, ok := r.launchPlan(ctx, &v, diags); ok && samePlan(&v, recorded, p, diags) {
		owner := v.OwnerID
		if creating {
			owner = ""
		}
		res := r.stage().ApplyPool(ctx, fleet.PoolApply{Cluster: r.cluster(), Name: v.Name, Owner: owner, Static: v.static(),
			Replicas: derefInt(v.Replicas), Plan: p, Class: class, Wait: v.timeout(op, defaultLaunchTimeout), BeforeClaim: r.meta.BeforeClaim})
		addFindings(diags, res.Conflicts, nil)
		for _, e := range res.Errors {
			addStageError(diags, e)
		}
		if res.Aborted {
			return raw, false
		}
		out.OwnerID = emptyNil(res.Owner)
		switch {
		case !v.static():
			out.Nodes = nil
		case res.Nodes != nil || res.Templates != nil:
			out.Nodes = res.Nodes
		}
		for i, lt := range recorded {
			if got, ok := res.Templates[lt.Name]; ok && v.static() {
				recorded[i].ID, recorded[i].DefaultVersion = &got.ID, &got.DefaultVersion
			}
		}
	}
	if n, ok := out.Nodes.(tftypes.Value); ok && !n.IsKnown() {
		out.Nodes = nil
	}
	// A static pool's template without an id was never launched; a dynamic pool's are only planned.
	kept := slices.DeleteFunc(recorded, func(lt fleet.TemplateRecord) bool { return v.static() && lt.ID == nil })
	if !v.LaunchTemplates.IsNull() { // null: a dynamic pool without `details`
		out.LaunchTemplates = nonNil(kept)
	}
	if diags.HasError() && len(kept) == 0 && nullish(out.Nodes) {
		return raw, false // nothing was created
	}
	setRaw(&raw, out, "node pool", diags)
	return raw, true
}

// nullish reports whether a value for tfvalue encodes as null.
func nullish(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case tftypes.Value:
		return x.IsNull()
	case []fleet.Node:
		return x == nil
	}
	return false
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// addStageError reports an apply-stage failure (fleet.ErrorFinding).
func addStageError(diags *diag.Diagnostics, err error) {
	if err != nil {
		addFindings(diags, []attrpath.Finding{fleet.ErrorFinding(err)}, nil)
	}
}

// samePlan fails the apply when the planner, run again at apply, no longer gives what the plan
// showed (launchplan.Shown): apply executes what the plan showed, or nothing.
func samePlan(v *poolValue, templates []fleet.TemplateRecord, p launchplan.Plan, diags *diag.Diagnostics) bool {
	if !v.Summary.IsKnown() || !v.LaunchTemplates.IsKnown() {
		return true // planned while the node class was unknown: this is the plan
	}
	var shown launchplan.Shown
	if err := tfvalue.Decode(v.Summary, &shown.Summary); err == nil {
		_ = tfvalue.Decode(v.InstanceTypes, &shown.InstanceTypes)
	}
	if !v.LaunchTemplates.IsNull() {
		shown.Fingerprints = map[string]string{}
		for _, lt := range templates {
			shown.Fingerprints[lt.Name] = lt.Fingerprint
		}
	}
	if shown.Holds(p, fleet.PlannedFingerprints(p)) {
		return true
	}
	diags.AddError("The plan no longer holds", shown.NoLongerHolds(p))
	return false
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if raw, ok := r.apply(ctx, req.Plan.Raw, true, "create", &resp.Diagnostics); ok {
		resp.State.Raw = raw
	}
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if raw, ok := r.apply(ctx, req.Plan.Raw, false, "update", &resp.Diagnostics); ok {
		resp.State.Raw = raw
	}
}

// poolRead are the attributes a refresh records.
type poolRead struct {
	LaunchTemplates any `tfsdk:"launch_templates"`
	Nodes           any `tfsdk:"nodes"`
}

// Read reconciles the recorded templates and nodes with EC2 (fleet.Cluster.Refresh).
func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state poolValue
	if !decodeInto(req.State.Raw, &state, "node pool", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	got, err := r.cluster().Refresh(ctx, fleet.PoolRecord{Name: state.Name, Owner: state.OwnerID, Static: state.static(),
		Templates: decoded[[]fleet.TemplateRecord](state.LaunchTemplates), TemplatesNull: state.LaunchTemplates.IsNull(),
		NodesRecorded: !state.Nodes.IsNull(), Subnets: stateSubnets(&state)})
	if err != nil {
		addStageError(&resp.Diagnostics, err)
		return
	}
	out := poolRead{LaunchTemplates: state.LaunchTemplates, Nodes: state.Nodes}
	if got.Templates != nil {
		out.LaunchTemplates = got.Templates
	}
	if got.Nodes != nil {
		out.Nodes = got.Nodes
	}
	setRaw(&resp.State.Raw, out, "node pool", &resp.Diagnostics)
}

// Delete terminates the pool's own instances (they use the templates), then deletes its own
// templates: objects of another owner are never listed. A dynamic pool has neither, unless its
// owner's templates from an earlier provider version are left.
func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state poolValue
	if !decodeInto(req.State.Raw, &state, "node pool", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	if state.OwnerID == "" {
		addFindings(&resp.Diagnostics, nil, []attrpath.Finding{fleet.DeleteWithoutOwner})
		return
	}
	own := r.cluster().Own(state.Name, state.OwnerID)
	st := r.stage()
	if err := st.TerminateAll(ctx, own, state.timeout("delete", defaultTerminateTimeout)); err != nil {
		addStageError(&resp.Diagnostics, err)
		return
	}
	if err := st.DeleteTemplates(ctx, own); err != nil {
		addStageError(&resp.Diagnostics, err)
	}
}

// poolImported are the attributes an import records; Read then finds the owner's launch
// templates and instances.
type poolImported struct {
	Name     string       `tfsdk:"name"`
	ID       string       `tfsdk:"id"`
	OwnerID  string       `tfsdk:"owner_id"`
	Replicas *int         `tfsdk:"replicas"`
	Nodes    []fleet.Node `tfsdk:"nodes"`
}

// ImportState adopts a pool by `<name>` or `<name>/<owner id>` (fleet.Cluster.ImportTarget).
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	imp, err := r.cluster().ImportTarget(ctx, req.ID)
	if err != nil {
		addStageError(&resp.Diagnostics, err)
		return
	}
	if imp.Warning != "" {
		resp.Diagnostics.AddWarning("Node pool imported as a dynamic pool", imp.Warning)
	}
	out := poolImported{Name: imp.Pool, ID: imp.Pool, OwnerID: imp.Owner}
	if imp.Live > 0 {
		out.Replicas, out.Nodes = &imp.Live, []fleet.Node{}
	}
	setRaw(&resp.State.Raw, out, "node pool", &resp.Diagnostics)
}
