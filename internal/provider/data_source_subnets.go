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
	_ datasource.DataSourceWithConfigure      = (*subnetsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*subnetsDataSource)(nil)
)

type subnetsDataSource struct{ meta *Meta }

func newSubnetsDataSource() datasource.DataSource { return &subnetsDataSource{} }

func (d *subnetsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_subnets"
}

func (d *subnetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Subnets selected the way Karpenter's `subnetSelectorTerms` select them, read live from EC2, " +
			"in Karpenter's status order (most free IPs first, then id).",
		Attributes: map[string]schema.Attribute{
			"selector_terms": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: descSubnetTerms,
				Validators:          []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"tags": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: descTermTags},
					"id":   schema.StringAttribute{Optional: true, MarkdownDescription: "Subnet id, `subnet-…`. All id terms are merged into one lookup."},
				}},
			},
			"subnets": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Matching subnets, most available IPv4 addresses first, then by id.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                         schema.StringAttribute{Computed: true, MarkdownDescription: "Subnet id."},
					"vpc_id":                     schema.StringAttribute{Computed: true, MarkdownDescription: "VPC id."},
					"zone":                       schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone name."},
					"zone_id":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone id (stable across accounts)."},
					"cidr_block":                 schema.StringAttribute{Computed: true, MarkdownDescription: "IPv4 CIDR block."},
					"available_ip_address_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free IPv4 addresses."},
					"tags":                       schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Tags of the subnet."},
					"name":                       schema.StringAttribute{Computed: true, MarkdownDescription: "The `Name` tag (null without one)."},
					"map_public_ip_on_launch":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Instances launched here get a public IPv4 address."},
					"default_for_az":             schema.BoolAttribute{Computed: true, MarkdownDescription: "The zone's default subnet (of a default VPC)."},
				}},
			},
			"zones": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Distinct availability zones of the matching subnets, sorted.",
			},
		},
	}
}

func (d *subnetsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *subnetsDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var q nodeclass.SubnetsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && known(req.Config.Raw, "selector_terms") {
		addFindings(&resp.Diagnostics, q.Check(), nil)
	}
}

func (d *subnetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var q nodeclass.SubnetsQuery
	if decodeInto(req.Config.Raw, &q, "configuration", &resp.Diagnostics) && requireMeta(d.meta, &resp.Diagnostics) {
		out, errs, warnings := nodeclass.ReadSubnets(ctx, d.meta.Client.Discovery(), d.meta.Client.Region, q)
		answer(resp, req.Config.Raw, out, errs, warnings)
	}
}
