package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/discovery"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeclass"
)

func subnetTermsAttribute(desc string, required bool) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: !required, Required: required,
		MarkdownDescription: desc,
		Validators:          []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tags": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: descTermTags},
			"id":   schema.StringAttribute{Optional: true, MarkdownDescription: "Subnet id, `subnet-…`."},
		}},
	}
}

var metadataAttrTypes = map[string]attr.Type{
	"http_endpoint": types.StringType, "http_protocol_ipv6": types.StringType,
	"http_put_response_hop_limit": types.Int64Type, "http_tokens": types.StringType,
}

func defaultMetadataObject() types.Object {
	d := nodeclass.DefaultMetadataOptions()
	return types.ObjectValueMust(metadataAttrTypes, map[string]attr.Value{
		"http_endpoint": types.StringValue(d.HTTPEndpoint), "http_protocol_ipv6": types.StringValue(d.HTTPProtocolIPv6),
		"http_put_response_hop_limit": types.Int64Value(int64(d.HTTPPutResponseHopLimit)), "http_tokens": types.StringValue(d.HTTPTokens),
	})
}

func optStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
}

func optInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
}

func optBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, MarkdownDescription: desc}
}

// objectMetadataAttribute is `metadata`: the labels and annotations of the rendered object itself.
func objectMetadataAttribute(kind, nodes string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "`metadata.labels` and `metadata.annotations` of the " + kind + " object itself, e.g. " +
			"`annotations = { \"kubernetes.io/description\" = \"General purpose\" }` (not " + nodes + "). Rendered into `manifest` and " +
			"validated at plan as the API server validates them (label keys and values, annotation size); not in Karpenter's hashes, " +
			"so a change drifts no node.",
		Attributes: map[string]schema.Attribute{
			"labels":      optMap("`metadata.labels`."),
			"annotations": optMap("`metadata.annotations`."),
		}}
}

func optMap(desc string) schema.MapAttribute {
	return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
}

func securityGroupTermsAttribute(desc string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: desc,
		Validators:          []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"tags": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: descTermTags},
			"id":   optStr("Security group id, `sg-…`."),
			"name": optStr("EC2 group name (not the `Name` tag)."),
		}},
	}
}

func capacityReservationTermsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "`capacityReservationSelectorTerms`, 1 to 30, ORed: the On-Demand Capacity Reservations and Capacity " +
			"Blocks that node pools of this class may launch into (capacity type `reserved`). A term is an `id` alone, or `tags` " +
			"and/or `instance_match_criteria`, optionally narrowed by `owner_id`. Resolved at plan time into " +
			"`capacity_reservations`; a term that selects no usable reservation is a warning, not an error (Karpenter then " +
			"launches on-demand or spot). Needs `ec2:DescribeCapacityReservations`.",
		Validators: []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"id":                      optStr("Reservation id, `cr-…`. Cannot be combined with the other fields."),
			"owner_id":                optStr("Account id (12 digits) that owns the reservation, with `tags` or `instance_match_criteria`, e.g. for reservations shared with you."),
			"tags":                    schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: descTermTags},
			"instance_match_criteria": optStr("`open` (any matching launch uses it) or `targeted` (only launches that name it)."),
		}},
	}
}

func placementGroupSelectorAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "`placementGroupSelector`: the EC2 placement group nodes launch into, by `id` or by `name` (exactly " +
			"one). Resolved at plan time into `placement_group`; the plan fails when no group matches or the group is not " +
			"`available`, since Karpenter would launch nothing from the class. Karpenter (1.11+) then launches only instance types " +
			"that support the group's strategy (T, flex and some previous-generation types cannot join a `cluster` group); a node " +
			"pool plan drops the others and names them. Needs `ec2:DescribePlacementGroups`.",
		Attributes: map[string]schema.Attribute{
			"id":   optStr("Placement group id, `pg-…` (required for groups shared with your account)."),
			"name": optStr("Placement group name (groups your account owns)."),
		},
	}
}

func connectivityAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Provider-only (not in the manifest): check at plan time that the resolved security groups let the nodes work " +
			"in the cluster, on their rules (the `ec2:DescribeSecurityGroups` answer that selected them: no other call). The checks run unless `checks = \"off\"`: without " +
			"this block `node_to_node` and `nodes_egress` run as warnings (and rules it cannot read are a warning too). Karpenter attaches every resolved " +
			"group to every node, so a rule on any of them counts. A failed check is a warning " +
			"(an error with `checks = \"error\"`) that names the group, the missing rule and the fix: on `security_group_selector_terms` " +
			"for `node_to_node` and `nodes_egress`, on `connectivity` for the control-plane checks. IPv6 rules and prefix lists are not " +
			"evaluated as peers; without control-plane groups `node_to_node` and `nodes_egress` run. The outcome is `connectivity_report`, computed at every plan: rules changed " +
			"outside Terraform show up as an in-place update. The checks:\n" +
			"  - `node_to_node`: some resolved group admits traffic from the nodes themselves (a reference to a resolved group, or an " +
			"IPv4 CIDR that contains all the resolved subnets): all traffic, or at least tcp 1025-65535, tcp 53 and udp 53;\n" +
			"  - `control_plane_to_nodes`: ingress on the node groups from the control-plane groups (or 0.0.0.0/0) on tcp 443, and on " +
			"tcp 10250 (one check per port);\n" +
			"  - `nodes_to_control_plane`: egress from the node groups to the control-plane groups (or 0.0.0.0/0) on tcp 443;\n" +
			"  - `nodes_egress` (without control-plane groups, whose addresses are then unknown): some egress rule on the node groups " +
			"allows tcp 443 to any destination (the API server, ECR and STS are reached that way); a group with its egress removed fails it.\n",
		Attributes: map[string]schema.Attribute{
			"control_plane_security_group_ids": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The cluster's control-plane security groups, e.g. the EKS cluster security group " +
					"(`aws_eks_cluster.this.vpc_config[0].cluster_security_group_id`). ORed with the selector terms.",
				Validators: []validator.List{listvalidator.SizeBetween(1, discovery.MaxTerms)},
			},
			"control_plane_security_group_selector_terms": securityGroupTermsAttribute(
				"Selector terms for the control-plane security groups, the same shape as `security_group_selector_terms`, e.g. " +
					"`[{ tags = { \"aws:eks:cluster-name\" = \"my-cluster\" } }]`. ORed with the ids."),
			"checks": schema.StringAttribute{
				Optional: true, Computed: true,
				Default:             stringdefault.StaticString(nodeclass.ChecksWarn),
				Validators:          []validator.String{stringvalidator.OneOf(nodeclass.ChecksWarn, nodeclass.ChecksError, nodeclass.ChecksOff)},
				MarkdownDescription: "`warn` (default): failed checks are plan warnings; `error`: they fail the plan; `off`: no check and no API call.",
			},
		},
	}
}

func nodeClassSchema() schema.Schema {
	return schema.Schema{
		Version: nodeClassSchemaVersion,
		MarkdownDescription: "A Karpenter `EC2NodeClass` (v1) whose subnet and security-group selectors are resolved against EC2 **during plan**. " +
			"The plan shows exactly which subnets, zones and security groups the selectors hit, fails when a selector hits nothing, " +
			"and shows an in-place update when tags change outside Terraform (drift). The resource records the resolution that was " +
			"applied, renders the `manifest` for Kubernetes, and hands `resolved` to `karpenter_node_pool`; the one AWS object it owns " +
			"is the instance profile it creates for `role` (see `role`).\n\n" +
			"**Import** by name (the import ID is `name`). With the provider's `kubernetes` access the live EC2NodeClass is read: " +
			"its spec and its own labels and annotations become the configuration (Karpenter's hash annotations and kubectl's " +
			"last-applied configuration stay with the cluster), and the class is planned at import, so that " +
			"`terraform plan -generate-config-out` writes it and the next plan is clean. Fields the configuration cannot carry " +
			"are named in the import's warning. When the provider's instance profile for that class name exists with the " +
			"provider's tags, the class adopts it (`owner_id`). Without cluster access the state holds `id` and `name`, and the next " +
			"plan resolves the selectors from the configuration and shows an in-place update that only records the resolution; " +
			"applying it changes nothing in AWS unless the class's instance profile is missing or differs. See the guide " +
			"\"From YAML to the provider\".\n\n" +
			"**Identity and query.** The resource's identity (Terraform >= 1.12) is `name`: an import block may write " +
			"`identity = { name = \"…\" }`. A list resource of the same type (Terraform >= 1.14) lets `terraform query` find the objects " +
			"to adopt (`name_prefix`, `labels`), and `-generate-config-out` writes each as an import by identity with its configuration.",
		Attributes: mergeAttributes(classSelectorAttributes(), classNetworkAttributes(), classKubeletAttributes(), classLaunchAttributes(), classResolutionAttributes(), classLaunchOptionAttributes(), classOutputAttributes(),
			map[string]schema.Attribute{"metadata": objectMetadataAttribute("EC2NodeClass", "the nodes' tags, which are `tags`")}),
	}
}

// mergeAttributes is one attribute map of several: a schema (resource or provider) written in
// groups; a name declared twice panics.
func mergeAttributes[A any](groups ...map[string]A) map[string]A {
	out := map[string]A{}
	for _, g := range groups {
		for name, a := range g {
			if _, dup := out[name]; dup {
				panic("attribute " + name + " is declared twice")
			}
			out[name] = a
		}
	}
	return out
}

// classSelectorAttributes are node class attributes of one group (nodeClassSchema).
func classSelectorAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			Computed: true, MarkdownDescription: "The node class name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"owner_id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			MarkdownDescription: "Identifies this resource instance as the owner of the instance profile it creates for `role`: chosen " +
				"at the first apply and written as the `karpenter.nodeplane.io/owner` tag on the profile. The provider changes and " +
				"deletes only a profile with its own owner id; import adopts the owner id of the class's profile."},
		"name": schema.StringAttribute{
			Required:            true,
			MarkdownDescription: "`metadata.name` of the EC2NodeClass (a lower-case DNS subdomain). Changing it replaces the resource.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"ami_family": optStr("`amiFamily`: `AL2`, `AL2023`, `Bottlerocket`, `Custom`, `Windows2019`, `Windows2022` or `Windows2025`. " +
			"Required unless an `alias` AMI term implies it; decides user data and pod-capacity rules."),
		"ami_selector_terms": schema.ListNestedAttribute{
			Required:            true,
			MarkdownDescription: "`amiSelectorTerms`, 1 to 30: an `alias` (e.g. `al2023@latest`, alone), or `id`, or `name` (+ `owner`), `ssm_parameter`, `tags`.",
			Validators:          []validator.List{listvalidator.SizeBetween(1, nodeclass.MaxAMITerms)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"alias":         optStr("`family@version`, e.g. `al2023@latest` or `bottlerocket@v1.20.0`. Must be the only term."),
				"id":            optStr("AMI id, `ami-…`."),
				"name":          optStr("AMI name (wildcards allowed)."),
				"owner":         optStr("Owner account id, `self`, `amazon` or `aws-marketplace`, with `name` or `tags`."),
				"ssm_parameter": optStr("SSM parameter holding the AMI id."),
				"tags":          optMap("Tags the AMI must carry."),
			}},
		},
		"role": optStr("IAM role of the nodes (a name, or `path/name`); it must exist at plan, unless it is known only after apply (a role " +
			"created in the same run): then the plan resolves everything else, `manifest` waits for the role, and apply checks it. Karpenter creates its own instance " +
			"profile for the nodes it launches, so the class writes nothing to IAM, unless `instance_profile_for_static_pools` asks for a " +
			"profile of the provider's. Exactly one of `role` and `instance_profile`."),
		"instance_profile_for_static_pools": optBool("With `role`: the provider creates an instance profile of its own for the launch " +
			"templates of the static pools it launches (`replicas` with `launcher = \"provider\"`), `resolved.instance_profile`: named " +
			"`nodeplane-<cluster>-<class>-<hash>` (known at plan), under path `/nodeplane/` (outside Karpenter's `/karpenter/` garbage " +
			"collection), tagged like Karpenter's plus the class's `owner_id`, and deleted with the class or when this is unset. A profile " +
			"of that name that is not the class's fails the plan. Unset or false, the class has no profile of the provider's " +
			"(`resolved.instance_profile` is null) and creates nothing in IAM: pools Karpenter launches use Karpenter's own profile, and a " +
			"static pool of the provider's launcher on the class fails its plan naming this attribute. Only with `role`; an import sets it " +
			"when the provider's profile for the class exists."),
		"instance_profile": optStr("Existing instance profile name, used as it is by Karpenter and by the launch templates of static " +
			"pools; it must exist at plan. Exactly one of `role` and `instance_profile`."),
		"subnet_selector_terms": subnetTermsAttribute(descSubnetTerms+
			" Defaults to `karpenter.sh/discovery = <provider cluster_name>`.", false),
		"security_group_selector_terms": securityGroupTermsAttribute(descSGTerms +
			" Defaults to `karpenter.sh/discovery = <provider cluster_name>`."),
	}
}

// classNetworkAttributes are node class attributes of one group (nodeClassSchema).
func classNetworkAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"associate_public_ip_address": optBool("`associatePublicIPAddress`: public IPv4 on the primary interface. Unset: the subnet's setting applies."),
		"ip_prefix_count":             optInt("`ipPrefixCount`: IPv4 /28 prefixes pre-assigned to each launch-template interface (not efa-only)."),
		"network_interfaces": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "`networkInterfaces` (up to 150): explicit interface layout. Must include the primary `interface` at card 0 / device 0; " +
				"pairs are unique; at most one `efa-only` per network card. Instance types whose cards or EFA limits cannot hold the layout are excluded.",
			Validators: []validator.List{listvalidator.SizeAtMost(nodeclass.MaxNetworkInterfaces)},
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"network_card_index": schema.Int64Attribute{Required: true, MarkdownDescription: "Network card index."},
				"device_index":       schema.Int64Attribute{Required: true, MarkdownDescription: "Device index on the card."},
				"interface_type":     schema.StringAttribute{Required: true, MarkdownDescription: "`interface` (ENA, with IPs) or `efa-only` (RDMA only, no IP)."},
			}},
		},
		"efa": optBool("Attach an EFA interface (type `efa`) on every network card of EFA-capable types, as Karpenter does for pods that request " +
			"`vpc.amazonaws.com/efa`; node pools using this class keep only EFA-capable types. Provider-only (not in the manifest). Default `false`."),
		"networking": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "The VPC CNI setting the nodes run with. Provider-only: Karpenter cannot express it, so it is not rendered into " +
				"the manifest, but it decides max pods, IP consumption and consistency warnings.",
			Attributes: map[string]schema.Attribute{
				"prefix_delegation": optBool("`ENABLE_PREFIX_DELEGATION`: pods get IPs from /28 prefixes (Nitro types only)."),
				"custom_networking": schema.SingleNestedAttribute{
					Optional:            true,
					MarkdownDescription: "VPC CNI custom networking (ENIConfig): pod IPs come from separate pod subnets; the primary ENI carries no pods.",
					Attributes: map[string]schema.Attribute{
						"pod_subnet_selector_terms": subnetTermsAttribute("Selector terms for the pod (ENIConfig) subnets; one is chosen per node zone.", true),
					},
				},
				"security_groups_for_pods": optBool("`ENABLE_POD_ENI`: a trunk ENI takes one ENI slot on types that can carry one (not t3 or Xen types, per the VPC resource controller's table)."),
				"reserved_enis":            optInt("Karpenter's `RESERVED_ENIS` setting for the cluster (excluded from its max-pods math)."),
				"warm_eni_target":          optInt(warmTargetAttributes()["warm_eni_target"]),
				"warm_ip_target":           optInt(warmTargetAttributes()["warm_ip_target"]),
				"minimum_ip_target":        optInt(warmTargetAttributes()["minimum_ip_target"]),
				"warm_prefix_target":       optInt(warmTargetAttributes()["warm_prefix_target"]),
				"cni_role": schema.StringAttribute{Optional: true, Validators: []validator.String{stringvalidator.OneOf(cniRoles...)},
					MarkdownDescription: "Whose credentials the VPC CNI (`aws-node`) uses: `node` (the default: the node role, which then " +
						"needs the CNI's EC2 actions), `irsa` or `pod_identity` (a role of its own; the node-role check then skips the CNI's actions)."},
			},
		},
	}
}

// cniRoles are the values of networking.cni_role.
var cniRoles = []string{"node", "irsa", "pod_identity"}

// classKubeletAttributes are node class attributes of one group (nodeClassSchema).
func classKubeletAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"kubelet": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "`kubelet` settings: the typed fields of every Karpenter version, and with `karpenter_version = \"1.15\"` any " +
				"other `KubeletConfiguration` field in `config` and a CEL `max_pods_expression`.",
			Attributes: map[string]schema.Attribute{
				"max_pods":      optInt("`maxPods`: overrides the computed max pods for every instance type."),
				"pods_per_core": optInt("`podsPerCore`: max pods is at most this × vCPUs (ignored on Bottlerocket)."),
				"cluster_dns":   schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "`clusterDNS` addresses."},
				"system_reserved": optMap("`systemReserved`: keys `cpu`, `memory`, `ephemeral-storage`, `pid`; with Karpenter 1.15 and " +
					"`NodeClassCEL` a value may be a CEL expression resolved per instance type (see the Karpenter versions guide)."),
				"kube_reserved": optMap("`kubeReserved`: keys `cpu`, `memory`, `ephemeral-storage`, `pid`; with Karpenter 1.15 and " +
					"`NodeClassCEL` a value may be a CEL expression resolved per instance type, e.g. `vcpus * 30`."),
				"eviction_hard":                   optMap("`evictionHard`: signal → percentage or quantity."),
				"eviction_soft":                   optMap("`evictionSoft`: needs a matching grace period per signal."),
				"eviction_soft_grace_period":      optMap("`evictionSoftGracePeriod`: signal → duration."),
				"eviction_max_pod_grace_period":   optInt("`evictionMaxPodGracePeriod` in seconds."),
				"image_gc_high_threshold_percent": optInt("`imageGCHighThresholdPercent`, 0-100, above the low threshold."),
				"image_gc_low_threshold_percent":  optInt("`imageGCLowThresholdPercent`, 0-100."),
				"cpu_cfs_quota":                   optBool("`cpuCFSQuota`."),
				"max_pods_expression": optStr("Karpenter v1.15 (`karpenter_version = \"1.15\"` and the provider's `karpenter_feature_gates` " +
					"with `NodeClassCEL`): `maxPods` as a CEL expression evaluated per instance type, e.g. `min(max_pods, 110)` or " +
					"`vcpus * 8`. Variables: `vcpus`, `memory_mib`, `default_enis` (ENIs of the default network card), `ips_per_eni` " +
					"(IPv4 addresses per ENI), `max_pods` (the type's max pods without a setting: ENI-limited, capped by " +
					"`pods_per_core`) and `instance_type`; `min` and `max` take ints and doubles. It must return an int or a double " +
					"(truncated). The plan evaluates it for every eligible type: max pods, IPs and warnings follow. Exclusive with `max_pods`."),
				"config": schema.DynamicAttribute{Optional: true, MarkdownDescription: "Karpenter v1.15: any other upstream " +
					"`KubeletConfiguration` (kubelet.config.k8s.io/v1beta1) field, by its upstream name, e.g. " +
					"`{ serializeImagePulls = false, containerLogMaxSize = \"50Mi\" }`. Validated at plan against the upstream types " +
					"(k8s.io/kubelet v0.34, strict: an unknown or mistyped field is an error) and Karpenter's rules; fields beyond " +
					"those the typed attributes set are applied only by the AL2023 family (and Custom), so other families refuse them, " +
					"as Karpenter does. `kubeReserved`/`systemReserved` values that are not quantities are CEL expressions (NodeClassCEL)." +
					" Typed attributes are set with their own names, not here."},
			},
		},
	}
}

// classLaunchAttributes are node class attributes of one group (nodeClassSchema).
func classLaunchAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"metadata_options": schema.SingleNestedAttribute{
			Optional: true, Computed: true,
			Default: objectdefault.StaticValue(defaultMetadataObject()),
			MarkdownDescription: "`metadataOptions`; Karpenter's defaults: endpoint enabled, IPv6 disabled, hop limit 1, IMDSv2 required. " +
				"Each field the block leaves out takes its default, as the CRD defaults it (e.g. `{ http_put_response_hop_limit = 2 }`).",
			Attributes: map[string]schema.Attribute{
				"http_endpoint": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(nodeclass.DefaultMetadataOptions().HTTPEndpoint),
					MarkdownDescription: "`enabled` (default) or `disabled`."},
				"http_protocol_ipv6": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(nodeclass.DefaultMetadataOptions().HTTPProtocolIPv6),
					MarkdownDescription: "`enabled` or `disabled` (default)."},
				"http_put_response_hop_limit": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(int64(nodeclass.DefaultMetadataOptions().HTTPPutResponseHopLimit)),
					MarkdownDescription: "1 to 64 (default 1)."},
				"http_tokens": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(nodeclass.DefaultMetadataOptions().HTTPTokens),
					MarkdownDescription: "`required` (IMDSv2, default) or `optional`."},
			},
		},
		"block_device_mappings": schema.ListNestedAttribute{
			Optional:            true,
			MarkdownDescription: "`blockDeviceMappings` (up to 50, at most one `root_volume`). Unset: the AMI family's defaults.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"device_name": optStr("Device name, e.g. `/dev/xvda`."),
				"root_volume": optBool("This mapping is the root volume."),
				"ebs": schema.SingleNestedAttribute{
					Optional: true, MarkdownDescription: "EBS settings; needs `volume_size` or `snapshot_id`.",
					Attributes: map[string]schema.Attribute{
						"delete_on_termination": optBool("Delete with the instance."),
						"encrypted":             optBool("Encrypt the volume."),
						"iops":                  optInt("Provisioned IOPS."),
						"kms_key_id":            optStr("KMS key for encryption."),
						"snapshot_id":           optStr("Snapshot to restore."),
						"throughput":            optInt("Throughput in MiB/s (gp3)."),
						"volume_size":           optStr("Kubernetes quantity, e.g. `100Gi`."),
						"volume_type":           optStr("`standard`, `io1`, `io2`, `gp2`, `sc1`, `st1` or `gp3`."),
						"volume_initialization_rate": optInt("`volumeInitializationRate`: the rate, 100 to 300 MiB/s, at which EBS fills a volume " +
							"restored from `snapshot_id` (provisioned volume initialization); needs `snapshot_id`."),
					},
				},
			}},
		},
		"instance_store_policy": optStr("`instanceStorePolicy`: `RAID0` to use instance-store volumes as ephemeral storage."),
		"detailed_monitoring":   optBool("`detailedMonitoring` (CloudWatch detailed monitoring)."),
		"user_data":             optStr("`userData`, merged with what the provider generates for the AMI family. At most 16 KB (EC2's limit, before base64)."),
		"tags": optMap("`tags` on launched resources. Keys starting with `aws:` or `kubernetes.io/cluster`, and Karpenter's own keys, " +
			"are rejected."),
	}
}

// classResolutionAttributes are node class attributes of one group (nodeClassSchema).
func classResolutionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"vpc_id": schema.StringAttribute{Computed: true, MarkdownDescription: "VPC of the resolved subnets."},
		"subnets": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "Resolved subnets in Karpenter's order (most free IPs, then id). Known at plan time. Public or default " +
				"subnets, and zones where more than one subnet matched, are plan warnings.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":                         schema.StringAttribute{Computed: true, MarkdownDescription: "Subnet id."},
				"name":                       schema.StringAttribute{Computed: true, MarkdownDescription: "The subnet's `Name` tag (null without one)."},
				"map_public_ip_on_launch":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Instances launched here get a public IPv4 address."},
				"default_for_az":             schema.BoolAttribute{Computed: true, MarkdownDescription: "The zone's default subnet (of a default VPC)."},
				"zone":                       schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone."},
				"zone_id":                    schema.StringAttribute{Computed: true, MarkdownDescription: "Availability zone id."},
				"cidr_block":                 schema.StringAttribute{Computed: true, MarkdownDescription: "IPv4 CIDR."},
				"available_ip_address_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free IPv4 addresses when the selection last changed."},
			}},
		},
		"security_groups": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Resolved security groups, sorted by id. Known at plan time.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":   schema.StringAttribute{Computed: true, MarkdownDescription: "Security group id."},
				"name": schema.StringAttribute{Computed: true, MarkdownDescription: "EC2 group name."},
			}},
		},
		"zones": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Zones of the resolved subnets, sorted."},
		"pod_subnets": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Custom networking: the pod subnet chosen per node zone.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"zone":                       schema.StringAttribute{Computed: true, MarkdownDescription: "Node zone."},
				"id":                         schema.StringAttribute{Computed: true, MarkdownDescription: "Pod subnet id."},
				"cidr_block":                 schema.StringAttribute{Computed: true, MarkdownDescription: "IPv4 CIDR."},
				"available_ip_address_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free IPv4 addresses."},
			}},
		},
		"amis": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The images the AMI selector terms resolve to at plan, as Karpenter's `status.amis`: one per requirement " +
				"set (architecture, and for an alias its accelerator variant), the newest non-deprecated first. Each node pool type " +
				"launches with the first image whose requirements it meets. Empty when an `alias` is left to Karpenter (see the warning).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":            schema.StringAttribute{Computed: true, MarkdownDescription: "Image id."},
				"name":          schema.StringAttribute{Computed: true, MarkdownDescription: "Image name."},
				"architecture":  schema.StringAttribute{Computed: true, MarkdownDescription: "`kubernetes.io/arch`: `amd64` or `arm64`."},
				"variant":       schema.StringAttribute{Computed: true, MarkdownDescription: "Alias images: `standard`, `nvidia` or `neuron`; null otherwise."},
				"creation_date": schema.StringAttribute{Computed: true, MarkdownDescription: "When the image was created (RFC 3339)."},
				"deprecated":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Past its deprecation time: used only when no other image serves the same requirements."},
				"requirements":  schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The node requirements the image serves."},
			}},
		},
		"resolved": schema.ObjectAttribute{
			Computed:       true,
			AttributeTypes: attrTypesOf(launchplan.ClassRef{}),
			MarkdownDescription: "What a node pool takes of the class, in one value: pass it whole as " +
				"`node_class = karpenter_node_class.this.resolved`. It is Karpenter's `nodeClassRef` (`group`, `kind`, `name`) with the " +
				"class's resolution: `resolution` carries, as one opaque string (base64 of JSON), everything a pool's plan reads of the " +
				"class (subnets with their free IPs, security groups, images, networking, kubelet, block devices, capacity reservations), and " +
				"`fingerprint` identifies it (a changed resolution changes it, so a pool's plan shows which pools a class change " +
				"reaches); the class's own attributes (`subnets`, `security_groups`, `amis`, …) show the same resolution to people. " +
				"`instance_profile`, `user_data`, `tags` and `hash` sit beside it because they may be known only after apply. `hash` is " +
				"Karpenter's EC2NodeClass hash of the class " +
				"(the `karpenter.k8s.aws/ec2nodeclass-hash` its nodes carry, as the provider's `karpenter_version` computes it: hash version " +
				"v4 for 1.9–1.11, v5 for 1.12–1.14, v6 for 1.15; from v5 counted with the provider's " +
				"`cluster_certificate_authority_data`): when it changes within a hash version, Karpenter drifts every node on the class " +
				"(see a pool's `drift`); a new hash version alone drifts nothing.",
		},
	}
}

// classLaunchOptionAttributes are node class attributes of one group (nodeClassSchema).
func classLaunchOptionAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"connectivity": connectivityAttribute(),

		"capacity_reservation_selector_terms": capacityReservationTermsAttribute(),
		"placement_group_selector":            placementGroupSelectorAttribute(),
		"context": optStr("`context`: the reserved `Context` value Karpenter passes to EC2 Fleet requests. Set it only when AWS " +
			"gave you one for your account."),
		"cpu_options": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "`cpuOptions` of the launched instances.",
			Attributes: map[string]schema.Attribute{
				"nested_virtualization": optStr("`nestedVirtualization`: `enabled` or `disabled`. With `enabled`, Karpenter (1.13+) " +
					"only launches instance types that support nested virtualization; a node pool plan drops the others and names them."),
			},
		},
		"enclave_options": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "`enclaveOptions` (Karpenter v1.15, `karpenter_version = \"1.15\"`): AWS Nitro Enclaves on the launched " +
				"instances. With `enabled`, Karpenter only launches types that support Nitro Enclaves; a node pool plan drops the " +
				"others and names them.",
			Attributes: map[string]schema.Attribute{
				"enabled": schema.BoolAttribute{Required: true, MarkdownDescription: "`enabled`: turn Nitro Enclaves on."},
			},
		},
		"connection_tracking": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "`connectionTracking`: idle timeouts of connection tracking, in seconds, on the network interfaces " +
				"of the launch template (efa-only interfaces excluded). Set at least one; unset ones keep EC2's defaults. Karpenter " +
				"(1.13+) then launches only Nitro instance types (no Xen or bare-metal ones); a node pool plan drops the others and " +
				"names them.",
			Attributes: map[string]schema.Attribute{
				"tcp_established_timeout": optInt("`tcpEstablishedTimeout`: idle established TCP flows, 60 to 432000."),
				"udp_stream_timeout":      optInt("`udpStreamTimeout`: idle UDP flows that saw more than one request-response exchange, 60 to 180."),
				"udp_timeout":             optInt("`udpTimeout`: idle UDP flows in one direction or with one exchange, 30 to 60."),
			},
		},
	}
}

// classOutputAttributes are node class attributes of one group (nodeClassSchema).
func classOutputAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"capacity_reservations": capacityReservationsOutputAttribute(),
		"placement_group": schema.SingleNestedAttribute{
			Computed: true,
			MarkdownDescription: "The placement group `placement_group_selector` selects, known at plan time; null without a " +
				"selector.",
			Attributes: map[string]schema.Attribute{
				"id":              schema.StringAttribute{Computed: true, MarkdownDescription: "Group id, `pg-…`."},
				"name":            schema.StringAttribute{Computed: true, MarkdownDescription: "Group name."},
				"strategy":        schema.StringAttribute{Computed: true, MarkdownDescription: "`cluster`, `partition` or `spread`."},
				"partition_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Partitions of a `partition` group; null for the other strategies."},
			},
		},
		"node_role_report": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "The node-role readiness check, known at plan time: whether the node role (`role`, or the role of " +
				"`instance_profile`) grants what a node needs, read with `iam:ListAttachedRolePolicies`, `iam:GetPolicy`, " +
				"`iam:GetPolicyVersion`, `iam:ListRolePolicies` and `iam:GetRolePolicy` and evaluated by the provider (Allow and Deny " +
				"statements with wildcards; resources and conditions are reported as not evaluated; permission boundaries and SCPs are " +
				"not considered). One entry per need: `assign_pod_ips` (the VPC CNI's EC2 actions, `AmazonEKS_CNI_Policy`; skipped " +
				"with `networking.cni_role` `irsa` or `pod_identity`), `register_with_cluster` (`AmazonEKSWorkerNodePolicy`) and `pull_images` " +
				"(`AmazonEC2ContainerRegistryReadOnly`). A need not met is a plan warning on the attribute naming the role, with the " +
				"missing actions and the managed policy that grants them. Null when the role is known only after apply or its " +
				"policies cannot be read (a warning).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"need":    schema.StringAttribute{Computed: true, MarkdownDescription: "`assign_pod_ips`, `register_with_cluster` or `pull_images`."},
				"status":  schema.StringAttribute{Computed: true, MarkdownDescription: "`met`, `not met` or `skipped`."},
				"missing": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The actions the role does not allow, sorted."},
				"detail":  schema.StringAttribute{Computed: true, MarkdownDescription: "What the node cannot do without them, and what was not evaluated."},
			}},
		},
		"connectivity_report": schema.ListNestedAttribute{
			Computed: true,
			MarkdownDescription: "What `connectivity` checked, known at plan time, for a module output: one entry per check " +
				"(`node_to_node`, `control_plane_to_nodes` for tcp 443 and for tcp 10250, `nodes_to_control_plane`; " +
				"`node_to_node` and `nodes_egress` without control-plane groups). Null with `checks = \"off\"`, or when the rules cannot be read.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"check":    schema.StringAttribute{Computed: true, MarkdownDescription: "The check's name."},
				"group_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The group that holds the admitting rule (passed), or the group the missing rule belongs on (failed)."},
				"passed":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the rules admit the traffic."},
				"required": schema.StringAttribute{Computed: true, MarkdownDescription: "The traffic checked, e.g. `ingress tcp 10250 from sg-…`."},
				"detail":   schema.StringAttribute{Computed: true, MarkdownDescription: "The admitting rules, or what is missing and the rule to add."},
			}},
		},
		"manifest": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "YAML of the Karpenter v1 `EC2NodeClass`, for `kubernetes_manifest` via `yamldecode`. " +
				"Provider-only settings (`networking`, `efa`) are left out. Validated at plan as the API server would (the CRD of " +
				"the provider's `karpenter_version`: schema, defaults, CEL rules); a violation fails the plan on the attribute that produced the field. " +
				"Unknown at plan while `role` is (e.g. a role created in the same apply); `manifest_object` is not.",
		},
		"manifest_object": schema.DynamicAttribute{
			Computed: true,
			MarkdownDescription: "The same `EC2NodeClass` as an object, for `kubernetes_manifest`'s `manifest` without `yamldecode`. " +
				"While `role` is known only after apply, only `spec.role` is unknown in it, so `kubernetes_manifest` still plans the " +
				"rest.",
		},
	}
}

// capacityReservationsOutputAttribute is the class's computed `capacity_reservations`.
func capacityReservationsOutputAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "The capacity reservations `capacity_reservation_selector_terms` selects, as Karpenter would use " +
			"them (active, not ended, `open` or `targeted`), and beside them those still to start (`state = \"scheduled\"`, such " +
			"as Capacity Blocks bought ahead, which Karpenter sees once they start; each is a warning), sorted by id and known " +
			"at plan time. Null without terms. The counts are those of the last plan that changed the selection: a change of " +
			"counts alone keeps the recorded value, so launches into a reservation do not make every plan an update; a " +
			"reservation that starts, or a new start date or interruptible flag, is a change. A selected Capacity Block that " +
			"ends within the provider's `capacity_block_horizon` is a warning.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"id":                       schema.StringAttribute{Computed: true, MarkdownDescription: "Reservation id, `cr-…`."},
			"instance_type":            schema.StringAttribute{Computed: true, MarkdownDescription: "Reserved instance type."},
			"availability_zone":        schema.StringAttribute{Computed: true, MarkdownDescription: "Zone of the reservation."},
			"instance_match_criteria":  schema.StringAttribute{Computed: true, MarkdownDescription: "`open` or `targeted`."},
			"owner_id":                 schema.StringAttribute{Computed: true, MarkdownDescription: "Account that owns the reservation."},
			"reservation_type":         schema.StringAttribute{Computed: true, MarkdownDescription: "`default` or `capacity-block`."},
			"end_date":                 schema.StringAttribute{Computed: true, MarkdownDescription: "When the reservation ends (RFC 3339); null when it does not."},
			"available_instance_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Free instances when the selection last changed."},
			"total_instance_count":     schema.Int64Attribute{Computed: true, MarkdownDescription: "Instances the reservation holds."},
			"start_date":               schema.StringAttribute{Computed: true, MarkdownDescription: "When the reservation starts or started (RFC 3339); null when EC2 does not report it."},
			"interruptible":            schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the reservation is interruptible: its instances can be interrupted when the owner reclaims the capacity."},
			"state":                    schema.StringAttribute{Computed: true, MarkdownDescription: "`active`, or `scheduled` for a reservation still to start, which Karpenter does not use before its start."},
		}},
	}
}
