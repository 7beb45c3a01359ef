package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/pricing"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

var (
	_ datasource.DataSourceWithConfigure      = (*instanceTypesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*instanceTypesDataSource)(nil)
)

type instanceTypesDataSource struct{ meta *Meta }

func newInstanceTypesDataSource() datasource.DataSource { return &instanceTypesDataSource{} }

type instanceTypesModel struct {
	Requirements types.List `tfsdk:"requirements"`
	Zones        types.List `tfsdk:"zones"`
	cniSettingsModel

	InstanceTypes []itTypeModel  `tfsdk:"instance_types"`
	Names         []types.String `tfsdk:"names"`
	Prices        types.String   `tfsdk:"prices"`
}

type itRequirementModel struct {
	Key       types.String `tfsdk:"key"`
	Operator  types.String `tfsdk:"operator"`
	Values    types.List   `tfsdk:"values"`
	MinValues types.Int64  `tfsdk:"min_values"`
}

type itTypeModel struct {
	Name           types.String   `tfsdk:"name"`
	VCPU           types.Int64    `tfsdk:"vcpu"`
	MemoryMiB      types.Int64    `tfsdk:"memory_mib"`
	Architecture   types.String   `tfsdk:"architecture"`
	Hypervisor     types.String   `tfsdk:"hypervisor"`
	Zones          []types.String `tfsdk:"zones"`
	MaxENIs        types.Int64    `tfsdk:"max_enis"`
	IPv4PerENI     types.Int64    `tfsdk:"ipv4_per_eni"`
	EFASupported   types.Bool     `tfsdk:"efa_supported"`
	NetworkCards   types.Int64    `tfsdk:"network_cards"`
	Labels         types.Map      `tfsdk:"labels"`
	ENILimitedPods types.Int64    `tfsdk:"eni_limited_pods"`
	MaxPods        types.Int64    `tfsdk:"max_pods"`
	OnDemandPrice  types.Float64  `tfsdk:"on_demand_price"`
	SpotPrice      types.Float64  `tfsdk:"spot_price"`
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

func (d *instanceTypesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var data instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateRequirementList(ctx, data.Requirements, &resp.Diagnostics)
	validateZoneList(ctx, data.Zones, &resp.Diagnostics)
	addFindings(&resp.Diagnostics, attrpath.Path{}, capacity.InputFindings(data.settings(ctx, &resp.Diagnostics)), "", false)
}

// requirementsFrom converts the requirements list. unknown holds the indexes of entries with a
// value not known yet; those are not validated.
func requirementsFrom(ctx context.Context, list types.List, diags *diag.Diagnostics) (reqs []requirements.Requirement, unknown map[int]bool) {
	if list.IsNull() || list.IsUnknown() {
		return nil, nil
	}
	var models []itRequirementModel
	diags.Append(list.ElementsAs(ctx, &models, true)...)
	unknown = map[int]bool{}
	for i, m := range models {
		r := requirements.Requirement{Key: m.Key.ValueString(), Operator: requirements.Operator(m.Operator.ValueString())}
		if m.Key.IsUnknown() || m.Operator.IsUnknown() || m.Values.IsUnknown() || m.MinValues.IsUnknown() {
			unknown[i] = true
		}
		for _, v := range m.Values.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				unknown[i] = true
				continue
			}
			r.Values = append(r.Values, s.ValueString())
		}
		if !m.MinValues.IsNull() && !m.MinValues.IsUnknown() {
			mv := int(m.MinValues.ValueInt64())
			r.MinValues = &mv
		}
		reqs = append(reqs, r)
	}
	return reqs, unknown
}

// validateRequirementList reports requirements.Validate problems on requirements[i].<field>.
func validateRequirementList(ctx context.Context, list types.List, diags *diag.Diagnostics) []requirements.Requirement {
	reqs, unknown := requirementsFrom(ctx, list, diags)
	addFindings(diags, attrpath.Of("requirements"), requirements.ValidateKnown(reqs, unknown), "Invalid requirement", false)
	return reqs
}

// validateZoneList reports catalog.CheckZoneNames problems on zones[i] and returns the zones.
func validateZoneList(ctx context.Context, list types.List, diags *diag.Diagnostics) []string {
	if list.IsNull() || list.IsUnknown() {
		return nil
	}
	var elems []types.String
	diags.Append(list.ElementsAs(ctx, &elems, true)...)
	zones, unknown := make([]string, len(elems)), map[int]bool{}
	for i, z := range elems {
		zones[i], unknown[i] = z.ValueString(), z.IsUnknown()
	}
	addFindings(diags, attrpath.Path{}, catalog.CheckZoneNames(zones, unknown), "", false)
	return zones
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reqs := validateRequirementList(ctx, data.Requirements, &resp.Diagnostics)
	zones := validateZoneList(ctx, data.Zones, &resp.Diagnostics)
	s := data.settings(ctx, &resp.Diagnostics)
	addFindings(&resp.Diagnostics, attrpath.Path{}, capacity.InputFindings(s), "", false)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}
	cat, err := d.meta.Client.Catalog(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read EC2 instance types", err.Error())
		return
	}
	listing := cat.List(catalog.ListQuery{Requirements: reqs, Zones: zones, Region: d.meta.Client.Region, Settings: s,
		WindowsBuild: launchplan.WindowsBuild(s.AMIFamily)})
	if addFindings(&resp.Diagnostics, attrpath.Path{}, listing.Errors, "", false); resp.Diagnostics.HasError() {
		return
	}
	addFindings(&resp.Diagnostics, attrpath.Path{}, listing.Warnings, "", true)

	data.AMIFamily = types.StringValue(capacity.ResolveFamily(s.AMIFamily))
	prices := d.meta.Client.Prices(ctx)
	data.Prices = types.StringValue(launchplan.PriceSource(prices))
	data.InstanceTypes = make([]itTypeModel, 0, len(listing.Types))
	data.Names = make([]types.String, 0, len(listing.Types))
	for _, t := range listing.Types {
		m := instanceTypeModelOf(t.Selected, t.Capacity)
		m.OnDemandPrice, m.SpotPrice = priceValue(prices.CheapestIn(t.Type.Name, pricing.OnDemand, t.Zones)),
			priceValue(prices.CheapestIn(t.Type.Name, pricing.Spot, t.Zones))
		data.InstanceTypes = append(data.InstanceTypes, m)
		data.Names = append(data.Names, types.StringValue(t.Type.Name))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// priceValue is a price, or null when there is none.
func priceValue(v float64, ok bool) types.Float64 {
	if !ok {
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

func instanceTypeModelOf(st catalog.Selected, r capacity.Result) itTypeModel {
	it := st.Type
	labels := make(map[string]attr.Value, len(st.Labels))
	for k, v := range st.Labels {
		labels[k] = types.StringValue(v)
	}
	return itTypeModel{
		Name:           types.StringValue(it.Name),
		VCPU:           types.Int64Value(int64(it.VCPUs)),
		MemoryMiB:      types.Int64Value(int64(it.MemoryMiB)),
		Architecture:   types.StringValue(it.KubeArch()),
		Hypervisor:     types.StringValue(it.Hypervisor),
		Zones:          stringValues(st.Zones),
		MaxENIs:        types.Int64Value(int64(it.MaxENIs)),
		IPv4PerENI:     types.Int64Value(int64(it.IPv4PerENI)),
		EFASupported:   types.BoolValue(it.EFASupported),
		NetworkCards:   types.Int64Value(int64(len(it.NetworkCards))),
		Labels:         types.MapValueMust(types.StringType, labels),
		ENILimitedPods: types.Int64Value(int64(r.ENILimitedPods)),
		MaxPods:        types.Int64Value(int64(r.MaxPods)),
	}
}
