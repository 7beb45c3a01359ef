output "zones" {
  description = "Zones Karpenter can launch into with the discovered subnets."
  value       = data.karpenter_subnets.discovered.zones
}

output "subnets" {
  description = "Discovered subnets in Karpenter's order (most free IPs first)."
  value = [for s in data.karpenter_subnets.discovered.subnets : {
    id       = s.id
    zone     = s.zone
    cidr     = s.cidr_block
    free_ips = s.available_ip_address_count
  }]
}

output "hpc_subnets" {
  description = "Subnets tagged purpose = hpc."
  value       = [for s in data.karpenter_subnets.hpc.subnets : "${s.id} (${s.zone})"]
}

output "security_groups" {
  description = "Discovered security groups."
  value       = [for g in data.karpenter_security_groups.discovered.security_groups : "${g.id} (${g.name})"]
}

output "summary" {
  description = "A readable summary of the discovered networking."
  value = join("\n", concat(
    ["Discovered networking for cluster ${var.cluster_name} in ${var.region}", "", "Subnets (Karpenter's order):"],
    [for s in data.karpenter_subnets.discovered.subnets :
    format("  %-16s %-26s %-15s %6d free IPs%s", s.zone, s.id, s.cidr_block, s.available_ip_address_count, lookup(s.tags, "purpose", "") == "" ? "" : "  purpose=${s.tags["purpose"]}")],
    ["", "Security groups:"],
    [for g in data.karpenter_security_groups.discovered.security_groups : format("  %-26s %s", g.id, g.name)],
  ))
}
