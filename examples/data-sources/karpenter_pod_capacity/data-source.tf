# Pod capacity of m5.large with the defaults (AL2023, secondary IPs): 29 pods, as in
# eni-max-pods.txt, and Karpenter agrees.
data "karpenter_pod_capacity" "m5_large" {
  instance_type = "m5.large"
}

# VPC CNI custom networking: the primary ENI carries no pods, so the kubelet runs 20.
# Without reserved_enis = 1 Karpenter would still assume 29; `consistent` and `reason`
# say so.
data "karpenter_pod_capacity" "custom_networking" {
  instance_type     = "m5.large"
  custom_networking = true
  reserved_enis     = 1
}

# Prefix delegation: Karpenter does not model it, so pin the kubelet's max pods to what
# the EKS calculator gives (110 here).
data "karpenter_pod_capacity" "prefix_delegation" {
  instance_type     = "m5.large"
  prefix_delegation = true
}

# An EFA layout on p5.48xlarge: the primary interface, an efa-only interface on card 0
# and on device 0 of cards 1..31. 32 EFA devices, 51 pods.
data "karpenter_pod_capacity" "p5_efa" {
  instance_type = "p5.48xlarge"
  network_interfaces = concat(
    [
      { network_card_index = 0, device_index = 0, interface_type = "interface" },
      { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
    ],
    [for c in range(1, 32) : { network_card_index = c, device_index = 0, interface_type = "efa-only" }],
  )
}

output "m5_large_pods" {
  value = data.karpenter_pod_capacity.m5_large.max_pods
}

output "prefix_delegation_kubelet_max_pods" {
  # Use this as the node class's kubelet max_pods so Karpenter and the kubelet agree.
  value = data.karpenter_pod_capacity.prefix_delegation.max_pods
}

output "p5_efa" {
  value = {
    pods = data.karpenter_pod_capacity.p5_efa.max_pods
    efa  = data.karpenter_pod_capacity.p5_efa.efa_interfaces
  }
}

# An EKS Auto Mode NodeClass: its own networking, not the VPC CNI. /28 prefixes by default:
# 3 x (10 - 1) x 16 + 2 = 434, capped at 110; a full node takes 7 /28 blocks.
data "karpenter_pod_capacity" "auto_mode" {
  instance_type = "m5.large"
  auto_mode     = {}
}

# Auto Mode with pod subnets (podSubnetSelectorTerms) and secondary IPs only: the primary
# ENI keeps the node's address, (3 - 1) x 9 + 2 = 20 pods.
data "karpenter_pod_capacity" "auto_mode_pod_subnets" {
  instance_type = "m5.large"
  auto_mode = {
    ipv4_prefix_size = "32"
    pod_subnets      = true
  }
}

output "auto_mode" {
  value = {
    pods          = data.karpenter_pod_capacity.auto_mode.max_pods
    free_28s_each = data.karpenter_pod_capacity.auto_mode.prefixes_at_max_pods
    pod_subnets   = data.karpenter_pod_capacity.auto_mode_pod_subnets.max_pods
  }
}
