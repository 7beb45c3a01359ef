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

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
	"github.com/nodeplane/terraform-provider-karpenter/internal/tfvalue"
)

var (
	_ datasource.DataSourceWithConfigure      = (*instanceTypesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*instanceTypesDataSource)(nil)
)

type instanceTypesDataSource struct{ meta *Meta }

func newInstanceTypesDataSource() datasource.DataSource { return &instanceTypesDataSource{} }

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
	if q, ok := instanceTypesQuery(req.Config.Raw, &resp.Diagnostics); ok {
		addFindings(&resp.Diagnostics, q.Check(), nil)
	}
}

func (d *instanceTypesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if q, ok := instanceTypesQuery(req.Config.Raw, &resp.Diagnostics); ok && requireMeta(d.meta, &resp.Diagnostics) {
		out, errs, warnings := launchplan.ReadInstanceTypes(ctx, d.meta.Client, d.meta.Client.Region, q)
		answer(resp, req.Config.Raw, out, errs, warnings)
	}
}

// instanceTypesQuery decodes the configuration and marks what is not known yet.
func instanceTypesQuery(config tftypes.Value, diags *diag.Diagnostics) (launchplan.InstanceTypesQuery, bool) {
	var q launchplan.InstanceTypesQuery
	ok := decodeInto(config, &q, "configuration", diags)
	attrs := tfvalue.Attributes(config)
	q.UnknownRequirements, q.UnknownZones = unknownElems(attrs["requirements"]), unknownElems(attrs["zones"])
	q.NetworkInterfacesUnknown = !known(config, "network_interfaces")
	return q, ok
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
