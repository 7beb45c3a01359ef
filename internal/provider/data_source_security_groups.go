package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

var (
	_ datasource.DataSourceWithConfigure      = (*securityGroupsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*securityGroupsDataSource)(nil)
)

type securityGroupsDataSource struct{ meta *Meta }

func newSecurityGroupsDataSource() datasource.DataSource { return &securityGroupsDataSource{} }

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
	var q nodeclass.SecurityGroupsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && known(req.Config.Raw, "selector_terms") {
		addFindings(&resp.Diagnostics, q.Check(), nil)
	}
}

func (d *securityGroupsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var q nodeclass.SecurityGroupsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && requireMeta(d.meta, &resp.Diagnostics) {
		out, errs, warnings := nodeclass.ReadSecurityGroups(ctx, d.meta.Client.Discovery(), d.meta.Client.Region, q)
		answer(resp, req.Config.Raw, out, errs, warnings)
	}
}
