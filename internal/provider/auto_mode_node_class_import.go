package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/automode"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// autoModeImported are the attributes an import records besides the configuration.
type autoModeImported struct {
	ID   string `tfsdk:"id"`
	Name string `tfsdk:"name"`
}

// ImportState adopts a class by name: with the provider's kubernetes access, the live NodeClass
// as the configuration, planned as ModifyPlan plans it, so that `-generate-config-out` writes it
// and the next plan of that configuration is clean. Without that access the state holds the
// name, and the next plan resolves the configuration's selectors and records them.
func (r *autoModeNodeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	name := importID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, planner.ValidateAutoModeImportID(name), nil)
	if resp.Diagnostics.HasError() || !requireMeta(r.meta, &resp.Diagnostics) {
		return
	}
	r.adopt(ctx, name, &resp.State.Raw, &resp.Diagnostics)
}

// adopt writes the class named name into raw, a null value of the resource's type: an import's
// state, or a listed class's value (planner.ImportAutoModeClass).
func (r *autoModeNodeClassResource) adopt(ctx context.Context, name string, raw *tftypes.Value, diags *diag.Diagnostics) {
	var read planner.LiveObject
	if r.meta.Kube != nil {
		read = r.meta.Kube.Object
	}
	got, errs, warnings := planner.ImportAutoModeClass(ctx, read, name)
	if addFindings(diags, errs, warnings); len(errs) > 0 {
		return
	}
	if got == nil { // no cluster access: the name only
		setRaw(raw, autoModeImported{name, name}, "Auto Mode node class", diags)
		return
	}
	r.planAdopted(ctx, got.Config, raw, diags)
}

// planAdopted writes a class read from the cluster into raw (a null value of the resource's
// type) as a user writes it (configValue), planned by ModifyPlan as the plan of a new class;
// what only an apply would learn is null.
func (r *autoModeNodeClassResource) planAdopted(ctx context.Context, cfg automode.Config, raw *tftypes.Value, diags *diag.Diagnostics) {
	v := *raw
	setRaw(&v, cfg, "Auto Mode node class", diags)
	v = configValue(v)
	setRaw(&v, autoModeImported{cfg.Name, cfg.Name}, "Auto Mode node class", diags)
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
