package provider

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*nodeClassResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeClassResource)(nil)
	_ resource.ResourceWithIdentity       = (*nodeClassResource)(nil)
)

type nodeClassResource struct{ meta *Meta }

func newNodeClassResource() resource.Resource { return &nodeClassResource{} }

func (r *nodeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_class"
}

func (r *nodeClassResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodeClassSchema()
}

func (r *nodeClassResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("EC2NodeClass")
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
	addFindings(&resp.Diagnostics, planner.ValidateClass(v.Config), nil)
}

// ModifyPlan plans the class (planner.Class): the plan carries the real subnets, zones and
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
	r.planClass(ctx, req.Config.Raw, &resp.Plan.Raw, state, &resp.Diagnostics)
}

// planClass writes the class's plan (planner.Class) into plan, for the configuration config and
// the prior state (nil for a new class): ModifyPlan's, and an import's from the live object.
func (r *nodeClassResource) planClass(ctx context.Context, config tftypes.Value, plan *tftypes.Value, state *classValue, diags *diag.Diagnostics) {
	// A role, instance profile, user data or tags known only after apply (e.g. created in the
	// same run) change nothing the plan resolves: only what names them waits (late_values.go).
	if !knownBesides(config, nodeclass.LateAttrs...) {
		planLateClass(config, plan, diags)
		return
	}
	var v classValue
	if !decodeClass(*plan, &v, diags) || !requireMeta(r.meta, diags) {
		return
	}
	ips := awsclient.InstanceProfiles{IAM: r.meta.Client.IAM, Versions: r.meta.Client.PolicyVersions()}.ReadOnce() // the profile and node-role checks read it once
	ports := planner.ClassPorts{EC2: r.meta.Client.Discovery(), Profiles: ips, RolePolicies: ips.RolePolicies,
		Admit: r.meta.admission(), PoolListing: r.meta.Client, WarmPoolInputs: r.meta.Client.WarmFromDisk}
	res := planner.Class(ctx, ports, r.classFacts(), classInput(&v, state))
	addFindings(diags, res.Errors, res.Warnings)
	if diags.HasError() {
		return
	}
	if out := classPlannedOf(&v, res, diags); !diags.HasError() {
		setRaw(plan, out, "node class", diags)
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

// classFacts are the provider's settings a class plans with.
func (r *nodeClassResource) classFacts() planner.ClassFacts {
	m := r.meta
	return planner.ClassFacts{ClusterName: m.ClusterName, Region: m.Client.Region, Partition: m.Client.Partition, KubernetesVersion: m.KubernetesVersion,
		KarpenterVersion: m.KarpenterVersion, FeatureGates: m.KarpenterFeatureGates, CABundle: m.Bootstrap.CABundle, Now: time.Now(),
		CapacityBlockHorizon: m.CapacityBlockHorizon}
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

// classOwner is the attribute apply records.
type classOwner struct {
	OwnerID string `tfsdk:"owner_id"`
}

// Create records the planned resolution under a new owner id and, for a class with `role` and
// `instance_profile_for_static_pools`, creates its instance profile (planner.CreateClass).
func (r *nodeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	var v classValue
	if !decodeClass(req.Plan.Raw, &v, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	classApplied(planner.CreateClass(ctx, r.profilePorts(), r.classFacts(), classProfile(&v)), req.Plan.Raw, &resp.State.Raw, &resp.Diagnostics)
}

// Read keeps the recorded resolution: the next plan resolves again and shows any change in
// EC2 as an in-place update, which is how drift becomes visible. The instance profile the class
// created for static pools is checked: when it is gone or changed outside Terraform, the recorded
// resolved.instance_profile is cleared, so the next plan shows an update that restores it.
func (r *nodeClassResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	var state classValue
	if !decodeClass(req.State.Raw, &state, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	drifted, errs := planner.RefreshClass(ctx, r.profilePorts(), r.classFacts(), classProfile(&state))
	if addFindings(&resp.Diagnostics, errs, nil); len(errs) > 0 {
		return
	}
	if drifted {
		resolved := state.Resolved
		withRaw(&resolved, map[string]any{"instance_profile": nil}, "node class", &resp.Diagnostics)
		withRaw(&resp.State.Raw, map[string]any{"resolved": resolved}, "node class", &resp.Diagnostics)
	}
}

// Update records the plan and makes IAM match it (planner.UpdateClass).
func (r *nodeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	var v, state classValue
	if !decodeClass(req.Plan.Raw, &v, &resp.Diagnostics) || !decodeClass(req.State.Raw, &state, &resp.Diagnostics) ||
		!requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	res := planner.UpdateClass(ctx, r.profilePorts(), r.classFacts(), classProfile(&state), classProfile(&v))
	classApplied(res, req.Plan.Raw, &resp.State.Raw, &resp.Diagnostics)
}

// Delete removes the instance profile the class created for its static pools (planner.DeleteClass).
func (r *nodeClassResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state classValue
	if !decodeClass(req.State.Raw, &state, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	classApplied(planner.DeleteClass(ctx, r.profilePorts(), r.classFacts(), classProfile(&state)), req.State.Raw, nil, &resp.Diagnostics) // saves nothing
}

// classApplied reports what apply did in IAM and, when it saves the state, records the plan
// there under the owner id.
func classApplied(res planner.ClassApplied, plan tftypes.Value, state *tftypes.Value, diags *diag.Diagnostics) {
	addFindings(diags, res.Errors, res.Warnings)
	if res.Save {
		*state = plan
		setRaw(state, classOwner{res.OwnerID}, "node class", diags)
	}
}

// classImported are the attributes an import records besides the configuration.
type classImported struct {
	ID      string  `tfsdk:"id"`
	Name    string  `tfsdk:"name"`
	OwnerID *string `tfsdk:"owner_id"`
}

// ImportState adopts a class by name: the owner id of the provider's instance profile for that
// class name when one exists with the provider's tags (so the class keeps managing it) and,
// with the provider's kubernetes access, the live EC2NodeClass as the configuration, planned as
// ModifyPlan plans it, so that the next plan of the same configuration is clean. Without that
// access the state holds the name and the next plan records the configuration.
func (r *nodeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	req.ID = importID(ctx, req, &resp.Diagnostics)
	addFindings(&resp.Diagnostics, planner.ValidateClassImportID(req.ID), nil)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.adopt(ctx, req.ID, &resp.State.Raw, &resp.Diagnostics)
}

// adopt writes the class named name into raw, a null value of the resource's type: an import's
// state, or a listed class's value (planner.ImportClass).
func (r *nodeClassResource) adopt(ctx context.Context, name string, raw *tftypes.Value, diags *diag.Diagnostics) {
	var read planner.LiveObject
	if r.meta.Kube != nil {
		read = r.meta.Kube.Object
	}
	got, errs, warnings := planner.ImportClass(ctx, r.profilePorts(), r.classFacts(), read, name)
	if addFindings(diags, errs, warnings); len(errs) > 0 {
		return
	}
	imported := classImported{name, name, emptyNil(got.OwnerID)}
	if got.Class == nil { // no cluster access: the name and owner id only
		setRaw(raw, imported, "node class", diags)
		return
	}
	var prior *classValue
	if got.Adopted { // the profile found is this class's: planned under its owner id, it is not a name already taken
		prior = &classValue{OwnerID: got.OwnerID}
	}
	r.planAdopted(ctx, got.Class.Config, imported, prior, raw, diags)
}

// planAdopted writes a class read from the cluster into raw (a null value of the resource's type)
// as a user writes it (configValue), with what the import records beside it (nil: nothing),
// planned as ModifyPlan plans it, for the prior state (nil: none; an adopted profile's owner id);
// what only an apply would learn is null.
func (r *nodeClassResource) planAdopted(ctx context.Context, cfg nodeclass.Config, recorded any, prior *classValue, raw *tftypes.Value,
	diags *diag.Diagnostics) {
	v := *raw
	setRaw(&v, cfg, "node class", diags)
	v = configValue(v)
	if recorded != nil {
		setRaw(&v, recorded, "node class", diags)
	}
	if r.planClass(ctx, v, &v, prior, diags); !diags.HasError() {
		*raw = knownOrNull(v)
	}
}
