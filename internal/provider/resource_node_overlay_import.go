package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/adopt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/manifest"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// overlayImported are the attributes an import records besides the overlay's settings.
type overlayImported struct {
	ID       string                   `tfsdk:"id"`
	Name     string                   `tfsdk:"name"`
	Metadata *manifest.ObjectMetadata `tfsdk:"metadata"`
}

// ImportState adopts an overlay by name: with the provider's kubernetes access, the live
// NodeOverlay as the configuration (requirements, price or price_adjustment, capacity, weight and
// the object's labels and annotations), planned as ModifyPlan plans it, so that
// `-generate-config-out` writes it and the next plan of that configuration is clean. Without that
// access the state holds the name, and the next plan records the configuration.
func (r *nodeOverlayResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	name := importID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, planner.ValidateOverlayImportID(name), nil)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.adopt(ctx, name, &resp.State.Raw, &resp.Diagnostics)
}

// adopt writes the overlay named name into raw, a null value of the resource's type: an import's
// state, or a listed overlay's value (planner.ImportOverlay).
func (r *nodeOverlayResource) adopt(ctx context.Context, name string, raw *tftypes.Value, diags *diag.Diagnostics) {
	var read planner.LiveObject
	if r.meta.Kube != nil {
		read = r.meta.Kube.Object
	}
	got, errs, warnings := planner.ImportOverlay(ctx, read, name)
	if addFindings(diags, errs, warnings); len(errs) > 0 {
		return
	}
	if got == nil { // no cluster access: the name only
		setRaw(raw, overlayImported{ID: name, Name: name}, "node overlay", diags)
		return
	}
	r.planAdopted(ctx, *got, raw, diags)
}

// planAdopted writes an overlay read from the cluster into raw (a null value of the resource's
// type) as a user writes it (configValue), planned by ModifyPlan as the plan of a new overlay.
// The object's labels and annotations are written after configValue: an empty label value is a
// value, not an absent attribute.
func (r *nodeOverlayResource) planAdopted(ctx context.Context, o adopt.Overlay, raw *tftypes.Value, diags *diag.Diagnostics) {
	v := *raw
	setRaw(&v, o.Config, "node overlay", diags)
	v = configValue(v)
	setRaw(&v, overlayImported{ID: o.Config.Name, Name: o.Config.Name, Metadata: o.Metadata}, "node overlay", diags)
	if diags.HasError() {
		return
	}
	req := resource.ModifyPlanRequest{Config: tfsdk.Config{Raw: v}, Plan: tfsdk.Plan{Raw: v},
		State: tfsdk.State{Raw: tftypes.NewValue(v.Type(), nil)}}
	resp := resource.ModifyPlanResponse{Plan: tfsdk.Plan{Raw: v}}
	r.ModifyPlan(ctx, req, &resp)
	if diags.Append(resp.Diagnostics...); !diags.HasError() {
		*raw = knownOrNull(resp.Plan.Raw)
	}
}
