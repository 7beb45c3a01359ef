package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

var (
	_ resource.ResourceWithConfigure      = (*nodeClassResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeClassResource)(nil)
)

type nodeClassResource struct{ meta *Meta }

func newNodeClassResource() resource.Resource { return &nodeClassResource{} }

func (r *nodeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_class"
}

func (r *nodeClassResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodeClassSchema()
}

func (r *nodeClassResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig runs every rule that needs no API call, as soon as the config is known.
func (r *nodeClassResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	var m nodeClassModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s := m.spec(ctx, &resp.Diagnostics)
	if m.MetadataOptions == nil { // the default applies after validation
		s.MetadataOptions = nodeclass.DefaultMetadataOptions()
	}
	addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.Validate(s), "Invalid node class", false)
	if m.Connectivity != nil {
		addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.ValidateConnectivity(m.Connectivity.config()), "", false)
	}
}

// ModifyPlan resolves the selectors against EC2 so the plan carries the real subnets, zones and
// security groups; it fails the plan when the answer makes the class unusable.
func (r *nodeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() { // destroy
		return
	}
	// A state without an owner id (imported without a profile to adopt, or written before owner
	// ids) gets one at apply: UseStateForUnknown would plan the null.
	stateOwner := ownerInState(ctx, req.State, &resp.Diagnostics)
	if !req.State.Raw.IsNull() && stateOwner == "" {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("owner_id"), types.StringUnknown())...)
	}
	// A role, instance profile, user data or tags known only after apply (e.g. created in the
	// same run) change nothing the plan resolves: only what names them waits (late_values.go).
	if !knownBesides(req.Config.Raw, lateClassAttrs...) {
		planLateClass(ctx, req, resp)
		return
	}
	var plan nodeClassModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	s, late, doc, ok := r.admitPlan(ctx, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	res, ok := r.resolvePlan(ctx, req, &plan, s, stateOwner, &resp.Diagnostics)
	if !ok {
		return
	}
	r.finishPlan(ctx, &plan, s, res, doc, late, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// planLateClass plans a class whose config names values known only after apply: every
// computed attribute unknown, the connectivity report null when there is nothing to check.
func planLateClass(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	setComputedUnknown(ctx, &resp.Plan, &resp.Diagnostics)
	var checks types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("connectivity").AtName("checks"), &checks)...)
	if checks.ValueString() == nodeclass.ChecksOff { // nothing to check: the report stays null, as it will be once the config is known
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("connectivity_report"), types.ListNull(connectivityCheckType))...)
	}
}

// admitPlan is the part of a plan the config alone decides: the spec, every rule on it, and the
// manifest the API server and Karpenter would admit, before any AWS call.
func (r *nodeClassResource) admitPlan(ctx context.Context, plan *nodeClassModel, diags *diag.Diagnostics) (nodeclass.Spec, lateValues, string, bool) {
	s := plan.spec(ctx, diags)
	var late lateValues
	late.substitute(plan, &s) // validated and rendered as placeholders; what names them is unknown
	addFindings(diags, attrpath.Path{}, nodeclass.ApplyDefaultTerms(&s, r.meta.ClusterName), "", false)
	addFindings(diags, attrpath.Path{}, nodeclass.Validate(s), "Invalid node class", false)
	addFindings(diags, attrpath.Path{}, nodeclass.ValidateForVersion(s, r.meta.KarpenterVersion, r.meta.KarpenterFeatureGates), "Invalid kubelet configuration", false)
	if diags.HasError() {
		return s, late, "", false
	}
	doc, err := nodeclass.Manifest(s)
	if err != nil {
		diags.AddError("Cannot render the EC2NodeClass manifest", err.Error())
		return s, late, "", false
	}
	return s, late, doc, admitManifest(r.meta.KarpenterVersion, manifest.EC2NodeClassKind, doc, diags)
}

// resolvePlan resolves the class against AWS (nodeclass.Plan), with the state's answers to keep
// while the selection is unchanged.
func (r *nodeClassResource) resolvePlan(ctx context.Context, req resource.ModifyPlanRequest, plan *nodeClassModel, s nodeclass.Spec,
	stateOwner string, diags *diag.Diagnostics) (nodeclass.PlanResult, bool) {
	in := nodeclass.PlanInput{Spec: s, KubernetesVersion: r.meta.KubernetesVersion, Now: time.Now(),
		Profile: func(ctx context.Context) (string, []attrpath.Finding) {
			c := classProfile(plan)
			c.Owner = stateOwner // "" for a new class, which owns nothing yet
			return r.profiles().Plan(ctx, c)
		}}
	if !req.State.Raw.IsNull() {
		var state nodeClassModel
		diags.Append(req.State.Get(ctx, &state)...)
		if prior, ok := resolutionFromState(ctx, state); ok {
			in.Prior = &prior
		}
		if prior, ok := capacityFromState(ctx, req.State); ok {
			in.PriorCapacity = &prior
		}
	}
	in.NodeRole = r.nodeRole(plan)
	res := nodeclass.Plan(ctx, r.meta.Client.Discovery(), in)
	addFindings(diags, attrpath.Path{}, res.Errors, "", false)
	addFindings(diags, attrpath.Path{}, res.Warnings, "", true)
	return res, !diags.HasError()
}

// finishPlan writes the resolution, the manifests and the connectivity report into the plan.
func (r *nodeClassResource) finishPlan(ctx context.Context, plan *nodeClassModel, s nodeclass.Spec, res nodeclass.PlanResult, doc string,
	late lateValues, diags *diag.Diagnostics) {
	plan.ID = plan.Name
	resolved := res.Resolved
	plan.CapacityReservations, plan.PlacementGroup = capacityValues(ctx, res.Capacity, diags) // before resolved, which names them
	plan.NodeRoleReport = nodeRoleReport(ctx, res.NodeRole, diags)
	if late.role || late.profile { // checked at apply's final plan, once the role is known
		plan.NodeRoleReport = types.ListUnknown(nodeRoleNeedType)
	}
	diags.Append(setResolution(ctx, plan, s, resolved, res.InstanceProfile, doc, r.classHash(doc, diags))...)
	if late.any() {
		plan.Manifest = types.StringUnknown()
		plan.Resolved = late.unknownInResolved(ctx, plan.Resolved, diags)
	}
	if late.tags { // a whole map is unknown: the object's type is not known either
		plan.ManifestObject = types.DynamicUnknown()
	} else if obj, err := manifestObject(doc, late.placeholders()...); err != nil {
		diags.AddError("Cannot render the EC2NodeClass manifest", err.Error())
	} else {
		plan.ManifestObject = obj
	}
	if diags.HasError() {
		return
	}
	// The report is computed afresh at every plan (never kept from state), so rules changed
	// outside Terraform show up as an in-place update of connectivity_report.
	plan.ConnectivityReport = r.connectivityReport(ctx, plan.Connectivity, resolved, diags)
}

// knownBesides reports whether an object value is fully known once its top-level attributes
// `names` are disregarded.
func knownBesides(v tftypes.Value, names ...string) bool {
	if v.IsFullyKnown() {
		return true
	}
	var attrs map[string]tftypes.Value
	if !v.IsKnown() || v.As(&attrs) != nil {
		return false
	}
	for k, a := range attrs {
		if !slices.Contains(names, k) && !a.IsFullyKnown() {
			return false
		}
	}
	return true
}

// classHash is Karpenter's EC2NodeClass hash of the admitted manifest and its hash version, as
// the provider's karpenter_version computes them, with the cluster's CA bundle as Karpenter
// hashes it ("" when the provider has none: the value then differs from the cluster's by that
// term, but still changes exactly when the class does).
func (r *nodeClassResource) classHash(doc string, diags *diag.Diagnostics) [2]string {
	h, v, err := karpenterhash.EC2NodeClassHashFor(r.meta.KarpenterVersion, doc, r.meta.Bootstrap.CABundle)
	if err != nil {
		diags.AddWarning("Cannot compute Karpenter's EC2NodeClass hash", "The plan cannot say whether the change drifts nodes: "+err.Error())
		return [2]string{}
	}
	return [2]string{h, v}
}

// Create records the planned resolution under a new owner id and, for a class with `role`,
// creates its instance profile. A failed create leaves nothing of the new owner behind.
func (r *nodeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m nodeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	m.OwnerID = types.StringValue(fleet.NewOwnerID())
	addFindings(&resp.Diagnostics, attrpath.Path{}, r.profiles().Ensure(ctx, classProfile(&m)), "", false)
	if resp.Diagnostics.HasError() {
		// Its state will not be saved: remove what this owner id created.
		r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&m)), m.OwnerID.ValueString(), &resp.Diagnostics)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read keeps the recorded resolution: the next plan resolves again and shows any change in
// EC2 as an in-place update, which is how drift becomes visible. The instance profile of a
// class with `role` is checked: when it is gone or changed outside Terraform, the recorded
// resolved.instance_profile is cleared, so the next plan shows an update that restores it.
func (r *nodeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	drifted, err := r.profiles().Drifted(ctx, classProfile(&state))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the class's instance profile", err.Error())
		return
	}
	if drifted {
		attrs := maps.Clone(state.Resolved.Attributes())
		attrs["instance_profile"] = types.StringNull()
		var d diag.Diagnostics
		state.Resolved, d = types.ObjectValue(state.Resolved.AttributeTypes(ctx), attrs)
		resp.Diagnostics.Append(d...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update records the plan and makes IAM match it: the instance profile of a class with `role`
// is ensured, and a profile the class no longer uses (role replaced by instance_profile, or a
// new name after a provider setting changed) is deleted. A state without an owner id (written
// before the class had one) gets one here: it owned nothing until now.
func (r *nodeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, state nodeClassModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	fresh := false
	if m.OwnerID.IsUnknown() || m.OwnerID.ValueString() == "" {
		m.OwnerID = state.OwnerID
		if m.OwnerID.ValueString() == "" {
			m.OwnerID, fresh = types.StringValue(fleet.NewOwnerID()), true
		}
	}
	addFindings(&resp.Diagnostics, attrpath.Path{}, r.profiles().Ensure(ctx, classProfile(&m)), "", false)
	if resp.Diagnostics.HasError() {
		if fresh { // the new owner id is not saved: remove what it created
			r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&m)), m.OwnerID.ValueString(), &resp.Diagnostics)
		}
		return
	}
	r.deleteProfiles(ctx, r.profiles().Unused(classProfile(&state), classProfile(&m)), state.OwnerID.ValueString(), &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete removes the instance profile the class created for its `role`; nothing else of the
// class exists in AWS.
func (r *nodeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&state)), state.OwnerID.ValueString(), &resp.Diagnostics)
}

// ImportState adopts a class by name. The imported state holds `id` and `name`, and the owner id
// of the provider's instance profile for that class name when one exists with the provider's
// tags (so the class keeps managing it); Read keeps that state, and the next plan resolves the
// selectors from the configuration and shows an in-place update that records the resolution.
func (r *nodeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	// The name rule of nodeclass.Validate, the one a planned class must pass.
	for _, e := range nodeclass.Validate(nodeclass.Spec{Name: req.ID}) {
		if e.Path.String() == "name" {
			resp.Diagnostics.AddError("Invalid import ID",
				fmt.Sprintf("The import ID is the node class name, `metadata.name` of the EC2NodeClass, and must equal `name` in "+
					"the configuration: %s.", e.Message))
			return
		}
	}
	if !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	owner, err := r.profiles().Adopt(ctx, req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the class's instance profile", err.Error()+"\n\n"+fleet.IAMPermissionsHint)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	if owner != "" {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("owner_id"), owner)...)
	}
}
