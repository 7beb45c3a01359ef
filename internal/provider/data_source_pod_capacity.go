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
			"(custom networking), or from the pod subnets with `auto_mode.pod_subnets`; else 0."),
		"prefixes_at_max_pods": computedInt("The /28 IPv4 prefixes (16 addresses each) among the addresses a node at `max_pods` " +
			"holds, in the subnet that carries pod addresses (the node subnet, or the pod subnet with custom networking or " +
			"`auto_mode.pod_subnets`): the free /28 blocks a subnet needs per node for pods to get prefixes. 0 with secondary IPs."),
		"auto_mode": autoModeAttribute(),
		"formula":   schema.StringAttribute{Computed: true, MarkdownDescription: "One line showing how `max_pods` was computed."},
		"warnings": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Caveats of this configuration (also shown as warnings in the plan)."},
	}
	maps.Copy(attrs, cniSettingsAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: "Pod capacity of one instance type under a node class's VPC CNI and kubelet settings, or under " +
			"an EKS Auto Mode NodeClass (`auto_mode`): what Karpenter assumes, what the kubelet really runs, whether they agree, " +
			"and the VPC IPs a full node uses. Instance data comes from `DescribeInstanceTypes`, read once per provider run.",
		Attributes: attrs,
	}
}

// autoModeAttribute is the `auto_mode` input: an EKS Auto Mode NodeClass's networking, which
// capacity.AutoMode decodes.
func autoModeAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The capacity of a node of an EKS Auto Mode `NodeClass` (`eks.amazonaws.com`) instead, whose " +
			"networking is not the VPC CNI ([Auto Mode networking](https://docs.aws.amazon.com/eks/latest/userguide/auto-networking.html)). " +
			"`max_pods` is the usual ENI figure (with prefixes or secondary IPs; without the primary ENI with pod subnets), then capped " +
			"at 110 ([Create a node class](https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html)); EKS sets it for " +
			"Karpenter and the kubelet alike, so `consistent` is true. The VPC CNI, kubelet and EC2NodeClass inputs (`prefix_delegation`, " +
			"`custom_networking`, `security_groups_for_pods`, `branch_interfaces`, the warm targets, `reserved_enis`, `network_interfaces`, " +
			"`kubelet_max_pods`, `kubelet_pods_per_core`, `ami_family`) do not apply and are errors with it; `ami_family` is then empty. " +
			"Instance types Auto Mode does not launch (1 vCPU; nano, micro and small sizes: " +
			"[instance types](https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html)) are an error. " +
			"The IPs count every pod as needing an address, and leave out any warm pool beyond what the pods need. IPv4 only: " +
			"an IPv6 cluster's per-node /80 is not modelled. Null (the default): a self-managed node class on the VPC CNI.",
		Attributes: map[string]schema.Attribute{
			"ipv4_prefix_size": schema.StringAttribute{Optional: true,
				MarkdownDescription: "`advancedNetworking.ipv4PrefixSize`: `Auto` (the default) gives pods /28 prefixes on the node's " +
					"ENIs, one per 16 pods and at least one per node (EKS falls back to secondary IPs when the subnet has no free /28, " +
					"which these figures do not follow); `32` gives them secondary IPs only."},
			"pod_subnets": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Whether the NodeClass sets `podSubnetSelectorTerms` and `podSecurityGroupSelectorTerms`: pods then " +
					"take no address from the primary ENI, which keeps the node's own in the node subnet, and their ENIs and addresses " +
					"come from the pod subnets (`pod_subnet_ips_at_max_pods`). Default `false`."},
		},
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
