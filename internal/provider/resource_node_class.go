package provider

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/fleet"
	"github.com/nodeplane/terraform-provider-karpenter/internal/karpenterhash"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
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
func (r *nodeClassResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v classValue
	if !req.Config.Raw.IsFullyKnown() || !decodeClass(req.Config.Raw, &v, &resp.Diagnostics) {
		return
	}
	s, findings := v.Spec()
	addFindings(&resp.Diagnostics, attrpath.Path{}, findings, "", false)
	addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.Validate(s), "Invalid node class", false)
	if v.Connectivity != nil {
		addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.ValidateConnectivity(v.Connectivity.Setting()), "", false)
	}
}

// ModifyPlan resolves the selectors against EC2 so the plan carries the real subnets, zones and
// security groups; it fails the plan when the answer makes the class unusable.
func (r *nodeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() { // destroy
		return
	}
	var state *classValue
	if !req.State.Raw.IsNull() {
		if state = (&classValue{}); !decodeClass(req.State.Raw, state, &resp.Diagnostics) {
			return
		}
		// A state without an owner id (imported without a profile to adopt, or written before
		// owner ids) gets one at apply: UseStateForUnknown would plan the null.
		if state.OwnerID == "" {
			withRaw(&resp.Plan.Raw, map[string]any{"owner_id": tfvalue.Unknown(tftypes.String)}, "node class", &resp.Diagnostics)
		}
	}
	// A role, instance profile, user data or tags known only after apply (e.g. created in the
	// same run) change nothing the plan resolves: only what names them waits (late_values.go).
	if !knownBesides(req.Config.Raw, lateClassAttrs...) {
		planLateClass(req.Config.Raw, &resp.Plan.Raw, &resp.Diagnostics)
		return
	}
	var plan classValue
	if !decodeClass(resp.Plan.Raw, &plan, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	s, late, doc, ok := r.admitPlan(&plan, &resp.Diagnostics)
	if !ok {
		return
	}
	res, ok := r.resolvePlan(ctx, &plan, state, s, &resp.Diagnostics)
	if !ok {
		return
	}
	if out := r.finishPlan(ctx, &plan, s, res, doc, late, &resp.Diagnostics); !resp.Diagnostics.HasError() {
		setRaw(&resp.Plan.Raw, out, "node class", &resp.Diagnostics)
	}
}

// planLateClass plans a class whose config names values known only after apply: every
// computed attribute unknown, the connectivity report null when there is nothing to check.
func planLateClass(config tftypes.Value, plan *tftypes.Value, diags *diag.Diagnostics) {
	values := unknownComputed(plan.Type(), classPlanned{})
	connectivity := tfvalue.Attributes(config)["connectivity"]
	if decoded[string](tfvalue.Attributes(connectivity)["checks"]) == nodeclass.ChecksOff {
		values["connectivity_report"] = nil // nothing to check: the report stays null, as it will be once the config is known
	}
	withRaw(plan, values, "node class", diags)
}

// admitPlan is the part of a plan the config alone decides: the spec, every rule on it, and the
// manifest the API server and Karpenter would admit, before any AWS call.
func (r *nodeClassResource) admitPlan(plan *classValue, diags *diag.Diagnostics) (nodeclass.Spec, lateValues, string, bool) {
	s, findings := plan.Spec()
	addFindings(diags, attrpath.Path{}, findings, "", false)
	late := lateOf(plan)
	late.substitute(&s) // validated and rendered as placeholders; what names them is unknown
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
func (r *nodeClassResource) resolvePlan(ctx context.Context, plan, state *classValue, s nodeclass.Spec, diags *diag.Diagnostics) (nodeclass.PlanResult, bool) {
	stateOwner := ""                                                     // a new class owns nothing yet
	ips := awsclient.InstanceProfiles{IAM: r.meta.Client.IAM}.ReadOnce() // the profile and node-role checks read it once
	in := nodeclass.PlanInput{Spec: s, KubernetesVersion: r.meta.KubernetesVersion, Now: time.Now(), NodeRole: nodeRole(plan, ips)}
	if state != nil {
		stateOwner = state.OwnerID
		if prior, ok := state.Resolution(); ok {
			in.Prior = &prior
		}
		if prior, ok := state.Capacity(); ok {
			in.PriorCapacity = &prior
		}
	}
	in.Profile = func(ctx context.Context) (string, []attrpath.Finding) {
		c := classProfile(plan)
		c.Owner = stateOwner
		return r.profilesOn(ips).Plan(ctx, c)
	}
	res := nodeclass.Plan(ctx, r.meta.Client.Discovery(), in)
	addFindings(diags, attrpath.Path{}, res.Errors, "", false)
	addFindings(diags, attrpath.Path{}, res.Warnings, "", true)
	return res, !diags.HasError()
}

// finishPlan is the plan's computed attributes: the resolution, the manifests, the node-role
// and connectivity reports; what names a late value is unknown.
func (r *nodeClassResource) finishPlan(ctx context.Context, plan *classValue, s nodeclass.Spec, res nodeclass.PlanResult, doc string,
	late lateValues, diags *diag.Diagnostics) classPlanned {
	out := classPlanned{Recorded: nodeclass.Record(res.Resolved, res.Capacity), ID: plan.Name, Manifest: doc,
		NodeRoleReport: nodeclass.NodeRoleReport(res.NodeRole)}
	if late.role || late.profile { // checked at apply's final plan, once the role is known
		out.NodeRoleReport = unknownAttr(plan.raw.Type(), "node_role_report")
	}
	rc := launchplan.ClassOf(s, res.Resolved, res.InstanceProfile).Value()
	hash := r.classHash(doc, diags)
	rc.Hash, rc.HashVersion, rc.CapacityReservationIDs = emptyNil(hash[0]), emptyNil(hash[1]), out.ReservationIDs()
	resolved, err := tfvalue.Encode(tfvalue.AttributeType(plan.raw.Type(), "resolved"), rc)
	if err == nil && late.any() {
		out.Manifest = tfvalue.Unknown(tftypes.String)
		resolved, err = late.unknownInResolved(resolved)
	}
	if err != nil {
		diags.AddError("Cannot write the node class", err.Error())
		return out
	}
	out.Resolved = resolved
	if late.tags { // a whole map is unknown: the object's type is not known either
		out.ManifestObject = tfvalue.Unknown(tftypes.DynamicPseudoType)
	} else if out.ManifestObject, err = manifestObject(doc, late.placeholders()...); err != nil {
		diags.AddError("Cannot render the EC2NodeClass manifest", err.Error())
	}
	if diags.HasError() {
		return out
	}
	// The report is computed afresh at every plan (never kept from state), so rules changed
	// outside Terraform show up as an in-place update of connectivity_report.
	out.ConnectivityReport = r.connectivityReport(ctx, plan.Connectivity, res.Resolved, diags)
	return out
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

// classOwner is the attribute apply records.
type classOwner struct {
	OwnerID string `tfsdk:"owner_id"`
}

// Create records the planned resolution under a new owner id and, for a class with `role`,
// creates its instance profile. A failed create leaves nothing of the new owner behind.
func (r *nodeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var v classValue
	if !decodeClass(req.Plan.Raw, &v, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	v.OwnerID = fleet.NewOwnerID()
	addFindings(&resp.Diagnostics, attrpath.Path{}, r.profiles().Ensure(ctx, classProfile(&v)), "", false)
	if resp.Diagnostics.HasError() {
		// Its state will not be saved: remove what this owner id created.
		r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&v)), v.OwnerID, &resp.Diagnostics)
		return
	}
	resp.State.Raw = req.Plan.Raw
	setRaw(&resp.State.Raw, classOwner{v.OwnerID}, "node class", &resp.Diagnostics)
}

// Read keeps the recorded resolution: the next plan resolves again and shows any change in
// EC2 as an in-place update, which is how drift becomes visible. The instance profile of a
// class with `role` is checked: when it is gone or changed outside Terraform, the recorded
// resolved.instance_profile is cleared, so the next plan shows an update that restores it.
func (r *nodeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state classValue
	if !decodeClass(req.State.Raw, &state, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	drifted, err := r.profiles().Drifted(ctx, classProfile(&state))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the class's instance profile", err.Error())
		return
	}
	if drifted {
		resolved := state.Resolved
		withRaw(&resolved, map[string]any{"instance_profile": nil}, "node class", &resp.Diagnostics)
		withRaw(&resp.State.Raw, map[string]any{"resolved": resolved}, "node class", &resp.Diagnostics)
	}
}

// Update records the plan and makes IAM match it: the instance profile of a class with `role`
// is ensured, and a profile the class no longer uses (role replaced by instance_profile, or a
// new name after a provider setting changed) is deleted. A state without an owner id (written
// before the class had one) gets one here: it owned nothing until now.
func (r *nodeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var v, state classValue
	if !decodeClass(req.Plan.Raw, &v, &resp.Diagnostics) || !decodeClass(req.State.Raw, &state, &resp.Diagnostics) ||
		!requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	fresh := false
	if v.OwnerID == "" {
		if v.OwnerID = state.OwnerID; v.OwnerID == "" {
			v.OwnerID, fresh = fleet.NewOwnerID(), true
		}
	}
	addFindings(&resp.Diagnostics, attrpath.Path{}, r.profiles().Ensure(ctx, classProfile(&v)), "", false)
	if resp.Diagnostics.HasError() {
		if fresh { // the new owner id is not saved: remove what it created
			r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&v)), v.OwnerID, &resp.Diagnostics)
		}
		return
	}
	r.deleteProfiles(ctx, r.profiles().Unused(classProfile(&state), classProfile(&v)), state.OwnerID, &resp.Diagnostics)
	resp.State.Raw = req.Plan.Raw
	setRaw(&resp.State.Raw, classOwner{v.OwnerID}, "node class", &resp.Diagnostics)
}

// Delete removes the instance profile the class created for its `role`; nothing else of the
// class exists in AWS.
func (r *nodeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state classValue
	if !decodeClass(req.State.Raw, &state, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.deleteProfiles(ctx, r.profiles().Owned(classProfile(&state)), state.OwnerID, &resp.Diagnostics)
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
	setRaw(&resp.State.Raw, struct {
		ID      string  `tfsdk:"id"`
		Name    string  `tfsdk:"name"`
		OwnerID *string `tfsdk:"owner_id"`
	}{req.ID, req.ID, emptyNil(owner)}, "node class", &resp.Diagnostics)
}
