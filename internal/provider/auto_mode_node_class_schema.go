package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
)

const autoModeGuide = "https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html"

// autoModeNodeClassSchema is karpenter_auto_mode_node_class: every field of the EKS Auto Mode
// NodeClass the EKS user guide documents, snake_cased, and what the plan resolves.
func autoModeNodeClassSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "An EKS Auto Mode `NodeClass` (`eks.amazonaws.com/v1`): the node class of the Karpenter AWS runs for an " +
			"Auto Mode cluster. Like `karpenter_node_class`, its subnet, security-group, pod-subnet and capacity-reservation " +
			"selectors are resolved against EC2 **during plan**: the plan shows what they hit, fails when a selector hits nothing " +
			"or a node zone has no pod subnet, and shows an in-place update when the selection changes outside Terraform. It renders " +
			"the `manifest` to apply with `kubernetes_manifest` or `kubectl_manifest`, and hands `resolved` to `karpenter_node_pool`, " +
			"which plans with Auto Mode's labels and networking.\n\n" +
			"AWS publishes no CRD for this kind: the plan admits the manifest against a schema the provider writes from the EKS user " +
			"guide (each rule names its page; see the guide \"EKS Auto Mode\"). The resource creates nothing in AWS: EKS creates the " +
			"instance profile of `role` itself.\n\n**Import** by name (the import ID is `name`; not `default`, EKS's own class): with the " +
			"provider's `kubernetes` access the live NodeClass becomes the configuration, planned at import, so that " +
			"`terraform plan -generate-config-out` writes it and the plan after the import is clean; a warning names what the " +
			"configuration cannot carry (the object's labels and annotations, fields newer than the schema). Without that access " +
			"the state holds `id` and `name`, and the next plan records the configuration's resolution. `terraform query` lists " +
			"the cluster's NodeClasses (list resource `karpenter_auto_mode_node_class`, filters `name_prefix` and `labels`).",
		Attributes: mergeAttributes(autoModeInputAttributes(), autoModeNetworkAttributes(), autoModeOutputAttributes()),
	}
}

func autoModeInputAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The NodeClass name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "`metadata.name` of the NodeClass. Not `default`, which is the NodeClass EKS creates for the built-in " +
				"node pools. A pool names it in its `nodeClassRef`."},
		"role": optStr("The node IAM role's name (`spec.role`); exactly one of `role` and `instance_profile`. Its nodes join only " +
			"with an EKS access entry of type `EC2` for the role and the `AmazonEKSAutoNodePolicy` access policy, which EKS creates " +
			"itself only for the cluster's built-in node role ([" + autoModeGuide + "](" + autoModeGuide + "))."),
		"instance_profile": optStr("An IAM instance profile's name (`spec.instanceProfile`), instead of `role`."),
		"subnet_selector_terms": subnetTermsAttribute("Node subnets (`spec.subnetSelectorTerms`): each term `tags` or `id`; "+
			"terms are ORed, a term's tags ANDed.", true),
		"security_group_selector_terms": securityGroupTermsAttribute("Node security groups (`spec.securityGroupSelectorTerms`): " +
			"each term `tags`, `id` or `name`."),
		"capacity_reservation_selector_terms": schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "On-Demand Capacity Reservations and Capacity Blocks for Auto Mode to use first " +
				"(`spec.capacityReservationSelectorTerms`): each term `id`, or `tags` with an optional `owner` account. Once any NodeClass " +
				"of the cluster sets it, Auto Mode no longer uses open reservations on its own " +
				"([auto-odcr](https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html)).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":    optStr("Reservation id, `cr-…`."),
				"tags":  optMap("Reservation tags, all of which must match."),
				"owner": optStr("The 12-digit account that owns the reservations, with `tags`."),
			}}},
		"tags": optMap("Tags of the EC2 resources Auto Mode creates (`spec.tags`). The keys Auto Mode sets itself " +
			"(`kubernetes.io/cluster/*`, `karpenter.sh/nodepool`, `karpenter.sh/nodeclaim`, `karpenter.sh/managed-by`, " +
			"`karpenter.sh/provisioner-name`, `eks.amazonaws.com/nodeclass`) are refused. Custom tags also need a tagging policy on the " +
			"cluster role."),
		"ephemeral_storage": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "The node's ephemeral storage volume (`spec.ephemeralStorage`; EKS's defaults: 80Gi, 3000 IOPS, 125 " +
				"throughput).",
			Attributes: map[string]schema.Attribute{
				"size":       optStr("Size: 1–59000Gi, 1–64000G, 1–58Ti or 1–64T."),
				"iops":       optInt("IOPS, 3000–16000."),
				"throughput": optInt("Throughput, 125–1000."),
				"kms_key_id": optStr("A symmetric KMS key's id, ARN, alias name or alias ARN, to encrypt the volumes."),
			}},
		"advanced_security": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "`spec.advancedSecurity` ([auto-advanced-security](https://docs.aws.amazon.com/eks/latest/userguide/auto-advanced-security.html)).",
			Attributes: map[string]schema.Attribute{
				"fips":            optBool("FIPS-validated AMIs (US Regions only)."),
				"kernel_lockdown": optStr("`integrity` or `none`."),
			}},
		"placement_group_selector": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "An EC2 placement group for the nodes (`spec.placementGroupSelector`), by `name` or `id` (`pg-…`). " +
				"The plan fails when it does not exist or is not available: Auto Mode then launches nothing from the class.",
			Attributes: map[string]schema.Attribute{
				"id":   optStr("Placement group id, `pg-…`."),
				"name": optStr("Placement group name."),
			}},
		"certificate_bundles": schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "Extra CA certificates for the nodes (`spec.certificateBundles`).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{Required: true, MarkdownDescription: "The bundle's name."},
				"data": schema.StringAttribute{Required: true, MarkdownDescription: "The certificates, base64-encoded."},
			}}},
	}
}

func autoModeNetworkAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"pod_subnet_selector_terms": subnetTermsAttribute("Pod subnets (`spec.podSubnetSelectorTerms`), with "+
			"`pod_security_group_selector_terms`: pods are then placed on secondary ENIs in a pod subnet of the node's own zone and never "+
			"on the primary ENI (fewer pods per node). The plan fails when a node zone has no pod subnet.", false),
		"pod_security_group_selector_terms": schema.ListNestedAttribute{Optional: true,
			MarkdownDescription: "Pod security groups (`spec.podSecurityGroupSelectorTerms`), with `pod_subnet_selector_terms`: each " +
				"term `tags` or `id`.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"tags": optMap("Security group tags, all of which must match."),
				"id":   optStr("Security group id, `sg-…`."),
			}}},
		"snat_policy":               optStr("`Random` (EKS's default) or `Disabled`: source NAT of pod traffic leaving the VPC."),
		"network_policy":            optStr("`DefaultAllow` (EKS's default) or `DefaultDeny`: the network policies' default action."),
		"network_policy_event_logs": optStr("`Disabled` (EKS's default) or `Enabled`."),
		"advanced_networking": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "`spec.advancedNetworking`.",
			Attributes: map[string]schema.Attribute{
				"associate_public_ip_address": optBool("Public IPv4 addresses for nodes; unset, the subnet's setting decides."),
				"https_proxy":                 optStr("An HTTPS proxy URL for the nodes (at most 255 characters)."),
				"no_proxy": schema.ListAttribute{Optional: true, ElementType: types.StringType,
					MarkdownDescription: "Hosts and domains the proxy is not used for (at most 50)."},
				"ipv4_prefix_size": optStr("`Auto` (EKS's default: a /28 prefix per 16 pods, falling back to secondary IPs) or `32` " +
					"(secondary IPs only)."),
				"enable_v4_egress": optBool("IPv6 clusters: IPv4 egress through the primary ENI (EKS's default true)."),
				"network_interfaces": schema.ListNestedAttribute{Optional: true,
					MarkdownDescription: "A static ENI layout, mainly for EFA: the primary ENI (card 0, device 0) is `interface`; " +
						"`secondary_ipv4_count` or `secondary_ipv4_prefix_count` (one of them) only on card 0 and not on `efa-only` " +
						"interfaces; not with `associate_public_ip_address` and more than one interface. With it Auto Mode adds no IPs, " +
						"prefixes or ENIs after launch, so a pool's plan warns that pods per node are at most the layout's addresses.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"network_card_index":          schema.Int64Attribute{Required: true, MarkdownDescription: "Network card, 0 the primary."},
						"device_index":                schema.Int64Attribute{Required: true, MarkdownDescription: "Device index on the card."},
						"interface_type":              schema.StringAttribute{Required: true, MarkdownDescription: "`interface` or `efa-only` (no IP addresses)."},
						"secondary_ipv4_count":        optInt("Secondary IPv4 addresses (one per unit)."),
						"secondary_ipv4_prefix_count": optInt("IPv4 /28 prefixes (16 addresses per unit)."),
					}}},
			}},
	}
}

func autoModeOutputAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"manifest": cStr("YAML of the `eks.amazonaws.com/v1` NodeClass, admitted at plan, to apply with `kubernetes_manifest` " +
			"(`yamldecode`) or `kubectl_manifest`."),
		"subnets": schema.MapNestedAttribute{Computed: true,
			MarkdownDescription: "The node subnets the selectors hit, by id. Known at plan time.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"zone":                       cStr("Availability zone."),
				"zone_id":                    cStr("Availability zone id."),
				"available_ip_address_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free IPv4 addresses when the selection last changed."},
			}}},
		"security_group_ids": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The node security groups the selectors hit, sorted."},
		"pod_subnets": schema.MapNestedAttribute{Computed: true,
			MarkdownDescription: "With pod subnets: the pod subnet chosen per node zone (the most free IPs), by zone.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":                         cStr("Pod subnet id."),
				"available_ip_address_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free IPv4 addresses when the selection last changed."},
			}}},
		"pod_security_group_ids": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The pod security groups the selectors hit."},
		"capacity_reservation_ids": schema.ListAttribute{Computed: true, ElementType: types.StringType,
			MarkdownDescription: "The active capacity reservations the selectors hit."},
		"resolved": schema.ObjectAttribute{Computed: true, AttributeTypes: attrTypesOf(launchplan.ClassRef{}),
			MarkdownDescription: "What a node pool takes of the class, in one value: `node_class = karpenter_auto_mode_node_class.this.resolved`. " +
				"It is the pool's `nodeClassRef` (`eks.amazonaws.com`, `NodeClass`, `name`) with the class's resolution as one opaque " +
				"string and its `fingerprint`."},
	}
}
