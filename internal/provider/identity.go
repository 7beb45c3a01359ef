package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

// Resource identity (Terraform >= 1.12): an EC2NodeClass or NodePool is the object of its name
// in the provider's cluster, so the name is the whole identity; import blocks may name it with
// `identity = { name = "…" }` instead of `id`.

// nameIdentitySchema is the identity of a resource named by its Kubernetes object's name.
func nameIdentitySchema(kind string) identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name": identityschema.StringAttribute{RequiredForImport: true, Description: "metadata.name of the " + kind + "."},
	}}
}

// setIdentity records the identity of a saved state: the name it holds. A response that saves no
// state records none.
func setIdentity(ctx context.Context, id *tfsdk.ResourceIdentity, state *tfsdk.State, diags *diag.Diagnostics) {
	if id == nil || state == nil || state.Raw.IsNull() || diags.HasError() {
		return
	}
	if name := decoded[string](tfvalue.Attributes(state.Raw)["name"]); name != "" {
		diags.Append(id.SetAttribute(ctx, path.Root("name"), name)...)
	}
}

// importID is what an import names: its id, or the name of an import by identity.
func importID(ctx context.Context, req resource.ImportStateRequest, diags *diag.Diagnostics) string {
	if req.ID != "" || req.Identity == nil {
		return req.ID
	}
	var name types.String
	diags.Append(req.Identity.GetAttribute(ctx, path.Root("name"), &name)...)
	return name.ValueString()
}
