package provider

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/nodeplane/terraform-provider-karpenter/internal/catalog"
)

var (
	_ datasource.DataSourceWithConfigure      = (*podCapacityDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*podCapacityDataSource)(nil)
)

type podCapacityDataSource struct{ meta *Meta }

func newPodCapacityDataSource() datasource.DataSource { return &podCapacityDataSource{} }

func (d *podCapacityDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_pod_capacity"
}

func (d *podCapacityDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"instance_type": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "EC2 instance type, e.g. `m5.large`. It must exist in the provider's region.",
		},
		"eni_limited_pods": computedInt("Karpenter's ENI-limited pod count: default-card ENIs minus `reserved_enis` and " +
			"card-0 `efa-only` interfaces, times (IPv4 per ENI - 1), plus 2. With no reservations this is the `eni-max-pods.txt` value."),
		"max_pods": computedInt("Pods the kubelet runs with under these settings: `kubelet_max_pods` when set, else the ENI " +
			"formula with the CNI's own reservations and prefix delegation (EKS calculator caps), then `kubelet_pods_per_core`."),
		"karpenter_assumed_pods": computedInt("Pods Karpenter schedules against (its `pods` capacity). It knows only " +
			"`reserved_enis`, `kubelet_max_pods` and `kubelet_pods_per_core`."),
		"consistent": schema.BoolAttribute{Computed: true,
			MarkdownDescription: "Whether `karpenter_assumed_pods` equals `max_pods`. When false Karpenter packs more (or fewer) pods " +
				"than the node accepts; `reason` says what to set."},
		"reason": schema.StringAttribute{Computed: true,
			MarkdownDescription: "Why the two counts differ and the setting that makes them agree; empty when `consistent`."},
		"usable_enis":     computedInt("Default-card ENIs that carry pod IPs."),
		"ipv4_per_eni":    computedInt("IPv4 addresses per ENI (`Ipv4AddressesPerInterface`)."),
		"pod_ips_per_eni": computedInt("Pod addresses one ENI provides: IPv4 per ENI - 1, times 16 with prefix delegation."),
		"efa_interfaces": computedInt("`vpc.amazonaws.com/efa`: the number of `efa-only` entries when `network_interfaces` " +
			"is set, else the type's maximum EFA interfaces (0 without EFA)."),
		"pod_eni": computedInt("`vpc.amazonaws.com/pod-eni`: `branch_interfaces` when set, else null (unknown)."),
		"vpc_ips_at_max_pods": computedInt("IPv4 addresses a node at `max_pods` takes from its node subnet (whole ENIs " +
			"with secondary IPs; primary IPs plus /28 prefixes with prefix delegation)."),
		"pod_subnet_ips_at_max_pods": computedInt("IPv4 addresses a node at `max_pods` takes from the ENIConfig pod subnet " +
			"(custom networking only, else 0)."),
		"formula": schema.StringAttribute{Computed: true, MarkdownDescription: "One line showing how `max_pods` was computed."},
		"warnings": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Caveats of this configuration (also shown as warnings in the plan)."},
	}
	maps.Copy(attrs, cniSettingsAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: "Pod capacity of one instance type under a node class's VPC CNI and kubelet settings: " +
			"what Karpenter assumes, what the kubelet really runs, whether they agree, and the VPC IPs a full node uses. " +
			"Instance data comes from `DescribeInstanceTypes`, read once per provider run.",
		Attributes: attrs,
	}
}

func computedInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
}

func (d *podCapacityDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.meta = metaFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *podCapacityDataSource) ValidateConfig(_ context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	if q, ok := podCapacityQuery(req.Config.Raw, &resp.Diagnostics); ok {
		addFindings(&resp.Diagnostics, q.Check(), nil)
	}
}

func (d *podCapacityDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if q, ok := podCapacityQuery(req.Config.Raw, &resp.Diagnostics); ok && requireMeta(d.meta, &resp.Diagnostics) {
		out, errs, warnings := catalog.ReadPodCapacity(ctx, d.meta.Client, d.meta.Client.Region, q)
		answer(resp, req.Config.Raw, out, errs, warnings)
	}
}

// podCapacityQuery decodes the configuration and marks what is not known yet.
func podCapacityQuery(config tftypes.Value, diags *diag.Diagnostics) (catalog.PodCapacityQuery, bool) {
	var q catalog.PodCapacityQuery
	ok := decodeInto(config, &q, "configuration", diags)
	q.InstanceTypeUnknown, q.NetworkInterfacesUnknown = !known(config, "instance_type"), !known(config, "network_interfaces")
	return q, ok
}
