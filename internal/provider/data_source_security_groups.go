package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
)

var (
	_ datasource.DataSourceWithConfigure      = (*securityGroupsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*securityGroupsDataSource)(nil)
)

type securityGroupsDataSource struct{ meta *Meta }

func newSecurityGroupsDataSource() datasource.DataSource { return &securityGroupsDataSource{} }

type securityGroupsInput struct {
	SelectorTerms []discovery.SecurityGroupTerm `tfsdk:"selector_terms"`
}

// securityGroupsResult is the attribute a read computes.
type securityGroupsResult struct {
	SecurityGroups []discovery.SecurityGroup `tfsdk:"security_groups"`
}

func (d *securityGroupsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_security_groups"
}

func (d *securityGroupsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Security groups selected the way Karpenter's `securityGroupSelectorTerms` select them, read live from EC2, sorted by id.",
		Attributes: map[string]schema.Attribute{
			"selector_terms": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: descSGTerms,
				Validators:          []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"tags": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: descTermTags},
					"id":   schema.StringAttribute{Optional: true, MarkdownDescription: "Security group id, `sg-…`."},
					"name": schema.StringAttribute{Optional: true, MarkdownDescription: "EC2 group name (`GroupName`, not the `Name` tag)."},
				}},
			},
			"security_groups": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Matching security groups, sorted by id.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":     schema.StringAttribute{Computed: true, MarkdownDescription: "Security group id."},
					"name":   schema.StringAttribute{Computed: true, MarkdownDescription: "EC2 group name."},
					"vpc_id": schema.StringAttribute{Computed: true, MarkdownDescription: "VPC id."},
					"tags":   schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Tags of the group."},
				}},
			},
		},
	}
}

func (d *securityGroupsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *securityGroupsDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var in securityGroupsInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) || !known(req.Config.Raw, "selector_terms") {
		return
	}
	errs := discovery.ValidateSecurityGroupTerms(in.SelectorTerms)
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), errs, "Invalid security group selector term", false)
}

func (d *securityGroupsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var in securityGroupsInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) {
		return
	}
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), discovery.ValidateSecurityGroupTerms(in.SelectorTerms), "Invalid security group selector term", false)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}

	groups, err := discovery.ResolveSecurityGroups(ctx, d.meta.Client.Discovery(), in.SelectorTerms)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read security groups from EC2", err.Error())
		return
	}
	if len(groups) == 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("selector_terms"), "No security group matched",
			fmt.Sprintf("None of the %d selector terms matched a security group in %s. A node class with these terms could not launch nodes.",
				len(in.SelectorTerms), d.meta.Client.Region))
	}
	out := securityGroupsResult{SecurityGroups: make([]discovery.SecurityGroup, len(groups))}
	for i, g := range groups {
		g.Tags = nonNilMap(g.Tags)
		out.SecurityGroups[i] = g
	}
	resp.State.Raw = req.Config.Raw
	setRaw(&resp.State.Raw, out, "data source's state", &resp.Diagnostics)
}
