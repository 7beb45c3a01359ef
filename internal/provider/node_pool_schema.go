package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/nodeplane/terraform-provider-karpenter/internal/drift"
	"github.com/nodeplane/terraform-provider-karpenter/internal/launchplan"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodeoverlay"
	"github.com/nodeplane/terraform-provider-karpenter/internal/nodepool"
	"github.com/nodeplane/terraform-provider-karpenter/internal/planner"
	"github.com/nodeplane/terraform-provider-karpenter/internal/requirements"
)

var disruptionAttrTypes = map[string]attr.Type{
	"consolidation_policy": types.StringType,
	"consolidate_after":    types.StringType,
	"budgets":              types.ListType{ElemType: types.ObjectType{AttrTypes: attrTypesOf(nodepool.Budget{})}},
}

func defaultDisruption() types.Object {
	return types.ObjectValueMust(disruptionAttrTypes, map[string]attr.Value{
		"consolidation_policy": types.StringValue(nodepool.DefaultConsolidationPolicy),
		"consolidate_after":    types.StringValue(nodepool.DefaultConsolidateAfter),
		"budgets":              types.ListNull(types.ObjectType{AttrTypes: attrTypesOf(nodepool.Budget{})}),
	})
}

func taintsAttribute(desc string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true, MarkdownDescription: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":   schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
			"value": optStr("Taint value."),
			"effect": schema.StringAttribute{Required: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`.",
				Validators: []validator.String{stringvalidator.OneOf("NoSchedule", "PreferNoSchedule", "NoExecute")}},
		}},
	}
}

func computedList(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true, MarkdownDescription: desc, NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

func cStr(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}
func cInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
}
func cStrList(desc string) schema.ListAttribute {
	return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc}
}

func nodePoolSchema() schema.Schema {
	return schema.Schema{
		Version: nodePoolSchemaVersion,
		MarkdownDescription: "A Karpenter `NodePool` (v1) planned against its node class and the region's instance types. At plan time it shows " +
			"which instance types survive the requirements and the class's network spec, in which zones and subnets, with how many pods " +
			"and IPs each, and the launch template groups. A dynamic pool (no `replicas`) holds no EC2 objects: Karpenter launches its nodes " +
			"from the NodePool `manifest` and builds its own launch templates from the EC2NodeClass, so the provider only plans. A static " +
			"pool (`replicas`) is launched by the provider itself: apply creates its launch templates and instances in EC2 (tagged for " +
			"ownership), and it has no NodePool manifest.\n\n" +
			"**Launch order and prices.** Types are ordered as Karpenter orders them: by the hourly price of the cheapest offering each has " +
			"among the zones and capacity types the pool allows (ties by name), and the first 60 form the launch (`launch_plan`; a static " +
			"pool's CreateFleet). On-demand prices come from the AWS Pricing API (`pricing:GetProducts`), spot prices from EC2's spot " +
			"price history (`ec2:DescribeSpotPriceHistory`, newest per zone). When the Pricing API cannot be read, the provider falls back " +
			"as Karpenter does, to the on-demand table Karpenter ships (the version and date are in the warning and `summary.prices`; " +
			"the warning is in every pool's `warnings`, and a diagnostic of the first pool of a plan that meets it), " +
			"while spot prices still come from the spot price history; only when that history cannot be read (`ec2:DescribeSpotPriceHistory`) is spot priced as on-demand, with a warning on pools that allow spot. See the pod-capacity guide for the filters Karpenter applies before the cut and for `workloads`.\n\n" +
			"**Import** by name. With the provider's `kubernetes` access a NodePool of that name in the cluster is read: its spec and " +
			"its own labels and annotations become the configuration (`replicas` with `launcher = \"karpenter\"`), `node_class` holds " +
			"the values of the node class its `nodeClassRef` names (replace them with `karpenter_node_class.<name>.resolved`, or " +
			"`karpenter_auto_mode_node_class.<name>.resolved` for an EKS Auto Mode NodeClass), and " +
			"the pool is planned at import, so that `terraform plan -generate-config-out` writes it and the next plan is clean. Fields " +
			"the configuration cannot carry are named in the import's warning; a pool whose node class the cluster lacks, or whose " +
			"`nodeClassRef` is neither a `karpenter.k8s.aws` EC2NodeClass nor an `eks.amazonaws.com` NodeClass, is refused. A static pool of the provider's own launcher is found " +
			"in EC2 by its ownership tags (`<name>` or `<name>/<owner id>`). See the guide \"From YAML to the provider\".\n\n" +
			"**Identity and query.** The resource's identity (Terraform >= 1.12) is `name`: an import block may write " +
			"`identity = { name = \"…\" }`. A list resource of the same type (Terraform >= 1.14) lets `terraform query` find the objects " +
			"to adopt (`name_prefix`, `labels`), and `-generate-config-out` writes each as an import by identity with its configuration.",
		Attributes: mergeAttributes(poolSpecAttributes(), poolStaticAttributes(), poolSummaryAttributes(), poolDriftAttributes(), poolDetailAttributes(),
			map[string]schema.Attribute{"metadata": objectMetadataAttribute("NodePool", "the nodes' labels and annotations, which are `template.labels` and `template.annotations`")}),
	}
}

// poolSpecAttributes are node pool attributes of one group (nodePoolSchema).
func poolSpecAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The pool name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true, MarkdownDescription: "`metadata.name` of the NodePool. Changing it replaces the resource.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"node_class": schema.ObjectAttribute{
			Required: true, AttributeTypes: attrTypesOf(launchplan.ClassRef{}),
			MarkdownDescription: "The node class, as `karpenter_node_class.<name>.resolved` (Karpenter's EC2NodeClass) or " +
				"`karpenter_auto_mode_node_class.<name>.resolved` (an EKS Auto Mode NodeClass): its `nodeClassRef` with its resolution " +
				"(one opaque `resolution` string and its `fingerprint`), which the pool's plan reads without another AWS call. On an " +
				"Auto Mode NodeClass the requirements use Auto Mode's `eks.amazonaws.com/instance-*` labels (a `karpenter.k8s.aws` key " +
				"is refused, naming Auto Mode's), types are the families and sizes Auto Mode launches, max pods are Auto Mode's (capped " +
				"at 110), there are no launch templates, `node_overlays` and the provider's own launcher are refused, and a static pool " +
				"Auto Mode keeps (`launcher = \"karpenter\"`) needs no feature gate.",
		},
		"node_overlays": schema.ListAttribute{
			Optional: true, ElementType: types.ObjectType{AttrTypes: attrTypesOf(nodeoverlay.Config{})},
			MarkdownDescription: "The cluster's NodeOverlays, as `[karpenter_node_overlay.<name>.resolved, …]`: Karpenter applies every " +
				"overlay of the cluster to every pool, so list them all (a module can pass one list to every pool). The plan applies " +
				"them as Karpenter does — heaviest first, a conflict of equal weights is a warning and one of the two is ignored — " +
				"before it orders the launch and costs the pool; `summary.node_overlays` says which overlays change which types. Needs " +
				"`NodeOverlay` in the provider's `karpenter_feature_gates`. With the provider's `kubernetes` access, NodeOverlays of the " +
				"cluster that the list lacks are a warning (`list` on `nodeoverlays.karpenter.sh`), and conflicts are judged as Karpenter " +
				"judges them, over the types of every NodePool of the cluster on the same class (`list` on `nodepools.karpenter.sh`): " +
				"an overlay that conflicts in another NodePool is ignored in this one too. Without that access they are judged on this " +
				"pool's types alone, which a conflict's warning says. A static pool (`replicas`) is " +
				"launched by the provider, which overlays do not change (a warning).",
		},
		"template": schema.SingleNestedAttribute{
			Required: true, MarkdownDescription: "`spec.template`: what every node of the pool gets.",
			Attributes: map[string]schema.Attribute{
				"labels":         optMap("`metadata.labels` of the nodes."),
				"annotations":    optMap("`metadata.annotations` of the nodes."),
				"taints":         taintsAttribute("`taints` of the nodes."),
				"startup_taints": taintsAttribute("`startupTaints`: taints removed by a daemon after start-up."),
				"requirements": schema.ListNestedAttribute{
					Optional: true,
					MarkdownDescription: "`requirements` (up to 100), ANDed: `{ key, operator, values, min_values }` with operators `In`, `NotIn`, " +
						"`Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte`, `Lte`. Well-known keys narrow instance types and zones.",
					Validators: []validator.List{listvalidator.SizeAtMost(requirements.MaxRequirements)},
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"key":        schema.StringAttribute{Required: true, MarkdownDescription: "Label key, e.g. `karpenter.k8s.aws/instance-category`."},
						"operator":   schema.StringAttribute{Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte` or `Lte`."},
						"values":     schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Values (one integer for Gt/Lt/Gte/Lte)."},
						"min_values": optInt("`minValues`: at least this many distinct values of the key must remain (1-50)."),
					}},
				},
				"expire_after":             optStr("`expireAfter`, e.g. `720h` (Karpenter's default) or `Never`."),
				"termination_grace_period": optStr("`terminationGracePeriod`, e.g. `48h`."),
			},
		},
		"limits": optMap("`limits`: e.g. `cpu = \"1000\"`, `memory = \"1000Gi\"`, `nodes = \"10\"`. With `replicas`, only `nodes`."),
		"disruption": schema.SingleNestedAttribute{
			Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultDisruption()),
			MarkdownDescription: "`disruption`; each field defaults as the CRD defaults it, so `disruption = { budgets = [...] }` alone is " +
				"accepted. `consolidation_policy` defaults to `WhenEmptyOrUnderutilized`; the v1beta1 name `WhenUnderutilized` " +
				"is refused with that name as the fix (state and the manifest would otherwise say different things).",
			Attributes: map[string]schema.Attribute{
				"consolidation_policy": schema.StringAttribute{Optional: true, Computed: true,
					Default:             stringdefault.StaticString(nodepool.DefaultConsolidationPolicy),
					MarkdownDescription: "`WhenEmptyOrUnderutilized` (the CRD's default), `WhenEmpty` or `Balanced`."},
				"consolidate_after": schema.StringAttribute{Optional: true, Computed: true,
					Default:             stringdefault.StaticString(nodepool.DefaultConsolidateAfter),
					MarkdownDescription: "`consolidateAfter`, e.g. `30s` or `Never` (default `0s`, as the CRD defaults it)."},
				"budgets": schema.ListNestedAttribute{
					Optional: true, MarkdownDescription: "Disruption `budgets` (up to 50).",
					Validators: []validator.List{listvalidator.SizeAtMost(50)},
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"nodes":    optStr("Nodes that may be disrupted at once: a count or a percentage (default `10%`)."),
						"reasons":  schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "`Underutilized`, `Empty`, `Drifted`."},
						"schedule": optStr("Cron schedule when the budget is active; needs `duration`."),
						"duration": optStr("How long the budget is active after each schedule tick."),
					}},
				},
			},
		},
	}
}

// poolStaticAttributes are node pool attributes of one group (nodePoolSchema): weight,
// replicas and who launches them, details.
func poolStaticAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"weight": schema.Int64Attribute{Optional: true, MarkdownDescription: "`weight`, 1-100 (not with `replicas`).",
			Validators: []validator.Int64{int64validator.Between(1, 100)}},
		"replicas": schema.Int64Attribute{Optional: true, MarkdownDescription: "`replicas`: a static-capacity pool of this many nodes, " +
			"launched by apply through EC2 Fleet (type `instant`) with the pool's launch templates, spread evenly over its zones, and " +
			"tagged for ownership. Needs a node class whose AMI selector terms resolve to an image at plan and, unless the class's AMI family is `Custom`, the " +
			"provider's `cluster_name`, `cluster_endpoint`, `cluster_certificate_authority_data` and `cluster_service_cidr`, which the " +
			"nodes' user data carries to join the cluster. Switching a pool between static and dynamic replaces it. The provider is the " +
			"only launcher of these nodes: `manifest` is null (there is no NodePool for Karpenter), and the instances do not carry the " +
			"`eks:eks-cluster-name` tag, so Karpenter's garbage collection of instances without a NodeClaim leaves them alone.",
			Validators: []validator.Int64{int64validator.AtLeast(0)}},

		"launcher": schema.StringAttribute{Optional: true, MarkdownDescription: "Who launches a static pool's (`replicas`) nodes: " +
			"`\"provider\"` (the default: apply launches them through EC2 Fleet, and the pool has no NodePool `manifest`) or " +
			"`\"karpenter\"` (the `manifest` is a NodePool with `spec.replicas`, and Karpenter's static capacity keeps the nodes, with its " +
			"interruption handling, node repair and drift; apply creates nothing in EC2). `\"karpenter\"` needs `StaticCapacity` in the " +
			"provider's `karpenter_feature_gates`, and warns when `limits.nodes` is not above `replicas` (drift could not proceed). " +
			"Changing the launcher replaces the pool. See the static capacity guide.",
			Validators: []validator.String{stringvalidator.OneOf(nodepool.LauncherProvider, nodepool.LauncherKarpenter)}},
		"spread": schema.StringAttribute{Optional: true, MarkdownDescription: "`\"zones\"`: a static pool Karpenter launches " +
			"(`launcher = \"karpenter\"`) becomes one NodePool per zone it can launch in, named `<name>-<zone>`, each with " +
			"`topology.kubernetes.io/zone` narrowed to its zone and `replicas` split evenly (the remainder to the first zones), as the " +
			"provider's own launcher spreads its nodes: Karpenter's static capacity has no zone spread of its own. The zones' " +
			"`limits.nodes` sum to `limits.nodes`: each zone's replicas plus a share of the headroom above `replicas`, split " +
			"evenly over the zones that get a NodePool, at least one node per zone so that drift can proceed in each; with " +
			"fewer headroom nodes than zones each still gets one, and a warning on `limits.nodes` names the total. The " +
			"NodePools are in `manifests`, by zone, and `manifest` is null. A zone whose free IPs hold fewer nodes than its share " +
			"warns. The drift verdict is per pool (no node count: each node carries its zone NodePool's hash).",
			Validators: []validator.String{stringvalidator.OneOf(nodepool.SpreadZones)}},
		"details": schema.BoolAttribute{Optional: true, MarkdownDescription: "Fill the per-type attributes (`instance_types`, `max_pods`, " +
			"`karpenter_assumed_pods`, `launch_plan`) and the content of `launch_templates` (instance types, interfaces, user data), and " +
			"show a dynamic pool's planned `launch_templates`. Off by default: a broad pool has hundreds of eligible types, and a plan a " +
			"person reads shows `summary` and `zones` instead. The same per-type figures are in the `karpenter_instance_types` and " +
			"`karpenter_pod_capacity` data sources."},
	}
}

// poolSummaryAttributes are node pool attributes of one group (nodePoolSchema).
func poolSummaryAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"summary": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "What the plan of the pool comes to, in a few lines.",
			Attributes: map[string]schema.Attribute{
				"instance_types": cInt("Eligible instance types: requirements ∩ offered in the class's zones ∩ compatible with its network " +
					"spec and images. Karpenter's CreateFleet takes the first 60 of them (`launch_plan`)."),
				"first_instance_types": cStr("The first types Karpenter would send to CreateFleet, in its order (cheapest offering the pool " +
					"allows first, ties by name), each with that offering's hourly price (USD) and capacity type, and how many more of the (at most 60) " +
					"types of the launch there are. Exotic types (GPU, Neuron, metal) leave the launch while generic ones remain, as Karpenter filters them."),
				"cost": cStr("What the pool costs per hour at these prices: a static pool's `replicas` × the cheapest offering EC2 Fleet " +
					"would choose; a dynamic pool's nodes the `limits` allow at its cheapest type (e.g. `cpu 1000 → at most 250 × c5.xlarge, " +
					"42.50 USD/h on-demand`)."),
				"prices": cStr("Where the prices come from: the AWS Pricing API and EC2's spot price history, or Karpenter's embedded " +
					"on-demand table (its version and date) when the Pricing API cannot be read, as Karpenter falls back."),
				"max_pods_min": cInt("The smallest max pods (the kubelet's `maxPods`) of an eligible type."),
				"max_pods_max": cInt("The largest max pods of an eligible type."),
				"karpenter_disagrees": cInt("Eligible types where Karpenter would schedule against another pod count than the kubelet runs " +
					"with (e.g. prefix delegation without `kubelet.max_pods`); the pool then warns. `self.summary.karpenter_disagrees == 0` " +
					"is a plan-time postcondition."),
				"launch_templates": cInt("Launch template groups of the eligible types (one per max pods, interface layout and image): " +
					"a static pool's exist in EC2 (`launch_templates`); Karpenter builds a dynamic pool's itself."),
				"nodes_by_ips":    cInt("Nodes the free IPs of the pool's subnets can address at max pods (the sum over `zones`)."),
				"nodes_by_limits": cInt("Nodes the limits allow, counted with the smallest launchable type; null when no limit bounds nodes."),
				"node_overlays": cStr("The NodeOverlays (`node_overlays`) that change eligible types, heaviest first, each with its change and " +
					"the types it changes, e.g. `cheap-m5 (price -90%) on m5.large, m5.xlarge`; empty when none does."),
				"reservations": cStr("The class's capacity reservations and Capacity Blocks the pool launches into, in Karpenter's order " +
					"(a reserved offering is priced at its type's on-demand price / 10,000,000, so reservations come first, cheapest type " +
					"first), with the nodes each covers before the pool falls to on-demand or spot, and how the pool's other launches treat " +
					"open reservations under the `ReservedCapacity` feature gate; null when the class selects none. `reservations` has " +
					"the verdict on each."),
			}},
		"reservations": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Each capacity reservation or Capacity Block " +
			"the class selects (its `capacity_reservations`, counts as the class recorded them), in Karpenter's order: the nodes of the " +
			"pool it covers, or why the pool cannot launch into it. Null when the class selects none. Pass it to the " +
			"`karpenter_capacity_reservations` data source's `node_pools` to find reservations that sit idle but billed.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"id":                       cStr("Reservation id, `cr-…`."),
				"instance_type":            cStr("Its instance type."),
				"availability_zone":        cStr("Its zone."),
				"reservation_type":         cStr("`default` (an On-Demand Capacity Reservation) or `capacity-block`."),
				"available_instance_count": cInt("Its free instances as the class recorded them."),
				"nodes":                    cInt("Nodes of this pool it covers, counted in Karpenter's order within `limits` or `replicas`."),
				"reason": cStr("Why the pool cannot launch into it (null when it can): the ReservedCapacity gate, `reserved` not " +
					"allowed, the type not eligible, the zone not allowed, a Capacity Block not started or expiring, no free instance, " +
					"the limits already met by reservations before it, or the provider's own launcher."),
			}}},
		"zones": schema.MapNestedAttribute{Computed: true, MarkdownDescription: "Pool zones (the key), with the subnet Karpenter would launch into there.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"subnet_id": cStr("Chosen subnet: most free IPs, then id."),
				"nodes_by_ips": cInt("Nodes the free IPs of the zone's subnet (its count is in the class's `subnets`) can address at the max pods of its hungriest type (with custom networking, " +
					"the smaller of the node and pod subnets' bounds)."),
				"pod_subnet_id": cStr("Custom networking: the zone's pod subnet."),
			}}},
		"instance_types": cStrList("With `details`: the eligible instance types in Karpenter's launch order, cheapest offering first (null otherwise)."),
		"prices": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
			MarkdownDescription: "With `details`: per eligible type, the hourly price (USD) of its cheapest offering the pool allows, Karpenter's sort key (null otherwise)."},
		"workloads": schema.MapNestedAttribute{Optional: true, MarkdownDescription: "Deployments to fit into the pool, by a name of " +
			"yours: each pod's requests × `replicas`. The plan answers in `workload_fit` (and warns when one does not fit): which of the " +
			"pool's types would run it, on how many nodes, the addresses those nodes and pods take per zone, and whether the subnets and " +
			"`limits` hold them. Plan-time only: not part of the NodePool. See the pod-capacity guide for the rule.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"cpu":      optStr("CPU request of one pod, e.g. `500m`."),
				"memory":   optStr("Memory request of one pod, e.g. `1Gi`."),
				"replicas": schema.Int64Attribute{Required: true, MarkdownDescription: "Pods.", Validators: []validator.Int64{int64validator.AtLeast(0)}},
				"max_pods_per_node": schema.Int64Attribute{Optional: true, MarkdownDescription: "At most this many of its pods on one node " +
					"(e.g. a hostname spread); unset: no cap.", Validators: []validator.Int64{int64validator.AtLeast(1)}},
				"daemonset_pods": schema.Int64Attribute{Optional: true, MarkdownDescription: "Pods every node runs besides the workload, " +
					"aws-node and kube-proxy included (default 2: those two). They take pod slots and, unless on the host network, addresses.",
					Validators: []validator.Int64{int64validator.AtLeast(0)}},
				"resources": optMap("Extended resources one pod requests, e.g. `{ \"example.com/gpu-slice\" = \"1\" }`: only types that " +
					"carry them fit, as many pods per node as their capacity allows. A type carries what a NodeOverlay's `capacity` " +
					"gives it (`node_overlays`)."),
			}}},
	}
}

// poolDriftAttributes are node pool attributes of one group (nodePoolSchema).
func poolDriftAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"drift": schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "Dynamic pools: what Karpenter's drift controller will do " +
			"to the pool's running nodes once the planned change is applied (null for static pools, whose nodes the provider replaces " +
			"itself, see `nodes`). Recomputed when the NodePool or its node class changes; otherwise the last change's answer is kept.",
			Attributes: map[string]schema.Attribute{
				"nodepool_hash": cStr("Karpenter's `karpenter.sh/nodepool-hash` of the planned NodePool (`NodePool.Hash()`, " +
					"hash version v3 in every supported Karpenter version; v1.15's checked as far as its sources are available): nodes whose annotation differs drift (`NodePoolDrifted`). Requirements, limits, weight and " +
					"disruption are not in it."),
				"nodeclass_hash": cStr("Karpenter's `karpenter.k8s.aws/ec2nodeclass-hash` of the node class (`resolved.hash`, of the " +
					"hash version `karpenter_version` uses: v4 for 1.9–1.11, v5 for 1.12–1.14, v6 for 1.15; from v5 counted with the " +
					"provider's `cluster_certificate_authority_data`): nodes whose annotation differs drift (`NodeClassDrift`)."),
				"verdict": cStr("Which nodes the change drifts and why, e.g. `every node of the pool drifts: the NodePool template " +
					"changed (hash 1… → 2…)`, or `no drift: running nodes are kept` (limits, weight, budgets, a requirement that only widens). " +
					"Without a view of the cluster the verdict is per pool. Null for a new (or just imported) pool: no nodes, nothing to compare."),
				"reasons": cStrList("Karpenter's drift reasons the change trips: " + driftReasonsText() + ", in Karpenter's order of checks."),
				"pace": cStr("How fast the disruption budgets let Karpenter replace drifted nodes now and in the coming 7 days (UTC), " +
					"counted at the most nodes the pool's subnets and limits allow. Null with `verdict`."),
			}},
		"workload_fit": schema.MapNestedAttribute{Computed: true, MarkdownDescription: "Per `workloads` key, the answer.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"fits":          schema.BoolAttribute{Computed: true, MarkdownDescription: "The subnets and limits hold the workload's nodes and addresses."},
				"summary":       cStr("The answer in one line, with the numbers."),
				"instance_type": cStr("The type with the most pods per dollar among the launch plan's."),
				"capacity_type": cStr("Its cheapest allowed offering's capacity type."),
				"pods_per_node": cInt("Workload pods one node of that type holds."),
				"bound_by":      cStr("What bounds pods per node: `cpu`, `memory`, `max pods` or `max_pods_per_node`."),
				"nodes":         cInt("Nodes the workload takes."),
				"hourly_cost":   schema.Float64Attribute{Computed: true, MarkdownDescription: "Nodes × the type's hourly price (USD)."},
				"binding":       cStr("The constraint that fails worst or, when it fits, the one with the least headroom: a zone's IPs, a pod subnet's, or a limit."),
			}}},
		"min_values_policy": schema.StringAttribute{Optional: true, MarkdownDescription: "The min-values policy of the cluster's Karpenter " +
			"controller (`--min-values-policy`): `Strict` (Karpenter's default) fails the plan when the 60 cheapest eligible types, which " +
			"Karpenter sends to CreateFleet, miss a requirement's `min_values`; `BestEffort` warns instead, as that Karpenter launches anyway. " +
			"Not part of the NodePool.",
			Validators: []validator.String{stringvalidator.OneOf("Strict", "BestEffort")}},
	}
}

// poolDetailAttributes are node pool attributes of one group (nodePoolSchema).
func poolDetailAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"max_pods": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
			MarkdownDescription: "With `details`: max pods per eligible instance type, the kubelet's `maxPods` written into the user data (null otherwise)."},
		"karpenter_assumed_pods": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
			MarkdownDescription: "With `details`: the eligible types where Karpenter would schedule against another pod count than " +
				"`max_pods`, type → Karpenter's number (null otherwise; `summary.karpenter_disagrees` counts them)."},
		"launch_plan": computedList("With `details`: the CreateFleet overrides Karpenter would send (at most 60 instance types), grouped by "+
			"zone and capacity type: each group's subnet and the instance types offered there (null otherwise). Karpenter launches a dynamic "+
			"pool's nodes as one capacity type: `reserved` while a capacity reservation of the class takes the launch (the reserved types "+
			"alone, see `summary.reservations`), else spot when the pool allows it (no capacity-type requirement allows it) and a type of the "+
			"launch offers it, else on-demand, and sends only its overrides; a static pool's CreateFleet, the provider's own, offers every allowed one.", map[string]schema.Attribute{
			"zone": cStr("Zone."), "subnet_id": cStr("Subnet Karpenter would launch into in that zone."),
			"capacity_type":  cStr("`reserved`, `on-demand` or `spot`."),
			"instance_types": cStrList("Instance types of the overrides for this zone and capacity type."),
		}),
		"launch_templates": computedList("Launch template groups of the pool, one per (max pods, interface layout, image) group. A static "+
			"pool's exist in EC2 (the provider launches from them) and are always listed; a dynamic pool's are only planned, since "+
			"Karpenter builds its own launch templates from the EC2NodeClass, and are listed only with `details`, with null `id` and "+
			"`default_version`. Templates a dynamic pool's owner created in EC2 with earlier provider versions are listed by refresh "+
			"and deleted by the next apply.", map[string]schema.Attribute{
			"name":                cStr("Template name: `<cluster or karpenter>/<pool>/<hash>`."),
			"id":                  cStr("EC2 launch template id: static pools, known after apply; null for dynamic pools."),
			"default_version":     cInt("Default version number in EC2 (static pools, known after apply; null for dynamic pools); a content change writes a new version and makes it the default."),
			"max_pods":            cInt("Max pods of the group."),
			"instance_type_count": cInt("Instance types of the group."),
			"instance_types":      cStrList("With `details`: the instance types of the group."),
			"network_interfaces": computedList("With `details`: the interfaces in the template.", map[string]schema.Attribute{
				"network_card_index": cInt("Card."), "device_index": cInt("Device."),
				"interface_type":              cStr("`interface`, `efa` or `efa-only`."),
				"security_group_ids":          cStrList("Security groups."),
				"associate_public_ip_address": schema.BoolAttribute{Computed: true, MarkdownDescription: "Public IPv4."},
				"ipv4_prefix_count":           cInt("IPv4 prefixes."),
			}),
			"image_id":    cStr("The AMI of the group's instance types: the node class's first image (`amis`) that serves them. Null when the class's alias is left to Karpenter."),
			"user_data":   cStr("With `details`: the user data (plain text) that sets max pods for the AMI family."),
			"fingerprint": cStr("Hash of the template content; a change outside Terraform shows as a difference here."),
		}),
		"manifests": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "With `spread = \"zones\"`: " +
			"the NodePool YAML of each zone, by zone (apply each, e.g. `for_each = karpenter_node_pool.x.manifests` with " +
			"`kubernetes_manifest`). Null otherwise."},
		"manifest": cStr("Dynamic pools: YAML of the Karpenter v1 `NodePool`, `nodeClassRef` pointing at the node class, to apply to " +
			"the cluster (e.g. with `kubernetes_manifest`); Karpenter launches the nodes. With `launcher = \"karpenter\"` it carries " +
			"`spec.replicas`. Null for the provider's own static pools: the provider launches their nodes and Karpenter must not (a " +
			"NodePool with `replicas` would make it launch as many again); null with `spread = \"zones\"` too (`manifests`). Either way the " +
			"NodePool is rendered and validated at plan as the API server would (the CRD of the provider's `karpenter_version`: schema, " +
			"defaults, CEL rules) and as Karpenter's controller would (its runtime validation); a violation fails the plan on the " +
			"attribute that produced the field."),
		"owner_id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			MarkdownDescription: "Identifies this resource instance as the owner of the pool's EC2 objects: chosen at the first plan and written " +
				"as the `karpenter.nodeplane.io/owner` tag on every launch template and instance. The provider lists, adopts, changes and " +
				"deletes only objects with its own owner id, so another state's pool of the same name, or another cluster's, is never touched; " +
				"a plan for a pool name another owner already holds in the cluster fails and names the way to adopt it on purpose (import). " +
				"A dynamic pool holds no EC2 objects, so two dynamic pools of one name (in two states) cannot see each other in EC2; " +
				"they meet as one NodePool object in the cluster. A dynamic pool's plan still fails when another owner's objects hold the name."},
		"nodes": schema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: attrTypesOf(planner.Node{})},
			MarkdownDescription: "Static pools: the live instances (`instance_id`, `instance_type`, `zone`, `subnet_id`, `private_ip`, `capacity_type`, " +
				"`launch_template`, `template_fingerprint`, `state`, `in_planned_subnet`), found by their ownership tags, oldest first. An instance terminated or stopped " +
				"outside Terraform drops out, so the next plan shows the pool to be updated; a tagged instance missing from state is adopted. " +
				"`template_fingerprint` is the `fingerprint` of the template content the node was launched with: when a plan changes that content " +
				"(or the template is repaired after a change outside Terraform), the node has drifted, the plan warns, and apply launches a " +
				"replacement before terminating it, as Karpenter replaces drifted nodes."},
		"timeouts": timeouts.Attributes(context.Background(), timeouts.Opts{Create: true, Update: true, Delete: true}),
		"warnings": cStrList("The plan's warnings (also shown as Terraform warnings), e.g. subnets too small for the limits at max pod density."),
	}
}

// driftReasonsText lists Karpenter's drift reasons in its order of checks, for the schema.
func driftReasonsText() string {
	var names []string
	for _, c := range drift.Checks() {
		names = append(names, "`"+c.Reason+"`")
	}
	return strings.Join(names, ", ")
}
