output "zones" {
  description = "Zones of the default class."
  value       = module.default.zones
}

output "manifests" {
  description = "Rendered Karpenter manifests, by object name."
  value = merge(
    { "ec2nodeclass-default" = module.default.node_class_manifest, "ec2nodeclass-efa" = module.efa.node_class_manifest, "ec2nodeclass-prefix" = module.prefix.node_class_manifest },
    { for k, v in module.default.node_pool_manifests : "nodepool-default-${k}" => v },
    { for k, v in module.efa.node_pool_manifests : "nodepool-efa-${k}" => v },
    { for k, v in module.prefix.node_pool_manifests : "nodepool-prefix-${k}" => v },
  )
}

locals {
  general  = module.default.summaries.general
  free_ips = { for s in module.default.subnets : s.id => s.available_ip_address_count }
}

output "summary" {
  description = "A readable summary: networking, pod capacity, launch plans, warnings."
  value = join("\n", concat(
    ["Cluster ${var.cluster_name} in ${var.region}", "", "Subnets of the default class (Karpenter's order):"],
    [for s in module.default.subnets : format("  %-16s %-26s %-15s %6d free IPs", s.zone, s.id, s.cidr_block, s.available_ip_address_count)],
    ["", "EFA class subnets (purpose = hpc):"],
    [for s in module.efa.subnets : format("  %-16s %-26s %6d free IPs", s.zone, s.id, s.available_ip_address_count)],
    ["", "AMIs of the default class (resolved at plan; each type launches with the first that serves it):"],
    [for a in module.default.amis.images : format("  %-22s %-6s %s", a.id, a.architecture, a.name)],
    module.default.amis.unresolved == null ? [] : ["  ${module.default.amis.unresolved}: left to Karpenter, which resolves the alias at runtime"],
    ["", "Pod capacity (max pods the kubelet gets; Karpenter's assumption in brackets when it differs):",
    format("  %-14s %-18s %-18s %-26s", "type", "secondary IPs", "prefix deleg.", "custom net. (reserved 1)")],
    [for t in local.capacity_types : format("  %-14s %-18s %-18s %-26s", t,
      tostring(data.karpenter_pod_capacity.secondary[t].max_pods),
      format("%d [%d]", data.karpenter_pod_capacity.prefix[t].max_pods, data.karpenter_pod_capacity.prefix[t].karpenter_assumed_pods),
    tostring(data.karpenter_pod_capacity.custom_networking[t].max_pods))],
    ["", "Pool ${var.name_prefix}default-general (its summary; details = true on the pool lists every type and the launch plan):",
      format("  %d eligible types; Karpenter launches the cheapest first: %s", local.general.instance_types, local.general.first_instance_types),
      format("  cost: %s", local.general.cost),
      format("  prices: %s", local.general.prices),
      format("  max pods %d to %d; %d launch template groups; Karpenter assumes other pod counts for %d types", local.general.max_pods_min,
      local.general.max_pods_max, local.general.launch_templates, local.general.karpenter_disagrees),
      format("  nodes: %d by free IPs, %s by limits", local.general.nodes_by_ips,
    local.general.nodes_by_limits == null ? "unbounded" : tostring(local.general.nodes_by_limits))],
    [for zone, z in module.default.pool_zones.general : format("  %-16s %-26s %6d free IPs, %4d nodes at max pods", zone, z.subnet_id,
    local.free_ips[z.subnet_id], z.nodes_by_ips)],
    ["", "Workload web on pool ${var.name_prefix}default-general:", "  ${module.default.workload_fits.general["web"].summary}"],
    ["", "EFA pool ${var.name_prefix}efa-training:"],
    [for lt in module.efa.launch_templates.training : format("  %-30s %2d EFA interfaces, %4d pods", join(",", lt.instance_types),
    length([for ni in lt.network_interfaces : ni if ni.interface_type != "interface"]), lt.max_pods)],
    ["", "Prefix-delegation pool ${var.name_prefix}prefix-dense:"],
    [for t in module.prefix.instance_types.dense : format("  %-14s %4d pods (Karpenter assumes %d)", t, module.prefix.max_pods.dense[t],
    lookup(module.prefix.karpenter_assumed_pods.dense, t, module.prefix.max_pods.dense[t]))],
    ["", "Warnings:"],
    [for w in distinct(flatten([values(module.default.warnings), values(module.efa.warnings), values(module.prefix.warnings)])) : "  - ${w}"],
  ))
}
