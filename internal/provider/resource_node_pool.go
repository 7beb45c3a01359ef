package provider

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
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

// replaceOnModeSwitch replaces the pool when it switches between static (replicas) and dynamic,
// as Karpenter forbids it.
func replaceOnModeSwitch(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return
	}
	var before, after types.Int64
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("replicas"), &before)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("replicas"), &after)...)
	if !after.IsUnknown() && before.IsNull() != after.IsNull() {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas"))
	}
}

// ownable reports whether the plan may go on as the pool's owner: a new pool's name must be free
// in the cluster, and a state needs an owner id.
func (r *nodePoolResource) ownable(ctx context.Context, plan, state *nodePoolModel, diags *diag.Diagnostics) bool {
	switch {
	case state == nil: // a new pool: its name must be free in the cluster
		findings, err := r.cluster().Conflicts(ctx, plan.Name.ValueString(), true)
		addStageError(diags, err)
		addFindings(diags, attrpath.Path{}, findings, "", false)
		return !diags.HasError()
	case state.OwnerID.ValueString() == "":
		addFindings(diags, attrpath.Path{}, []attrpath.Finding{fleet.StateWithoutOwner}, "", false)
		return false
	}
	return true
}

// validateStatic runs every rule that needs neither EC2 nor the node class.
func validateStatic(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) {
	addFindings(diags, attrpath.Of("template", "requirements"), requirements.Validate(m.requirements(ctx, diags)), "Invalid requirement", false)
	addFindings(diags, attrpath.Path{}, nodepool.Validate(m.poolSpec()), "Invalid node pool", false)
}

func (r *nodePoolResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	var m nodePoolModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Disruption == nil { // the default applies after validation
		m.Disruption = &disruptionModel{ConsolidationPolicy: types.StringValue(nodepool.PolicyWhenEmptyOrUnderutilized), ConsolidateAfter: types.StringValue("0s")}
	}
	validateStatic(ctx, &m, &resp.Diagnostics)
}

// ModifyPlan plans the launches: CPU only, from the node class value and the catalog (loaded
// once per provider process). It adds no discovery call.
func (r *nodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	replaceOnModeSwitch(ctx, req, resp)
	if !poolPlannable(req.Config.Raw) { // e.g. a node class whose selectors resolve only at apply
		setPoolComputedUnknown(ctx, resp)
		return
	}
	lateClass := !req.Config.Raw.IsFullyKnown() // only the class's late values (late_values.go) are unknown
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	var state *nodePoolModel
	if !req.State.Raw.IsNull() {
		state = &nodePoolModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	}
	validateStatic(ctx, &plan, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	// What Kubernetes would refuse stops the plan before the catalog or any EC2 call.
	doc, err := renderNodePoolManifest(ctx, &plan)
	if err != nil {
		resp.Diagnostics.AddError("Cannot render the NodePool manifest", err.Error())
		return
	}
	if !admitManifest(r.meta.KarpenterVersion, manifest.NodePoolKind, doc, &resp.Diagnostics) || !r.ownable(ctx, &plan, state, &resp.Diagnostics) {
		return
	}
	p, class, ok := r.buildPlan(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = plan.Name
	if lateClass && !plan.Replicas.IsNull() { // drift is judged on template content, which waits for the class
		plan.Nodes = types.ListUnknown(nodeObjType)
	} else {
		planNodes(ctx, &plan, state, p, class, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	// A static pool's nodes are the provider's: there is no NodePool for Karpenter to apply (one
	// with `replicas` would make Karpenter launch as many again). Its manifest is still rendered
	// and admitted above, so what Kubernetes would refuse fails the plan all the same.
	plan.Manifest = types.StringNull()
	if plan.Replicas.IsNull() {
		plan.Manifest = types.StringValue(doc)
	}
	resp.Diagnostics.Append(setPoolPlan(ctx, &plan, state, p)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.planDrift(ctx, &plan, state, doc, class, p, &resp.Diagnostics)
	if lateClass && !plan.LaunchTemplates.IsNull() { // their content names the late values
		plan.LaunchTemplates = types.ListUnknown(launchTemplateObjType)
	}
	resp.Diagnostics.Append(setTopLevel(ctx, &resp.Plan, plan.planned())...)
}

// poolPlannable reports whether a pool's configuration is known enough to plan: fully, or but
// for the late values of its node class, which no planned number depends on.
func poolPlannable(config tftypes.Value) bool {
	if config.IsFullyKnown() {
		return true
	}
	var attrs map[string]tftypes.Value
	if !config.IsKnown() || config.As(&attrs) != nil {
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

func setPoolComputedUnknown(ctx context.Context, resp *resource.ModifyPlanResponse) {
	var details types.Bool
	var replicas types.Int64
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("details"), &details)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("replicas"), &replicas)...)
	detail := func(v attr.Value, null attr.Value) attr.Value {
		if details.ValueBool() || details.IsUnknown() {
			return v
		}
		return null
	}
	manifestValue := types.StringUnknown()
	if !replicas.IsUnknown() && !replicas.IsNull() {
		manifestValue = types.StringNull() // a static pool has none
	}
	resp.Diagnostics.Append(setTopLevel(ctx, &resp.Plan, map[string]attr.Value{
		"summary": types.ObjectUnknown(poolSummaryAttrTypes), "zones": types.MapUnknown(zonePlanObjType),
		"instance_types": detail(types.ListUnknown(types.StringType), types.ListNull(types.StringType)),
		"max_pods":       detail(types.MapUnknown(types.Int64Type), types.MapNull(types.Int64Type)),
		"prices":         detail(types.MapUnknown(types.Float64Type), types.MapNull(types.Float64Type)),
		"workload_fit":   types.MapUnknown(workloadFitObjType), "drift": types.ObjectUnknown(driftAttrTypes),
		"karpenter_assumed_pods": detail(types.MapUnknown(types.Int64Type), types.MapNull(types.Int64Type)),
		"launch_plan":            detail(types.ListUnknown(optionGroupObjType), types.ListNull(optionGroupObjType)),
		"launch_templates":       types.ListUnknown(launchTemplateObjType), "manifest": manifestValue,
		"warnings": types.ListUnknown(types.StringType), "nodes": types.ListUnknown(nodeObjType),
	})...)
}

// buildPlan runs the planner and reports its problems; ok is false when it failed.
func (r *nodePoolResource) buildPlan(ctx context.Context, m *nodePoolModel, diags *diag.Diagnostics) (launchplan.Plan, launchplan.Class, bool) {
	_, class := poolClass(ctx, m.NodeClass, diags)
	if diags.HasError() {
		return launchplan.Plan{}, class, false
	}
	cat, err := r.meta.Client.Catalog(ctx)
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return launchplan.Plan{}, class, false
	}
	p, errs := launchplan.Build(launchplan.Input{
		PoolName: m.Name.ValueString(), ClusterName: r.meta.ClusterName, OwnerID: m.OwnerID.ValueString(), Bootstrap: r.meta.Bootstrap, Region: r.meta.Client.Region,
		Class: class, Requirements: m.requirements(ctx, diags), Limits: tagsFromMap(m.Limits),
		Replicas: intPtr(m.Replicas), Catalog: cat, Prices: r.meta.Client.Prices(ctx),
		MinValuesBestEffort: m.MinValuesPolicy.ValueString() == "BestEffort", Workloads: m.workloads(),
	})
	addFindings(diags, attrpath.Path{}, errs, "Node pool cannot launch nodes", false)
	addFindings(diags, attrpath.Path{}, p.Warnings, "Node pool warning", true)
	return p, class, !diags.HasError()
}

func (r *nodePoolResource) cluster() fleet.Cluster {
	return fleet.Cluster{Name: r.meta.ClusterName, EC2: r.meta.Client}
}

func (r *nodePoolResource) stage() fleet.Stage {
	return fleet.Stage{Templates: awsclient.LaunchTemplates{EC2: r.meta.Client.EC2}, Instances: awsclient.Instances{EC2: r.meta.Client.EC2},
		AfterLaunch: r.meta.AfterLaunch}
}

// apply runs the pool's apply (fleet.Stage.ApplyPool) on the plan, planned again and checked
// against what the plan showed, and records what it left in the model. It reports aborted when
// a test hook simulated a crash: nothing may then be saved.
func (r *nodePoolResource) apply(ctx context.Context, m *nodePoolModel, creating bool, wait time.Duration, diags *diag.Diagnostics) (aborted bool) {
	p, class, ok := r.buildPlan(ctx, m, diags)
	if !ok || !samePlan(ctx, m, p, diags) {
		return false
	}
	owner := m.OwnerID.ValueString()
	if creating {
		owner = ""
	}
	res := r.stage().ApplyPool(ctx, fleet.PoolApply{Cluster: r.cluster(), Name: m.Name.ValueString(), Owner: owner,
		Static: !m.Replicas.IsNull(), Replicas: int(m.Replicas.ValueInt64()), Plan: p, Class: class, Wait: wait, BeforeClaim: r.meta.BeforeClaim})
	addFindings(diags, attrpath.Path{}, res.Conflicts, "", false)
	for _, e := range res.Errors {
		addStageError(diags, e)
	}
	m.OwnerID = types.StringValue(res.Owner)
	if res.Owner == "" {
		m.OwnerID = types.StringNull()
	}
	if m.Replicas.IsNull() {
		m.Nodes = types.ListNull(nodeObjType)
		return false
	}
	if res.Templates != nil {
		cur := launchTemplatesOf(ctx, m.LaunchTemplates, diags)
		for i := range cur {
			if got, ok := res.Templates[cur[i].Name]; ok {
				cur[i].ID, cur[i].DefaultVersion = types.StringValue(got.ID), types.Int64Value(got.DefaultVersion)
			}
		}
		m.LaunchTemplates = launchTemplateList(cur)
	}
	if res.Nodes != nil || res.Templates != nil {
		var d diag.Diagnostics
		m.Nodes, d = types.ListValueFrom(ctx, nodeObjType, res.Nodes)
		diags.Append(d...)
	}
	return res.Aborted
}

// addStageError reports an apply-stage failure; failures to reach replicas sit on `replicas`.
func addStageError(diags *diag.Diagnostics, err error) {
	var e fleet.Error
	switch {
	case err == nil:
	case errors.As(err, &e) && e.OnReplicas:
		diags.AddAttributeError(path.Root("replicas"), e.Summary, e.Detail)
	case errors.As(err, &e):
		diags.AddError(e.Summary, e.Detail)
	default:
		diags.AddError("Apply failed", err.Error())
	}
}

// samePlan fails the apply when the planner, run again at apply, no longer gives what the plan
// showed (launchplan.Shown): apply executes what the plan showed, or nothing.
func samePlan(ctx context.Context, m *nodePoolModel, p launchplan.Plan, diags *diag.Diagnostics) bool {
	if m.Summary.IsUnknown() || m.LaunchTemplates.IsUnknown() {
		return true // planned while the node class was unknown: this is the plan
	}
	var shown launchplan.Shown
	diags.Append(m.Summary.As(ctx, &shown.Summary, basetypes.ObjectAsOptions{})...)
	if !m.InstanceTypes.IsNull() {
		diags.Append(m.InstanceTypes.ElementsAs(ctx, &shown.InstanceTypes, false)...)
	}
	if !m.LaunchTemplates.IsNull() {
		shown.Fingerprints = map[string]string{}
		for _, lt := range launchTemplatesOf(ctx, m.LaunchTemplates, diags) {
			shown.Fingerprints[lt.Name] = lt.Fingerprint
		}
	}
	if shown.Holds(p, fleet.PlannedFingerprints(p)) {
		return true
	}
	diags.AddError("The plan no longer holds", shown.NoLongerHolds(p))
	return false
}

// planNodes decides the planned `nodes` (fleet.PlanNodes): unchanged while the live nodes
// already match `replicas`, unknown when apply will launch, replace or terminate.
func planNodes(ctx context.Context, plan, state *nodePoolModel, p launchplan.Plan, class launchplan.Class, diags *diag.Diagnostics) {
	if plan.Replicas.IsNull() {
		plan.Nodes = types.ListNull(nodeObjType)
		return
	}
	plan.Nodes = types.ListUnknown(nodeObjType)
	if state == nil || state.Nodes.IsNull() || state.Nodes.IsUnknown() {
		return
	}
	var recorded []fleet.Node
	diags.Append(state.Nodes.ElementsAs(ctx, &recorded, false)...)
	np := fleet.PlanNodes(recorded, int(plan.Replicas.ValueInt64()), p, class)
	addFindings(diags, attrpath.Path{}, np.Warnings, "", true)
	if np.Known {
		var d diag.Diagnostics
		plan.Nodes, d = types.ListValueFrom(ctx, nodeObjType, np.Nodes)
		diags.Append(d...)
	}
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wait, d := plan.Timeouts.Create(ctx, defaultLaunchTimeout)
	resp.Diagnostics.Append(d...)
	if r.apply(ctx, &plan, true, wait, &resp.Diagnostics) {
		return // a simulated crash: state is lost, as after a killed apply
	}
	r.saveApplied(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// saveApplied writes the applied model; after a failure it still records what exists (launch
// templates and live nodes), so nothing that launched is lost from state.
func (r *nodePoolResource) saveApplied(ctx context.Context, m *nodePoolModel, state interface {
	Set(context.Context, interface{}) diag.Diagnostics
}, diags *diag.Diagnostics) {
	if m.Nodes.IsUnknown() {
		m.Nodes = types.ListNull(nodeObjType)
	}
	var kept []launchTemplateTF
	if !m.LaunchTemplates.IsNull() { // null: a dynamic pool without `details`
		for _, lt := range launchTemplatesOf(ctx, m.LaunchTemplates, diags) {
			if !lt.ID.IsUnknown() {
				kept = append(kept, lt)
			}
		}
		m.LaunchTemplates = launchTemplateList(kept)
	}
	if diags.HasError() && len(kept) == 0 && m.Nodes.IsNull() {
		return // nothing was created
	}
	diags.Append(state.Set(ctx, m)...)
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan nodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wait, d := plan.Timeouts.Update(ctx, defaultLaunchTimeout)
	resp.Diagnostics.Append(d...)
	if r.apply(ctx, &plan, false, wait, &resp.Diagnostics) {
		return
	}
	r.saveApplied(ctx, &plan, &resp.State, &resp.Diagnostics)
}

// Read reconciles the recorded templates and nodes with EC2 (fleet.ReadTemplates, fleet.NodesOf).
func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	tfs := launchTemplatesOf(ctx, state.LaunchTemplates, &resp.Diagnostics)
	recorded := make([]fleet.RecordedTemplate, len(tfs))
	known := map[string]awsclient.LaunchTemplate{}
	for i, lt := range tfs {
		recorded[i] = fleet.RecordedTemplate{Name: lt.Name, ID: lt.ID.ValueString(), DefaultVersion: lt.DefaultVersion.ValueInt64(), Fingerprint: lt.Fingerprint}
		if !lt.ID.IsNull() && !lt.ID.IsUnknown() && !lt.DefaultVersion.IsNull() && !lt.DefaultVersion.IsUnknown() {
			known[lt.Name] = recorded[i]
		}
	}
	c := r.cluster()
	own := c.Own(state.Name.ValueString(), state.OwnerID.ValueString())
	owned, err := r.meta.Client.ReadTemplates(ctx, c.Scope(), own, known)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the pool's launch templates", err.Error())
		return
	}
	read, from := fleet.ReadTemplates(recorded, owned, state.Replicas.IsNull(), state.LaunchTemplates.IsNull())
	kept := make([]launchTemplateTF, len(read))
	for i, lt := range read {
		if from[i] >= 0 {
			kept[i] = tfs[from[i]]
		}
		kept[i].Name, kept[i].Fingerprint = lt.Name, lt.Fingerprint
		kept[i].ID, kept[i].DefaultVersion = types.StringValue(lt.ID), types.Int64Value(lt.DefaultVersion)
		if lt.ID == "" {
			kept[i].ID, kept[i].DefaultVersion = types.StringNull(), types.Int64Null()
		}
	}
	if len(kept) > 0 || !state.LaunchTemplates.IsNull() { // null stays null: a dynamic pool without `details` lists none
		state.LaunchTemplates = launchTemplateList(kept)
	}
	if !state.Replicas.IsNull() || !state.Nodes.IsNull() {
		found, err := r.meta.Client.ReadInstances(ctx, c.Scope(), own)
		if err != nil {
			resp.Diagnostics.AddError("Cannot read the pool's instances", err.Error())
			return
		}
		var d diag.Diagnostics
		state.Nodes, d = types.ListValueFrom(ctx, nodeObjType, fleet.NodesOf(found, stateSubnets(ctx, &state, &resp.Diagnostics)))
		resp.Diagnostics.Append(d...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Delete terminates the pool's own instances (they use the templates), then deletes its own
// templates: objects of another owner are never listed. A dynamic pool has neither, unless its
// owner's templates from an earlier provider version are left.
func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodePoolModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	if state.OwnerID.ValueString() == "" {
		addFindings(&resp.Diagnostics, attrpath.Path{}, []attrpath.Finding{fleet.DeleteWithoutOwner}, "", true)
		return
	}
	own := r.cluster().Own(state.Name.ValueString(), state.OwnerID.ValueString())
	wait, d := state.Timeouts.Delete(ctx, defaultTerminateTimeout)
	resp.Diagnostics.Append(d...)
	st := r.stage()
	if err := st.TerminateAll(ctx, own, wait); err != nil {
		addStageError(&resp.Diagnostics, err)
		return
	}
	if err := st.DeleteTemplates(ctx, own); err != nil {
		addStageError(&resp.Diagnostics, err)
	}
}

// ImportState adopts a pool by `<name>` or `<name>/<owner id>` (fleet.Cluster.ImportTarget);
// Read then finds the owner's launch templates and instances.
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
	set := func(name string, v any) { resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...) }
	set("name", imp.Pool)
	set("id", imp.Pool)
	set("owner_id", imp.Owner)
	if imp.Live > 0 {
		set("replicas", int64(imp.Live))
		set("nodes", types.ListValueMust(nodeObjType, nil))
	}
}
