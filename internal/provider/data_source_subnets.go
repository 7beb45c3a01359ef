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
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

var (
	_ datasource.DataSourceWithConfigure      = (*subnetsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*subnetsDataSource)(nil)
)

type subnetsDataSource struct{ meta *Meta }

func newSubnetsDataSource() datasource.DataSource { return &subnetsDataSource{} }

type subnetsModel struct {
	SelectorTerms []subnetTermModel `tfsdk:"selector_terms"`
	Subnets       []subnetModel     `tfsdk:"subnets"`
	Zones         []types.String    `tfsdk:"zones"`
}

type subnetModel struct {
	ID                      types.String `tfsdk:"id"`
	VPCID                   types.String `tfsdk:"vpc_id"`
	Zone                    types.String `tfsdk:"zone"`
	ZoneID                  types.String `tfsdk:"zone_id"`
	CIDRBlock               types.String `tfsdk:"cidr_block"`
	AvailableIPAddressCount types.Int64  `tfsdk:"available_ip_address_count"`
	Tags                    types.Map    `tfsdk:"tags"`
	Name                    types.String `tfsdk:"name"`
	MapPublicIPOnLaunch     types.Bool   `tfsdk:"map_public_ip_on_launch"`
	DefaultForAZ            types.Bool   `tfsdk:"default_for_az"`
}

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

func (d *subnetsDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var subnetTerms []subnetTermModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("selector_terms"), &subnetTerms)...)
	terms := asSelectorTerms(subnetTerms)
	if resp.Diagnostics.HasError() || !termsKnown(terms) {
		return
	}
	errs := discovery.ValidateSubnetTerms(subnetTermsFrom(terms))
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), errs, "Invalid subnet selector term", false)
}

func (d *subnetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data subnetsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dterms := subnetTermsFrom(asSelectorTerms(data.SelectorTerms))
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), discovery.ValidateSubnetTerms(dterms), "Invalid subnet selector term", false)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}

	subnets, err := discovery.ResolveSubnets(ctx, d.meta.Client.Discovery(), dterms)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read subnets from EC2", err.Error())
		return
	}
	if len(subnets) == 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("selector_terms"), "No subnet matched",
			fmt.Sprintf("None of the %d selector terms matched a subnet in %s. A node class with these terms could not launch nodes.",
				len(dterms), d.meta.Client.Region))
	}

	data.Subnets = make([]subnetModel, len(subnets))
	for i, s := range subnets {
		data.Subnets[i] = subnetModel{
			ID: types.StringValue(s.ID), VPCID: types.StringValue(s.VPCID), Zone: types.StringValue(s.Zone),
			ZoneID: types.StringValue(s.ZoneID), CIDRBlock: types.StringValue(s.CIDRBlock),
			AvailableIPAddressCount: types.Int64Value(int64(s.AvailableIPAddressCount)), Tags: stringMapValue(s.Tags),
			Name: types.StringPointerValue(emptyNil(s.Name())), MapPublicIPOnLaunch: types.BoolValue(s.MapPublicIPOnLaunch),
			DefaultForAZ: types.BoolValue(s.DefaultForAZ),
		}
	}
	// The node class's findings for the same subnets (public, more than one per zone).
	addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.SubnetFindings(attrpath.Of("selector_terms"), subnets), "Subnet selector finding", true)
	data.Zones = stringValues(discovery.Zones(subnets))
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

func requireMeta(m *Meta, diags interface{ AddError(string, string) }) bool {
	if m == nil || m.Client == nil {
		diags.AddError("Provider not configured", "The karpenter provider was not configured before use; this is a bug or an earlier configuration error.")
		return false
	}
	return true
}

func stringValues(in []string) []types.String {
	out := make([]types.String, len(in))
	for i, s := range in {
		out[i] = types.StringValue(s)
	}
	return out
}
