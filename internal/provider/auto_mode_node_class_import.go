package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
)

// ImportState adopts a class by name: the state holds the name, and the next plan resolves the
// configuration's selectors and records them.
func (r *autoModeNodeClassResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	defer setIdentity(ctx, resp.Identity, &resp.State, &resp.Diagnostics)
	name := importID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, planner.ValidateClassImportID(name), nil)
	if resp.Diagnostics.HasError() {
		return
	}
	setRaw(&resp.State.Raw, struct {
		ID   string `tfsdk:"id"`
		Name string `tfsdk:"name"`
	}{name, name}, "Auto Mode node class", &resp.Diagnostics)
}
