package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
	"github.com/nodeplane/terraform-provider-karpenter/internal/workloadfit"
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

// validateStatic runs every rule that needs neither EC2 nor the node class.
func validateStatic(c nodepool.Config, diags *diag.Diagnostics) {
	addFindings(diags, attrpath.Of("template", "requirements"), requirements.Validate(c.Requirements()), "Invalid requirement", false)
	addFindings(diags, attrpath.Path{}, nodepool.Validate(c.Spec()), "Invalid node pool", false)
}

func (r *nodePoolResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v poolValue
	if !req.Config.Raw.IsFullyKnown() || !decodeInto(req.Config.Raw, &v, "node pool", &resp.Diagnostics) {
		return
	}
	if v.Disruption == nil { // the default applies after validation
		v.Disruption = &nodepool.DefaultDisruption
	}
	validateStatic(v.Config, &resp.Diagnostics)
}

// ModifyPlan plans the launches: CPU only, from the node class value and the catalog (loaded
// once per provider process). It adds no discovery call.
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
	if validateStatic(plan.Config, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	// What Kubernetes would refuse stops the plan before the catalog or any EC2 call.
	doc, err := nodepool.Manifest(plan.Spec(), className(plan.NodeClass))
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
	lateClass := !req.Config.Raw.IsFullyKnown() // only the class's late values (late_values.go) are unknown
	out := poolPlanned{Outputs: p.Outputs(plan.Details, plan.static(), awsclient.Fingerprint), ID: plan.Name}
	if templates := plannedTemplates(out.Outputs.LaunchTemplates, state, plan.static()); templates != nil {
		out.LaunchTemplates = templates
		if lateClass { // their content names the late values
			out.LaunchTemplates = unknownAttr(req.Plan.Raw.Type(), "launch_templates")
		}
	}
	switch {
	case lateClass && plan.static(): // drift is judged on template content, which waits for the class
		out.Nodes = unknownAttr(req.Plan.Raw.Type(), "nodes")
	default:
		out.Nodes = planNodes(req.Plan.Raw, &plan, state, p, class, &resp.Diagnostics)
	}
	// A static pool's nodes are the provider's: there is no NodePool for Karpenter to apply (one
	// with `replicas` would make Karpenter launch as many again). Its manifest is still rendered
	// and admitted above, so what Kubernetes would refuse fails the plan all the same.
	if !plan.static() {
		out.Manifest = &doc
	}
	out.Drift = r.planDrift(ctx, req.Plan.Raw, &plan, state, doc, class, p, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		setRaw(&resp.Plan.Raw, out, "node pool", &resp.Diagnostics)
	}
}

// ownable reports whether the plan may go on as the pool's owner: a new pool's name must be free
// in the cluster, and a state needs an owner id.
func (r *nodePoolResource) ownable(ctx context.Context, plan, state *poolValue, diags *diag.Diagnostics) bool {
	switch {
	case state == nil: // a new pool: its name must be free in the cluster
		findings, err := r.cluster().Conflicts(ctx, plan.Name, true)
		addStageError(diags, err)
		addFindings(diags, attrpath.Path{}, findings, "", false)
		return !diags.HasError()
	case state.OwnerID == "":
		addFindings(diags, attrpath.Path{}, []attrpath.Finding{fleet.StateWithoutOwner}, "", false)
		return false
	}
	return true
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

// buildPlan runs the planner and reports its problems; ok is false when it failed.
func (r *nodePoolResource) buildPlan(ctx context.Context, v *poolValue, diags *diag.Diagnostics) (launchplan.Plan, launchplan.Class, bool) {
	_, class, err := poolClass(v.NodeClass)
	if err != nil {
		diags.AddAttributeError(path.Root("node_class"), "Cannot read the node class", err.Error())
		return launchplan.Plan{}, class, false
	}
	cat, err := r.meta.Client.Catalog(ctx)
	if err != nil {
		diags.AddError("Cannot load the instance-type catalog", err.Error())
		return launchplan.Plan{}, class, false
	}
	p, errs := launchplan.Build(launchplan.Input{
		PoolName: v.Name, ClusterName: r.meta.ClusterName, OwnerID: v.OwnerID, Bootstrap: r.meta.Bootstrap, Region: r.meta.Client.Region,
		Class: class, Requirements: v.Requirements(), Limits: v.Limits, Replicas: v.Replicas, Catalog: cat, Prices: r.meta.Client.Prices(ctx),
		MinValuesBestEffort: v.MinValuesPolicy == "BestEffort", Workloads: workloadfit.Requests(v.Workloads),
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
	recorded := decoded[[]templateValue](v.LaunchTemplates)
	out := poolApplied{OwnerID: emptyNil(v.OwnerID), LaunchTemplates: v.LaunchTemplates, Nodes: v.Nodes}
	if p, class, ok := r.buildPlan(ctx, &v, diags); ok && samePlan(&v, recorded, p, diags) {
		owner := v.OwnerID
		if creating {
			owner = ""
		}
		res := r.stage().ApplyPool(ctx, fleet.PoolApply{Cluster: r.cluster(), Name: v.Name, Owner: owner, Static: v.static(),
			Replicas: derefInt(v.Replicas), Plan: p, Class: class, Wait: v.timeout(op, defaultLaunchTimeout), BeforeClaim: r.meta.BeforeClaim})
		addFindings(diags, attrpath.Path{}, res.Conflicts, "", false)
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
				recorded[i].ID, recorded[i].DefaultVersion = stringValue(got.ID), numberValue(got.DefaultVersion)
			}
		}
	}
	if n, ok := out.Nodes.(tftypes.Value); ok && !n.IsKnown() {
		out.Nodes = nil
	}
	kept := make([]templateValue, 0, len(recorded))
	for _, lt := range recorded {
		if lt.ID.IsKnown() {
			kept = append(kept, lt)
		}
	}
	if !v.LaunchTemplates.IsNull() { // null: a dynamic pool without `details`
		out.LaunchTemplates = kept
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
func samePlan(v *poolValue, templates []templateValue, p launchplan.Plan, diags *diag.Diagnostics) bool {
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

// planNodes is the planned `nodes` (fleet.PlanNodes): unchanged while the live nodes already
// match `replicas`, unknown when apply will launch, replace or terminate.
func planNodes(plan tftypes.Value, v, state *poolValue, p launchplan.Plan, class launchplan.Class, diags *diag.Diagnostics) any {
	if !v.static() {
		return nil
	}
	unknown := unknownAttr(plan.Type(), "nodes")
	if state == nil || !state.Nodes.IsKnown() || state.Nodes.IsNull() {
		return unknown
	}
	np := fleet.PlanNodes(decoded[[]fleet.Node](state.Nodes), *v.Replicas, p, class)
	addFindings(diags, attrpath.Path{}, np.Warnings, "", true)
	if np.Known {
		return nonNil(np.Nodes)
	}
	return unknown
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

// Read reconciles the recorded templates and nodes with EC2 (fleet.ReadTemplates, fleet.NodesOf).
func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state poolValue
	if !decodeInto(req.State.Raw, &state, "node pool", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	tfs := decoded[[]templateValue](state.LaunchTemplates)
	recorded := make([]fleet.RecordedTemplate, len(tfs))
	known := map[string]awsclient.LaunchTemplate{}
	for i, lt := range tfs {
		recorded[i] = fleet.RecordedTemplate{Name: lt.Name, ID: lt.id(), DefaultVersion: lt.defaultVersion(), Fingerprint: lt.Fingerprint}
		if lt.assigned() {
			known[lt.Name] = recorded[i]
		}
	}
	c := r.cluster()
	own := c.Own(state.Name, state.OwnerID)
	owned, err := r.meta.Client.ReadTemplates(ctx, c.Scope(), own, known)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the pool's launch templates", err.Error())
		return
	}
	read, from := fleet.ReadTemplates(recorded, owned, !state.static(), state.LaunchTemplates.IsNull())
	kept := make([]templateValue, len(read))
	for i, lt := range read {
		if from[i] >= 0 {
			kept[i] = tfs[from[i]]
		}
		kept[i].Name, kept[i].Fingerprint = lt.Name, lt.Fingerprint
		kept[i].ID, kept[i].DefaultVersion = stringValue(lt.ID), numberValue(lt.DefaultVersion)
		if lt.ID == "" {
			kept[i].ID, kept[i].DefaultVersion = stringNull, int64Null
		}
	}
	out := poolRead{LaunchTemplates: state.LaunchTemplates, Nodes: state.Nodes}
	if len(kept) > 0 || !state.LaunchTemplates.IsNull() { // null stays null: a dynamic pool without `details` lists none
		out.LaunchTemplates = kept
	}
	if state.static() || !state.Nodes.IsNull() {
		found, err := r.meta.Client.ReadInstances(ctx, c.Scope(), own)
		if err != nil {
			resp.Diagnostics.AddError("Cannot read the pool's instances", err.Error())
			return
		}
		out.Nodes = nonNil(fleet.NodesOf(found, stateSubnets(&state)))
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
		addFindings(&resp.Diagnostics, attrpath.Path{}, []attrpath.Finding{fleet.DeleteWithoutOwner}, "", true)
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
