# Addresses one EKS Auto Mode m5.large node with 40 pods holds: 3 /28 prefixes on the primary
# ENI, { node_subnet = 49, pod_subnet = 0, prefixes = 3 }.
output "m5_large_auto_mode_ips" {
  value = provider::karpenter::auto_mode_ips_per_node("m5.large", {}, 40)
}

# The free /28 blocks ten full nodes need in the pod subnets.
output "pod_subnet_28s_for_ten_nodes" {
  value = 10 * provider::karpenter::auto_mode_ips_per_node("m5.large", { pod_subnets = true }, 110).prefixes
}
