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
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ datasource.DataSourceWithConfigure      = (*subnetsDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*subnetsDataSource)(nil)
)

type subnetsDataSource struct{ meta *Meta }

func newSubnetsDataSource() datasource.DataSource { return &subnetsDataSource{} }

type subnetsInput struct {
	SelectorTerms []discovery.SubnetTerm `tfsdk:"selector_terms"`
}

// subnetsResult are the attributes a read computes.
type subnetsResult struct {
	Subnets []subnetValue `tfsdk:"subnets"`
	Zones   []string      `tfsdk:"zones"`
}

// subnetValue is one `subnets` entry: the subnet with its Name tag (null without one).
type subnetValue struct {
	discovery.Subnet
	Name *string `tfsdk:"name"`
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

func (d *subnetsDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var in subnetsInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) || !known(req.Config.Raw, "selector_terms") {
		return
	}
	errs := discovery.ValidateSubnetTerms(in.SelectorTerms)
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), errs, "Invalid subnet selector term", false)
}

func (d *subnetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var in subnetsInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) {
		return
	}
	addFindings(&resp.Diagnostics, attrpath.Of("selector_terms"), discovery.ValidateSubnetTerms(in.SelectorTerms), "Invalid subnet selector term", false)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}

	subnets, err := discovery.ResolveSubnets(ctx, d.meta.Client.Discovery(), in.SelectorTerms)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read subnets from EC2", err.Error())
		return
	}
	if len(subnets) == 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("selector_terms"), "No subnet matched",
			fmt.Sprintf("None of the %d selector terms matched a subnet in %s. A node class with these terms could not launch nodes.",
				len(in.SelectorTerms), d.meta.Client.Region))
	}

	out := subnetsResult{Subnets: make([]subnetValue, len(subnets)), Zones: nonNil(discovery.Zones(subnets))}
	for i, s := range subnets {
		s.Tags = nonNilMap(s.Tags)
		out.Subnets[i] = subnetValue{Subnet: s, Name: emptyNil(s.Name())}
	}
	// The node class's findings for the same subnets (public, more than one per zone).
	addFindings(&resp.Diagnostics, attrpath.Path{}, nodeclass.SubnetFindings(attrpath.Of("selector_terms"), subnets), "Subnet selector finding", true)
	resp.State.Raw = req.Config.Raw
	setRaw(&resp.State.Raw, out, "data source's state", &resp.Diagnostics)
}

func requireMeta(m *Meta, diags interface{ AddError(string, string) }) bool {
	if m == nil || m.Client == nil {
		diags.AddError("Provider not configured", "The karpenter provider was not configured before use; this is a bug or an earlier configuration error.")
		return false
	}
	return true
}

// known reports whether a configuration's attribute is fully known.
func known(config tftypes.Value, name string) bool {
	return tfvalue.Attributes(config)[name].IsFullyKnown()
}

// nonNilMap is m, or an empty map for nil: a computed map that is empty, not null.
func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
