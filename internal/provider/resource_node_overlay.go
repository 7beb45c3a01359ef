package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

var (
	_ resource.ResourceWithConfigure      = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithImportState    = (*nodeOverlayResource)(nil)
	_ resource.ResourceWithIdentity       = (*nodeOverlayResource)(nil)
)

type nodeOverlayResource struct{ meta *Meta }

func newNodeOverlayResource() resource.Resource { return &nodeOverlayResource{} }

// overlayValue is a karpenter_node_overlay value as the provider reads it.
type overlayValue struct {
	nodeoverlay.Config
	ID       string                   `tfsdk:"id"`
	Metadata *manifest.ObjectMetadata `tfsdk:"metadata"`
	_        struct{}                 `tfsdk:"manifest"`
	_        struct{}                 `tfsdk:"resolved"`
}

// overlayPlanned are the attributes an overlay's plan computes.
type overlayPlanned struct {
	ID       string             `tfsdk:"id"`
	Manifest string             `tfsdk:"manifest"`
	Resolved nodeoverlay.Config `tfsdk:"resolved"`
}

func (r *nodeOverlayResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_overlay"
}

func (r *nodeOverlayResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodeOverlaySchema()
}

func (r *nodeOverlayResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema(manifest.NodeOverlayKind)
}

func nodeOverlaySchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Karpenter `NodeOverlay` (`karpenter.sh/v1alpha1`, behind Karpenter's `NodeOverlay` feature gate): a change " +
			"Karpenter makes to the instance types its requirements select — their offerings' price (`price` or `price_adjustment`) or " +
			"extended resources they carry (`capacity`). Karpenter applies every overlay of the cluster to every NodePool, heaviest " +
			"`weight` first; two overlays of one weight that change the same offering or resource conflict, and Karpenter ignores one.\n\n" +
			"The provider renders and admits the `manifest` (apply it with `kubernetes_manifest` or `kubectl_manifest`) and creates " +
			"nothing in AWS. Pools take the overlays' `resolved` values in `node_overlays`, and plan with them as Karpenter launches: " +
			"the launch order, the cost and `summary.node_overlays` show what they change. List every overlay of the cluster in every " +
			"pool (a module can pass one list to all).\n\n" +
			"**Import** by name (the import ID is `name`). With the provider's `kubernetes` access the live NodeOverlay is read: its " +
			"requirements, `price` or `priceAdjustment`, `capacity`, `weight` and its own labels and annotations become the " +
			"configuration (kubectl's last-applied configuration stays with the cluster), and the overlay is planned at import, so " +
			"that `terraform plan -generate-config-out` writes it and the next plan is clean. Fields the configuration cannot carry " +
			"are named in the import's warning; an overlay the plan would refuse (or the `NodeOverlay` gate missing from " +
			"`karpenter_feature_gates`) fails the import on its attribute. Without cluster access the state holds `id` and `name`, " +
			"and the next plan records the configuration. See the guide \"From YAML to the provider\".\n\n" +
			"**Identity and query.** The resource's identity (Terraform >= 1.12) is `name`: an import block may write " +
			"`identity = { name = \"…\" }`. A list resource of the same type (Terraform >= 1.14) lets `terraform query` find the " +
			"cluster's NodeOverlays to adopt (`name_prefix`, `labels`), and `-generate-config-out` writes each as an import by " +
			"identity with its configuration; one that cannot be adopted is left out with a warning naming why.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The overlay name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "`metadata.name` of the NodeOverlay. Changing it replaces the resource.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"metadata": objectMetadataAttribute("NodeOverlay", "labels of the nodes"),
			"requirements": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "`requirements` (1 to 100), ANDed: `{ key, operator, values }`, selecting instance types and offerings by " +
					"their labels (`node.kubernetes.io/instance-type`, `karpenter.k8s.aws/instance-family`, `karpenter.sh/capacity-type`, " +
					"`topology.kubernetes.io/zone`, …), the pool (`karpenter.sh/nodepool`) or the pool's `template.labels`.",
				Validators: []validator.List{listvalidator.SizeBetween(1, requirements.MaxRequirements)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":      schema.StringAttribute{Required: true, MarkdownDescription: "Label key."},
					"operator": schema.StringAttribute{Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`."},
					"values":   schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Values (one integer for Gt/Lt/Gte/Lte)."},
				}},
			},
			"price": optStr("`price`: the hourly price (USD) of every selected offering, e.g. `\"0.25\"`. Not with `price_adjustment`."),
			"price_adjustment": optStr("`priceAdjustment`: a change of the selected offerings' prices: `\"+0.1\"` / `\"-0.1\"` (USD per hour), " +
				"`\"+10%\"`, or `\"-10%\"` (down to `\"-100%\"`); never below 0. Not with `price`."),
			"capacity": optMap("`capacity`: extended resources the selected types' nodes get, e.g. `{ \"example.com/device\" = \"2\" }`. " +
				"Not `cpu`, `memory`, `ephemeral-storage` or `pods`."),
			"weight": schema.Int64Attribute{Optional: true, MarkdownDescription: "`weight`, 1-10000: heavier overlays apply first (unset weighs 0).",
				Validators: []validator.Int64{int64validator.Between(nodeoverlay.MinWeight, nodeoverlay.MaxWeight)}},
			"manifest": cStr("The NodeOverlay as YAML, admitted at plan against the CRD of the provider's `karpenter_version`."),
			"resolved": schema.ObjectAttribute{Computed: true, AttributeTypes: attrTypesOf(nodeoverlay.Config{}),
				MarkdownDescription: "The overlay as pools take it: `node_overlays = [karpenter_node_overlay.<name>.resolved, …]`."},
		},
	}
}

func (r *nodeOverlayResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func decodeOverlay(raw tftypes.Value, v *overlayValue, diags *diag.Diagnostics) bool {
	return decodeInto(raw, v, "node overlay", diags)
}

// ValidateConfig runs the overlay's rules as soon as the config is known.
func (r *nodeOverlayResource) ValidateConfig(_ context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var v overlayValue
	if !req.Config.Raw.IsFullyKnown() || !decodeOverlay(req.Config.Raw, &v, &resp.Diagnostics) {
		return
	}
	addFindings(&resp.Diagnostics, planner.ValidateOverlay(v.Config), nil)
}

// ModifyPlan plans the overlay (planner.Overlay): its manifest and its resolved value.
func (r *nodeOverlayResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() {
		return // destroy, or values known only at apply: the computed attributes stay unknown
	}
	var v overlayValue
	if !decodeOverlay(resp.Plan.Raw, &v, &resp.Diagnostics) || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	ports := planner.OverlayPorts{Admit: r.meta.admission(), Catalog: r.meta.Client.Catalog}
	res := planner.Overlay(ctx, ports, planner.OverlayInput{Config: v.Config, Metadata: v.Metadata, FeatureGates: r.meta.KarpenterFeatureGates})
	addFindings(&resp.Diagnostics, res.Errors, res.Warnings)
	if !resp.Diagnostics.HasError() {
		setRaw(&resp.Plan.Raw, overlayPlanned{ID: v.Name, Manifest: res.Manifest, Resolved: v.Config}, "node overlay", &resp.Diagnostics)
	}
}

// Create records the plan: a NodeOverlay is applied to the cluster by its manifest, not here.
func (r *nodeOverlayResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	resp.State.Raw = req.Plan.Raw
}

// Read keeps the recorded overlay.
func (r *nodeOverlayResource) Read(ctx context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
}

// Update records the plan.
func (r *nodeOverlayResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	resp.State.Raw = req.Plan.Raw
}

// Delete forgets the overlay; nothing outside the state holds it.
func (r *nodeOverlayResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
