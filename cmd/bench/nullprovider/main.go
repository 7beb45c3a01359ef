// Command nullprovider is the smallest provider built with the same framework: one resource,
// karpenter_null, whose plan only copies its input. make bench plans N of them beside
// terraform_data to measure what any plugin provider costs over Terraform's built-in floor
// (process starts, gRPC, value conversion). It is never shipped.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func main() {
	err := providerserver.Serve(context.Background(), func() provider.Provider { return nullProvider{} }, providerserver.ServeOpts{
		Address: "registry.terraform.io/nodeplane/karpenter",
	})
	if err != nil {
		log.Fatal(err)
	}
}

type nullProvider struct{}

func (nullProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "karpenter"
}
func (nullProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{}
}
func (nullProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (nullProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return nullResource{} }}
}
func (nullProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

type nullResource struct{}

type nullModel struct {
	ID    types.String `tfsdk:"id"`
	Name  types.String `tfsdk:"name"`
	Class types.String `tfsdk:"class"`
}

func (nullResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "karpenter_null"
}
func (nullResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"id":    schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name":  schema.StringAttribute{Required: true},
		"class": schema.StringAttribute{Optional: true},
	}}
}
func (nullResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m nullModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
func (nullResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}
func (nullResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m nullModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
func (nullResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
