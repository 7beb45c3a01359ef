package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ datasource.DataSourceWithConfigure      = (*instanceTypesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*instanceTypesDataSource)(nil)
)

type instanceTypesDataSource struct{ meta *Meta }

func newInstanceTypesDataSource() datasource.DataSource { return &instanceTypesDataSource{} }

type instanceTypesInput struct {
	Requirements []requirements.Requirement `tfsdk:"requirements"`
	Zones        []string                   `tfsdk:"zones"`
	capacity.Input
}

// instanceTypesResult are the attributes a read computes.
type instanceTypesResult struct {
	AMIFamily     string               `tfsdk:"ami_family"`
	InstanceTypes []catalog.TypeOutput `tfsdk:"instance_types"`
	Names         []string             `tfsdk:"names"`
	Prices        string               `tfsdk:"prices"`
}

func (d *instanceTypesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_types"
}

func (d *instanceTypesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"requirements": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "NodePool `requirements`, ANDed, with Karpenter's semantics: requirements on instance-type labels " +
				"(`node.kubernetes.io/instance-type`, `kubernetes.io/arch`, `karpenter.k8s.aws/instance-*`, ...) narrow the " +
				"types; `topology.kubernetes.io/zone`, `karpenter.sh/capacity-type` and `karpenter.k8s.aws/instance-tenancy` " +
				"are matched per offering; requirements on other keys (custom node labels) do not narrow types. A type " +
				"without a label (no GPU, unknown bandwidth) fails `In`, `Exists` and the numeric operators and passes " +
				"`NotIn` and `DoesNotExist`. Unset: every type Karpenter can launch in the region.",
			Validators: []validator.List{listvalidator.SizeAtMost(requirements.MaxRequirements)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key": schema.StringAttribute{Required: true, MarkdownDescription: "Label key, e.g. `karpenter.k8s.aws/instance-family`."},
				"operator": schema.StringAttribute{Required: true,
					MarkdownDescription: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`."},
				"values": schema.ListAttribute{Optional: true, ElementType: types.StringType,
					MarkdownDescription: "Values: one or more for `In`; none for `Exists`/`DoesNotExist`; exactly one integer >= 0 for `Gt`, `Lt`, `Gte`, `Lte`."},
				"min_values": schema.Int64Attribute{Optional: true,
					MarkdownDescription: "`minValues`, 1 to 50: the matching types must carry at least this many distinct values of `key`; " +
						"otherwise the read fails naming the key."},
			}},
		},
		"zones": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Availability zones, e.g. the zones of the node class's subnets: only types offered in at least one " +
				"of them are listed, and each type's `zones` is limited to them. A zone the region does not have is an error.",
		},
		"instance_types": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The matching instance types, sorted by name, with their pod capacity under the CNI inputs.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":         schema.StringAttribute{Computed: true, MarkdownDescription: "Instance type name."},
				"vcpu":         computedInt("Default vCPUs."),
				"memory_mib":   computedInt("Memory in MiB."),
				"architecture": schema.StringAttribute{Computed: true, MarkdownDescription: "`kubernetes.io/arch`: `amd64` or `arm64`."},
				"hypervisor":   schema.StringAttribute{Computed: true, MarkdownDescription: "`nitro`, `xen`, or empty for bare metal."},
				"zones": schema.ListAttribute{Computed: true, ElementType: types.StringType,
					MarkdownDescription: "Zones with an offering that satisfies the requirements (within `zones` when set), sorted."},
				"max_enis":      computedInt("ENIs across all network cards (`MaximumNetworkInterfaces`)."),
				"ipv4_per_eni":  computedInt("IPv4 addresses per ENI."),
				"efa_supported": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the type supports EFA."},
				"network_cards": computedInt("Number of network cards."),
				"labels": schema.MapAttribute{Computed: true, ElementType: types.StringType,
					MarkdownDescription: "Karpenter's well-known labels for the type (instance type, arch, os, region, " +
						"`karpenter.k8s.aws/instance-*`)."},
				"eni_limited_pods": computedInt("Karpenter's ENI-limited pod count with `reserved_enis` and `network_interfaces`."),
				"max_pods":         computedInt("Pods the kubelet runs with under the CNI inputs (see `karpenter_pod_capacity`)."),
				"on_demand_price": schema.Float64Attribute{Computed: true, MarkdownDescription: "On-demand price per hour (USD) in the region, " +
					"from the AWS Pricing API or, when it cannot be read, Karpenter's embedded table (see `prices`); null when unknown."},
				"spot_price": schema.Float64Attribute{Computed: true, MarkdownDescription: "Lowest spot price per hour (USD) over the type's `zones`, " +
					"from EC2's spot price history (the newest per zone); null when there is none. When spot prices cannot be read, the " +
					"on-demand price, as Karpenter assumes."},
			}},
		},
		"prices": schema.StringAttribute{Computed: true, MarkdownDescription: "Where the prices come from: the AWS Pricing API and EC2's " +
			"spot price history, or Karpenter's embedded on-demand table (its version and date) when the Pricing API cannot be read."},
		"names": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Names of `instance_types`, sorted, e.g. for a NodePool `node.kubernetes.io/instance-type` requirement."},
	}
	maps.Copy(attrs, cniSettingsAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: "The region's EC2 instance types that a NodePool's `requirements` allow, with Karpenter's labels and " +
			"each type's pod capacity under the node class's VPC CNI settings. Types Karpenter never launches (non-HVM, or " +
			"neither x86_64 nor arm64, such as Mac) are left out. Instance data is read once per provider run.",
		Attributes: attrs,
	}
}

func (d *instanceTypesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *instanceTypesDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var in instanceTypesInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) {
		return
	}
	validateQuery(in, req.Config.Raw, &resp.Diagnostics)
}

// validateQuery reports the problems of the requirements (on requirements[i].<field>), the
// zones (on zones[i]) and the CNI inputs, leaving out what is not known yet, and returns the
// CNI settings.
func validateQuery(in instanceTypesInput, config tftypes.Value, diags *diag.Diagnostics) capacity.Settings {
	attrs := tfvalue.Attributes(config)
	addFindings(diags, attrpath.Of("requirements"), requirements.ValidateKnown(in.Requirements, unknownElems(attrs["requirements"])),
		"Invalid requirement", false)
	addFindings(diags, attrpath.Path{}, catalog.CheckZoneNames(in.Zones, unknownElems(attrs["zones"])), "", false)
	s := cniSettings(in.Input, config)
	addFindings(diags, attrpath.Path{}, capacity.InputFindings(s), "", false)
	return s
}

// unknownElems are the indexes of a list's elements with a value not known yet (nil for a
// null or unknown list).
func unknownElems(list tftypes.Value) map[int]bool {
	var elems []tftypes.Value
	if !list.IsKnown() || list.IsNull() || list.As(&elems) != nil {
		return nil
	}
	unknown := map[int]bool{}
	for i, e := range elems {
		if !e.IsFullyKnown() {
			unknown[i] = true
		}
	}
	return unknown
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var in instanceTypesInput
	if !decodeInto(req.Config.Raw, &in, "configuration", &resp.Diagnostics) {
		return
	}
	s := validateQuery(in, req.Config.Raw, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}
	cat, err := d.meta.Client.Catalog(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read EC2 instance types", err.Error())
		return
	}
	listing := cat.List(catalog.ListQuery{Requirements: in.Requirements, Zones: in.Zones, Region: d.meta.Client.Region, Settings: s,
		WindowsBuild: launchplan.WindowsBuild(s.AMIFamily)})
	if addFindings(&resp.Diagnostics, attrpath.Path{}, listing.Errors, "", false); resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, attrpath.Path{}, listing.Warnings, "", true)

	prices := d.meta.Client.Prices(ctx)
	out := instanceTypesResult{AMIFamily: capacity.ResolveFamily(s.AMIFamily), Prices: launchplan.PriceSource(prices),
		InstanceTypes: make([]catalog.TypeOutput, 0, len(listing.Types)), Names: make([]string, 0, len(listing.Types))}
	for _, t := range listing.Types {
		o := t.Output()
		o.OnDemandPrice = priceOrNil(prices.CheapestIn(t.Type.Name, pricing.OnDemand, t.Zones))
		o.SpotPrice = priceOrNil(prices.CheapestIn(t.Type.Name, pricing.Spot, t.Zones))
		out.InstanceTypes = append(out.InstanceTypes, o)
		out.Names = append(out.Names, t.Type.Name)
	}
	resp.State.Raw = req.Config.Raw
	setRaw(&resp.State.Raw, out, "data source's state", &resp.Diagnostics)
}

// priceOrNil is a price, or nil (null) when there is none.
func priceOrNil(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}
