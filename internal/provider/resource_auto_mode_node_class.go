package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ resource.ResourceWithConfigure      = (*autoModeNodeClassResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*autoModeNodeClassResource)(nil)
	_ resource.ResourceWithValidateConfig = (*autoModeNodeClassResource)(nil)
	_ resource.ResourceWithImportState    = (*autoModeNodeClassResource)(nil)
	_ resource.ResourceWithIdentity       = (*autoModeNodeClassResource)(nil)
)

// autoModeNodeClassResource is karpenter_auto_mode_node_class: an EKS Auto Mode NodeClass,
// planned (planner.AutoModeClass) and recorded; it owns no AWS object.
type autoModeNodeClassResource struct{ meta *Meta }

func newAutoModeNodeClassResource() resource.Resource { return &autoModeNodeClassResource{} }

func (r *autoModeNodeClassResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_auto_mode_node_class"
}

func (r *autoModeNodeClassResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = autoModeNodeClassSchema()
}

func (r *autoModeNodeClassResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("NodeClass")
}

func (r *autoModeNodeClassResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

// autoModeClassValue is a karpenter_auto_mode_node_class value as the provider reads it.
type autoModeClassValue struct {
	automode.Config
	ID       string        `tfsdk:"id"`
	Resolved tftypes.Value `tfsdk:"resolved"`
	// Computed from `resolved`, written by the plan, never read back.
	_ struct{} `tfsdk:"manifest"`
	_ struct{} `tfsdk:"subnets"`
	_ struct{} `tfsdk:"security_group_ids"`
	_ struct{} `tfsdk:"pod_subnets"`
	_ struct{} `tfsdk:"pod_security_group_ids"`
	_ struct{} `tfsdk:"capacity_reservation_ids"`
}

// autoModeClassPlanned are the attributes the plan computes.
type autoModeClassPlanned struct {
	ID                     string                               `tfsdk:"id"`
	Manifest               string                               `tfsdk:"manifest"`
	Resolved               launchplan.ClassRef                  `tfsdk:"resolved"`
	Subnets                map[string]launchplan.ClassSubnet    `tfsdk:"subnets"`
	SecurityGroupIDs       []string                             `tfsdk:"security_group_ids"`
	PodSubnets             map[string]launchplan.ClassPodSubnet `tfsdk:"pod_subnets"`
	PodSecurityGroupIDs    []string                             `tfsdk:"pod_security_group_ids"`
	CapacityReservationIDs []string                             `tfsdk:"capacity_reservation_ids"`
}

// ValidateConfig runs the rules that need no API call, the schema written from the EKS user
// guide included, as soon as the configuration is known.
func (r *autoModeNodeClassResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v autoModeClassValue
	if !req.Config.Raw.IsFullyKnown() || !decodeInto(req.Config.Raw, &v, "Auto Mode node class", &resp.Diagnostics) {
		return
	}
	addFindings(&resp.Diagnostics, planner.ValidateAutoModeClass(v.Config, admission(manifest.DefaultVersion, nil)), nil)
}

// ModifyPlan plans the class: its manifest admitted and its selectors resolved against EC2.
func (r *autoModeNodeClassResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() { // destroy: nothing in AWS to remove
		return
	}
	if !req.Config.Raw.IsFullyKnown() { // a value known only after apply: so is every computed attribute
		withRaw(&resp.Plan.Raw, unknownComputed(resp.Plan.Raw.Type(), autoModeClassPlanned{}), "Auto Mode node class", &resp.Diagnostics)
		return
	}
	var plan, state autoModeClassValue
	if !decodeInto(req.Plan.Raw, &plan, "Auto Mode node class", &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	in := planner.AutoModeClassInput{Config: plan.Config}
	if !req.State.Raw.IsNull() && decodeInto(req.State.Raw, &state, "Auto Mode node class", &resp.Diagnostics) {
		in.Prior = priorClassValue(state.Resolved)
	}
	ports := planner.AutoModeClassPorts{EC2: r.meta.Client.Discovery(), Admit: r.meta.admission(), Cluster: r.meta.autoModeCluster()}
	res := planner.AutoModeClass(ctx, ports, in, time.Now())
	if addFindings(&resp.Diagnostics, res.Errors, res.Warnings); resp.Diagnostics.HasError() {
		return
	}
	setRaw(&resp.Plan.Raw, autoModePlannedOf(plan.Name, res), "Auto Mode node class", &resp.Diagnostics)
}

// priorClassValue is the class value a state's `resolved` carries (nil: none readable).
func priorClassValue(resolved tftypes.Value) *launchplan.ClassValue {
	var ref launchplan.ClassRef
	if !resolved.IsKnown() || resolved.IsNull() || tfvalue.Decode(resolved, &ref) != nil {
		return nil
	}
	v, err := ref.Value()
	if err != nil {
		return nil
	}
	return &v
}

func autoModePlannedOf(name string, res planner.AutoModeClassResult) autoModeClassPlanned {
	v := res.Resolved
	out := autoModeClassPlanned{ID: name, Manifest: res.Manifest, Resolved: v.Ref(), Subnets: v.Subnets, SecurityGroupIDs: v.SecurityGroupIDs,
		PodSubnets: v.PodSubnets, CapacityReservationIDs: v.CapacityReservationIDs}
	if v.AutoMode != nil {
		out.PodSecurityGroupIDs = v.AutoMode.PodSecurityGroupIDs
	}
	return out
}

// Create records the plan: the NodeClass object itself is the cluster's, applied from `manifest`.
func (r *autoModeNodeClassResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	resp.State.Raw = req.Plan.Raw
}

// Read keeps the recorded resolution: the next plan resolves again and shows a changed selection
// as an in-place update.
func (r *autoModeNodeClassResource) Read(ctx context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
}

// Update records the plan.
func (r *autoModeNodeClassResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	resp.State.Raw = req.Plan.Raw
}

// Delete forgets the class: it owns nothing in AWS.
func (r *autoModeNodeClassResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
