package provider

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*nodePoolResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodePoolResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodePoolResource)(nil)
	_ resource.ResourceWithImportState    = (*nodePoolResource)(nil)
	_ resource.ResourceWithIdentity       = (*nodePoolResource)(nil)
)

type nodePoolResource struct{ meta *Meta }

func newNodePoolResource() resource.Resource { return &nodePoolResource{} }

func (r *nodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_pool"
}

func (r *nodePoolResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodePoolSchema()
}

func (r *nodePoolResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("NodePool")
}

func (r *nodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *nodePoolResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v poolValue
	if !req.Config.Raw.IsFullyKnown() || !decodeInto(req.Config.Raw, &v, "node pool", &resp.Diagnostics) {
		return
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
		attrs := tfvalue.Attributes(req.Plan.Raw)
		if attrs["replicas"].IsKnown() && attrs["launcher"].IsKnown() && state.mode() != plan.mode() {
			// Karpenter forbids switching a NodePool between static and dynamic, and the two
			// launchers' nodes are different objects.
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("replicas"))
		}
	}
	if !poolPlannable(req.Config.Raw) { // e.g. a node class whose selectors resolve only at apply
		setPoolComputedUnknown(&resp.Plan, &plan, &resp.Diagnostics)
		return
	}
	r.planPool(ctx, !req.Config.Raw.IsFullyKnown(), &resp.Plan.Raw, &plan, state, &resp.Diagnostics)
}

// planPool writes the pool's plan (planner.Pool) into raw, plan's value, for the prior state
// (nil for a new pool): ModifyPlan's, and an import's from the live NodePool.
func (r *nodePoolResource) planPool(ctx context.Context, lateClass bool, raw *tftypes.Value, plan, state *poolValue, diags *diag.Diagnostics) {
	if !requireMeta(r.meta, diags) {
		return
	}
	in, ok := r.poolInput(plan, state, lateClass, diags)
	if !ok {
		return
	}
	res := planner.Pool(ctx, r.ports(), r.facts(), in)
	addFindings(diags, res.Errors, r.meta.onceEach(res.Warnings))
	if diags.HasError() {
		return
	}
	typ := raw.Type()
	var recordedDrift any
	if state != nil {
		recordedDrift = state.Drift
	}
	out := poolPlanned{Outputs: res.Outputs, ID: plan.Name, Manifest: res.Manifest, Manifests: res.Manifests, Nodes: plannedValue(res.Nodes, typ, "nodes", nil),
		Drift: plannedValue(res.Drift, typ, "drift", recordedDrift)}
	var recorded []planner.TemplateRecord
	if state != nil {
		recorded = decoded[[]planner.TemplateRecord](state.LaunchTemplates)
	}
	if templates := plannedTemplates(planner.PlanTemplates(res.Outputs.LaunchTemplates, recorded, plan.static())); templates != nil {
		out.LaunchTemplates = templates
		if in.LateClass { // their content names the late values
			out.LaunchTemplates = unknownAttr(typ, "launch_templates")
		}
	}
	setRaw(raw, out, "node pool", diags)
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
		Overlays: plan.NodeOverlays, OwnerID: plan.OwnerID}
	if state == nil {
		return in, true
	}
	in.Prior = &planner.PoolPrior{OwnerID: state.OwnerID, Nodes: decoded[[]planner.Node](state.Nodes), NodesKnown: knownValue(state.Nodes),
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
	p := planner.PoolPorts{Catalog: c.Catalog, Prices: c.Prices, Admit: r.meta.admission(),
		EC2: planner.PoolEC2{Listing: c, Templates: c.LaunchTemplates(), Instances: c.Instances(), AfterLaunch: r.meta.AfterLaunch,
			BeforeClaim: r.meta.BeforeClaim}, SubnetBlocks: c.SubnetBlocks().Read}
	if r.meta.Kube != nil {
		p.NodeClaims, p.InstanceSubnets = r.meta.Kube.NodeClaims, c.InstanceSubnets
		p.NodeOverlays, p.NodePools = r.meta.clusterNodeOverlays, r.meta.clusterNodePools
	}
	return p
}

func (r *nodePoolResource) facts() planner.PoolFacts {
	return planner.PoolFacts{ClusterName: r.meta.ClusterName, Region: r.meta.Client.Region, KarpenterVersion: r.meta.KarpenterVersion,
		FeatureGates: r.meta.KarpenterFeatureGates, Controller: r.meta.Controller, Bootstrap: r.meta.Bootstrap, Now: time.Now(),
		AutoMode: r.meta.clusterAutoMode(), CapacityBlockHorizon: r.meta.CapacityBlockHorizon}
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
	attrs := tfvalue.Attributes(plan.Raw)
	if replicas := attrs["replicas"]; replicas.IsKnown() && !replicas.IsNull() && attrs["launcher"].IsKnown() && !v.KarpenterLaunched() {
		values["manifest"] = nil // the provider's static pool has none
	}
	if spread := attrs["spread"]; spread.IsKnown() && spread.IsNull() {
		values["manifests"] = nil // one NodePool: `manifest`
	} else if spread.IsKnown() {
		values["manifest"] = nil // one NodePool per zone: `manifests`
	}
	withRaw(&plan.Raw, values, "node pool", diags)
}

// poolApplied are the attributes apply records.
type poolApplied struct {
	OwnerID         *string `tfsdk:"owner_id"`
	LaunchTemplates any     `tfsdk:"launch_templates"`
	Nodes           any     `tfsdk:"nodes"`
}

// apply runs the pool's apply (planner.ApplyPool) and returns the state to save; ok is false
// when there is nothing to save.
func (r *nodePoolResource) apply(ctx context.Context, raw tftypes.Value, creating bool, op string, diags *diag.Diagnostics) (tftypes.Value, bool) {
	var v poolValue
	if !decodeInto(raw, &v, "node pool", diags) {
		return raw, false
	}
	pi, ok := r.poolInput(&v, nil, false, diags) // when not ok, diags say why
	in := planner.PoolApplyInput{PoolInput: pi, Unreadable: !ok, Creating: creating, Shown: shownPlan(&v), TemplatesNull: v.LaunchTemplates.IsNull(),
		Recorded: decoded[[]planner.TemplateRecord](v.LaunchTemplates), NodesNull: !knownValue(v.Nodes), Wait: v.timeout(op, defaultLaunchTimeout)}
	res := planner.ApplyPool(ctx, r.ports(), r.facts(), in)
	addFindings(diags, res.Errors, res.Warnings)
	if !res.Save {
		return raw, false
	}
	out := poolApplied{OwnerID: emptyNil(res.OwnerID), LaunchTemplates: v.LaunchTemplates, Nodes: plannedValue(res.Nodes, raw.Type(), "nodes", v.Nodes)}
	if n, ok := out.Nodes.(tftypes.Value); ok && !n.IsKnown() {
		out.Nodes = nil
	}
	if !v.LaunchTemplates.IsNull() { // null: a dynamic pool without `details`
		out.LaunchTemplates = res.Templates
	}
	setRaw(&raw, out, "node pool", diags)
	return raw, true
}

// shownPlan is what the plan showed of the launch; nil when it was planned while the node
// class was unknown (this apply's plan is then the plan).
func shownPlan(v *poolValue) *launchplan.Shown {
	if !v.Summary.IsKnown() || !v.LaunchTemplates.IsKnown() {
		return nil
	}
	var shown launchplan.Shown
	if err := tfvalue.Decode(v.Summary, &shown.Summary); err == nil {
		_ = tfvalue.Decode(v.InstanceTypes, &shown.InstanceTypes)
	}
	return &shown
}

func (r *nodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	if raw, ok := r.apply(ctx, req.Plan.Raw, true, "create", &resp.Diagnostics); ok {
		resp.State.Raw = raw
	}
}

func (r *nodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	if raw, ok := r.apply(ctx, req.Plan.Raw, false, "update", &resp.Diagnostics); ok {
		resp.State.Raw = raw
	}
}

// poolRead are the attributes a refresh records.
type poolRead struct {
	LaunchTemplates any `tfsdk:"launch_templates"`
	Nodes           any `tfsdk:"nodes"`
}

// Read reconciles the recorded templates and nodes with EC2 (planner.RefreshPool).
func (r *nodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	var state poolValue
	if !decodeInto(req.State.Raw, &state, "node pool", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	got, errs := planner.RefreshPool(ctx, r.ports(), r.facts(), planner.PoolRecord{Name: state.Name, Owner: state.OwnerID, Static: state.static(),
		Templates: decoded[[]planner.TemplateRecord](state.LaunchTemplates), TemplatesNull: state.LaunchTemplates.IsNull(),
		NodesRecorded: !state.Nodes.IsNull(), Subnets: stateSubnets(&state)})
	if addFindings(&resp.Diagnostics, errs, nil); len(errs) > 0 {
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

// Delete terminates the pool's own instances and deletes its own templates (planner.DeletePool).
// A dynamic pool has neither, unless its owner's templates from an earlier provider version are left.
func (r *nodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state poolValue
	if !decodeInto(req.State.Raw, &state, "node pool", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	errs, warnings := planner.DeletePool(ctx, r.ports(), r.facts(), state.Name, state.OwnerID, state.timeout("delete", defaultTerminateTimeout))
	addFindings(&resp.Diagnostics, errs, warnings)
}

// poolImported are the attributes an import records; Read then finds the owner's launch
// templates and instances.
type poolImported struct {
	Name     string         `tfsdk:"name"`
	ID       string         `tfsdk:"id"`
	OwnerID  string         `tfsdk:"owner_id"`
	Replicas *int           `tfsdk:"replicas"`
	Nodes    []planner.Node `tfsdk:"nodes"`
}

// ImportState adopts a pool by `<name>` or `<name>/<owner id>` (planner.ImportPool). With the
// provider's kubernetes access, a NodePool of that name in the cluster is read as the
// configuration, its EC2NodeClass's values as `node_class`, and planned as ModifyPlan plans it,
// so that the next plan of the same configuration is clean; a static pool of the provider's own
// launcher is found by its ownership tags in EC2.
func (r *nodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	req.ID = importID(ctx, req, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() && requireMeta(r.meta, &resp.Diagnostics) {
		r.adopt(ctx, req.ID, &resp.State.Raw, &resp.Diagnostics)
	}
}

// adopt writes the pool id names (`<name>` or `<name>/<owner id>`) into raw, a null value of the
// resource's type: an import's state, or a listed pool's value.
func (r *nodePoolResource) adopt(ctx context.Context, id string, raw *tftypes.Value, diags *diag.Diagnostics) {
	var live *livePool
	if r.meta.Kube != nil && !strings.Contains(id, "/") {
		p, class, found, errs, warnings := planner.PoolFromCluster(ctx, r.meta.Kube.Object, id)
		if addFindings(diags, errs, warnings); len(errs) > 0 {
			return
		}
		if found {
			live = &livePool{pool: p.Config, class: class.Config}
			if p.AutoModeClass != nil {
				live.autoMode = &p.AutoModeClass.Config
			}
		}
	}
	imp, errs, warnings := planner.ImportPool(ctx, r.ports(), r.facts(), id)
	switch {
	case live != nil: // found in the cluster: EC2 only gives the owner id
		warnings = nil
	case r.meta.Kube != nil && len(warnings) > 0: // nothing in EC2 either
		errs = append(errs, planner.PoolNotFound(id))
	case r.meta.Kube == nil && imp.Replicas == nil:
		warnings = append(warnings, planner.NoClusterAccess(manifest.NodePoolKind))
	}
	if addFindings(diags, errs, warnings); len(errs) > 0 {
		return
	}
	out := poolImported{Name: imp.Name, ID: imp.Name, OwnerID: imp.OwnerID, Replicas: imp.Replicas, Nodes: imp.Nodes}
	setRaw(raw, out, "node pool", diags)
	if live != nil && !diags.HasError() {
		r.importLive(ctx, live, raw, diags)
	}
}

// livePool is a NodePool read from the cluster and the node class it names: an EC2NodeClass,
// or with autoMode an EKS Auto Mode NodeClass.
type livePool struct {
	pool     nodepool.Config
	class    nodeclass.Config
	autoMode *automode.Config
}

// importLive writes the live pool's configuration into the imported state, its class resolved
// as a karpenter_node_class (or karpenter_auto_mode_node_class) plans it, and the pool's plan.
func (r *nodePoolResource) importLive(ctx context.Context, live *livePool, raw *tftypes.Value, diags *diag.Diagnostics) {
	var classRaw tftypes.Value
	if live.autoMode != nil {
		classRaw = tftypes.NewValue(autoModeNodeClassSchema().Type().TerraformType(ctx), nil)
		(&autoModeNodeClassResource{meta: r.meta}).planAdopted(ctx, *live.autoMode, &classRaw, diags)
	} else {
		classRaw = tftypes.NewValue(nodeClassSchema().Type().TerraformType(ctx), nil)
		(&nodeClassResource{meta: r.meta}).planAdopted(ctx, live.class, nil, nil, &classRaw, diags)
	}
	if diags.HasError() {
		return
	}
	setRaw(raw, live.pool, "node pool", diags)
	*raw = configValue(*raw)
	withRaw(raw, map[string]any{"node_class": tfvalue.Attributes(classRaw)["resolved"]}, "node pool", diags)
	var plan poolValue
	if diags.HasError() || !decodeInto(*raw, &plan, "node pool", diags) {
		return
	}
	if r.planPool(ctx, false, raw, &plan, nil, diags); !diags.HasError() {
		*raw = knownOrNull(*raw)
	}
}
