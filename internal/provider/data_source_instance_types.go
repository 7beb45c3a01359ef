package provider

import (
	"context"
	"errors"
	"fmt"
	"github.com/nodeplane/terraform-provider-karpenter/internal/attrpath"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

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
	validateCNISettings(data.settings(ctx, &resp.Diagnostics), &resp.Diagnostics)
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
	var known []attrpath.Finding // a requirement with unknown values is checked when they are known
	for _, f := range requirements.Validate(reqs) {
		if !unknown[f.Path.Steps()[0].Index] {
			known = append(known, f)
		}
	}
	addFindings(diags, attrpath.Of("requirements"), known, "Invalid requirement", false)
	return reqs
}

// knownZones are the zones the data source names, each an error unless the catalog offers
// types there.
func knownZones(ctx context.Context, cat *catalog.Catalog, region string, list types.List, diags *diag.Diagnostics) []string {
	var zones []string
	for i, z := range zonesFrom(ctx, list, diags) {
		if !cat.HasZone(z.ValueString()) {
			diags.AddAttributeError(path.Root("zones").AtListIndex(i), "Unknown availability zone",
				fmt.Sprintf("%q is not an availability zone of %s with instance type offerings. The region's zones are: %s.",
					z.ValueString(), region, strings.Join(cat.Zones(), ", ")))
		}
		zones = append(zones, z.ValueString())
	}
	return zones
}

func zonesFrom(ctx context.Context, list types.List, diags *diag.Diagnostics) []types.String {
	if list.IsNull() || list.IsUnknown() {
		return nil
	}
	var zones []types.String
	diags.Append(list.ElementsAs(ctx, &zones, true)...)
	return zones
}

func validateZoneList(ctx context.Context, list types.List, diags *diag.Diagnostics) {
	seen := map[string]bool{}
	for i, z := range zonesFrom(ctx, list, diags) {
		if z.IsUnknown() {
			continue
		}
		p := path.Root("zones").AtListIndex(i)
		switch v := z.ValueString(); {
		case z.IsNull() || strings.TrimSpace(v) == "":
			diags.AddAttributeError(p, "Invalid zone", "zone names must not be empty")
		case seen[v]:
			diags.AddAttributeError(p, "Duplicate zone", fmt.Sprintf("zone %q is listed twice", v))
		default:
			seen[v] = true
		}
	}
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data instanceTypesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	reqs := validateRequirementList(ctx, data.Requirements, &resp.Diagnostics)
	validateZoneList(ctx, data.Zones, &resp.Diagnostics)
	s := data.settings(ctx, &resp.Diagnostics)
	validateCNISettings(s, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !requireMeta(d.meta, &resp.Diagnostics) {
		return
	}
	cat, err := d.meta.Client.Catalog(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read EC2 instance types", err.Error())
		return
	}
	region := d.meta.Client.Region
	zones := knownZones(ctx, cat, region, data.Zones, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	family := capacity.ResolveFamily(s.AMIFamily)
	opts := catalog.SelectOptions{Region: region, Zones: zones}
	if capacity.IsWindows(family) {
		opts.OS, opts.WindowsBuild = "windows", launchplan.WindowsBuild(family)
	}
	sel, err := cat.Select(reqs, opts)
	var mv *requirements.MinValuesError
	if errors.As(err, &mv) {
		resp.Diagnostics.AddAttributeError(path.Root("requirements").AtListIndex(mv.Index).AtName("min_values"),
			"min_values not satisfied",
			fmt.Sprintf("The matching instance types offer %d distinct value(s) of %q but min_values is %d. "+
				"Loosen the other requirements or lower min_values.", mv.Got, mv.Key, mv.Want))
		return
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot evaluate requirements", err.Error())
		return
	}
	for _, i := range sel.Ignored {
		if key := reqs[i].Key; isWellKnownDomain(key) {
			resp.Diagnostics.AddAttributeWarning(path.Root("requirements").AtListIndex(i).AtName("key"),
				"Requirement not evaluated",
				fmt.Sprintf("%q is not an instance-type label this data source evaluates (it needs node class or launch "+
					"state, such as subnets or placement groups), so it does not narrow the list. Karpenter still applies it.", key))
		}
	}

	data.resolveAMIFamily()
	prices := d.meta.Client.Prices(ctx)
	data.Prices = types.StringValue(launchplan.PriceSource(prices))
	data.InstanceTypes = make([]itTypeModel, 0, len(sel.Types))
	data.Names = make([]types.String, 0, len(sel.Types))
	dropped := map[string][]string{}
	for _, st := range sel.Types {
		r, err := capacity.Compute(catalog.ToNetwork(st.Type), s)
		if err != nil {
			reason := cniComputeReason(err)
			dropped[reason] = append(dropped[reason], st.Type.Name)
			continue
		}
		m := instanceTypeModelOf(st, r)
		m.OnDemandPrice, m.SpotPrice = priceValue(prices.CheapestIn(st.Type.Name, pricing.OnDemand, st.Zones)),
			priceValue(prices.CheapestIn(st.Type.Name, pricing.Spot, st.Zones))
		data.InstanceTypes = append(data.InstanceTypes, m)
		data.Names = append(data.Names, types.StringValue(st.Type.Name))
	}
	if len(dropped) > 0 {
		resp.Diagnostics.AddWarning(droppedSummary(dropped), droppedDetail(dropped))
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

func droppedSummary(dropped map[string][]string) string {
	n := 0
	for _, names := range dropped {
		n += len(names)
	}
	if n == 1 {
		return "1 instance type left out: no pod capacity under these settings"
	}
	return fmt.Sprintf("%d instance types left out: no pod capacity under these settings", n)
}

func droppedDetail(dropped map[string][]string) string {
	reasons := slices.Collect(maps.Keys(dropped))
	sort.Strings(reasons)
	var b strings.Builder
	b.WriteString("These types match the requirements but their pod capacity cannot be computed with these CNI inputs, " +
		"so they are not listed:\n")
	for _, reason := range reasons {
		names := dropped[reason]
		shown := names[:min(len(names), 8)]
		more := ""
		if len(names) > len(shown) {
			more = fmt.Sprintf(", ... (%d more)", len(names)-len(shown))
		}
		fmt.Fprintf(&b, "- %d: %s (%s%s)\n", len(names), reason, strings.Join(shown, ", "), more)
	}
	return strings.TrimRight(b.String(), "\n")
}

// isWellKnownDomain reports whether key belongs to a Kubernetes, Karpenter or AWS label domain,
// where an unevaluated requirement is worth a warning (custom labels are silently passed).
func isWellKnownDomain(key string) bool {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	for _, d := range []string{"kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws", "k8s.aws"} {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}
