# Addresses one m5.large node with 29 pods holds: { node_subnet = 30, pod_subnet = 0 }.
output "m5_large_ips" {
  value = provider::karpenter::ips_per_node("m5.large", {}, 29)
}

# Node-subnet addresses ten m5.large nodes of 20 pods each take, warm ENIs included.
locals {
  node_ips = provider::karpenter::ips_per_node("m5.large", {}, 20).node_subnet
}

output "node_subnet_ips_for_ten_nodes" {
  value = 10 * local.node_ips
}
