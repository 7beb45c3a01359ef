package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// cniSettingsAttributes is the shared schema of the CNI inputs. Validation is not done by
// attribute validators but by capacity.InputFindings in ValidateConfig, so each rule lives in
// one place and each problem is reported once.
func cniSettingsAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"ami_family": schema.StringAttribute{
			Optional: true, Computed: true,
			MarkdownDescription: fmt.Sprintf("EC2NodeClass `amiFamily`: one of `%s`. Default `%s`. Windows families run a fixed 110 pods "+
				"on amd64 types only; Bottlerocket ignores `kubelet_pods_per_core`.", strings.Join(capacity.Families(), "`, `"), capacity.DefaultFamily),
		},
		"prefix_delegation": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "VPC CNI `ENABLE_PREFIX_DELEGATION`: pods get addresses from /28 prefixes (16 per ENI slot), and the " +
				"kubelet's max pods follow the EKS calculator (capped at 110, or 250 above 30 vCPUs). Nitro instance types only. " +
				"Karpenter does not model it, so set `kubelet_max_pods` on the node class to what `max_pods` reports. Default `false`.",
		},
		"custom_networking": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "VPC CNI custom networking (`AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG`, ENIConfig): the primary ENI stays " +
				"in the node subnet and carries no pods; pod ENIs use the ENIConfig subnet. Default `false`.",
		},
		"security_groups_for_pods": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "VPC CNI `ENABLE_POD_ENI` (security groups for pods): one ENI becomes the trunk and carries no pod " +
				"IPs. Default `false`.",
		},
		"reserved_enis": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Karpenter's `RESERVED_ENIS` setting: ENIs left out of its max-pods math. Karpenter's docs recommend " +
				"`1` with custom networking or security groups for pods. Default `0`.",
		},
		"network_interfaces": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "EC2NodeClass `networkInterfaces` (EFA layouts): at most 150 entries, including the primary " +
				"interface (card 0, device 0, `interface`), at most one `efa-only` per card, no duplicate card/device pairs. " +
				"Every `efa-only` entry on card 0 takes one ENI from pods; `vpc.amazonaws.com/efa` becomes the number of " +
				"`efa-only` entries. Unset: the instance type's EFA maximum is advertised and all default-card ENIs serve pods.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"network_card_index": schema.Int64Attribute{Required: true, MarkdownDescription: "`networkCardIndex`, 0 or more."},
				"device_index":       schema.Int64Attribute{Required: true, MarkdownDescription: "`deviceIndex`, 0 or more."},
				"interface_type": schema.StringAttribute{Required: true,
					MarkdownDescription: "`interfaceType`: `interface` (ENA, IP connectivity) or `efa-only` (EFA device without an IP address)."},
			}},
		},
		"kubelet_max_pods": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "EC2NodeClass `kubelet.maxPods`: a fixed pod count for every instance type, used by both Karpenter " +
				"and the kubelet.",
		},
		"kubelet_pods_per_core": schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: "EC2NodeClass `kubelet.podsPerCore`: caps pods at this many per vCPU (ignored by Bottlerocket).",
		},
		"branch_interfaces": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Branch ENIs the instance type supports for security groups for pods (`vpc.amazonaws.com/pod-eni`), " +
				"when known; reported back as `pod_eni`.",
		},
	}
	for name, a := range warmTargetAttributes() {
		attrs[name] = schema.Int64Attribute{Optional: true, MarkdownDescription: a}
	}
	return attrs
}

// warmTargetAttributes describes the VPC CNI's warm-pool settings, shared by the data sources'
// inputs and the node class's networking block.
func warmTargetAttributes() map[string]string {
	const proj = " Used for the IPs a node at max pods holds (`vpc_ips_at_max_pods`, nodes a subnet holds)."
	return map[string]string{
		"warm_eni_target": fmt.Sprintf("VPC CNI `WARM_ENI_TARGET`: whole ENIs of free addresses ipamd keeps (secondary IPs). Default `%d`.",
			capacity.DefaultWarmENITarget) + proj,
		"warm_ip_target": "VPC CNI `WARM_IP_TARGET`: free addresses ipamd keeps; above 0 it takes precedence over the ENI and " +
			"prefix targets. Default unset." + proj,
		"minimum_ip_target": "VPC CNI `MINIMUM_IP_TARGET`: addresses ipamd holds whatever the pods; above 0 it takes precedence " +
			"over the ENI and prefix targets. Default unset." + proj,
		"warm_prefix_target": fmt.Sprintf("VPC CNI `WARM_PREFIX_TARGET`: free /28 prefixes ipamd keeps with prefix delegation. Default `%d` "+
			"(the EKS add-on's value).", capacity.DefaultWarmPrefixTarget) + proj,
	}
}
