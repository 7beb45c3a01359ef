# The instance types a NodePool's requirements allow, in the zones of its subnets, with
# their pod capacity under the node class's CNI settings.
data "karpenter_instance_types" "general" {
  requirements = [
    { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
    { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["4"] },
    { key = "karpenter.k8s.aws/instance-cpu", operator = "Lte", values = ["16"] },
    { key = "kubernetes.io/arch", operator = "In", values = ["amd64", "arm64"] },
    { key = "karpenter.sh/capacity-type", operator = "In", values = ["spot", "on-demand"] },
    # Fail the read unless at least 5 instance families remain (Karpenter's minValues).
    { key = "karpenter.k8s.aws/instance-family", operator = "Exists", min_values = 5 },
  ]
  zones = ["ap-southeast-1a", "ap-southeast-1b"]

  # Same CNI inputs as karpenter_pod_capacity. On Xen types the VPC CNI falls back to
  # secondary IPs, and so do their counts (with a warning).
  prefix_delegation = true
}

# GPU types with a single NVIDIA GPU kind.
data "karpenter_instance_types" "gpu" {
  requirements = [
    { key = "karpenter.k8s.aws/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
    { key = "karpenter.k8s.aws/instance-gpu-count", operator = "Gte", values = ["1"] },
  ]
}

output "general_names" {
  value = data.karpenter_instance_types.general.names
}

output "smallest_max_pods" {
  value = min([for t in data.karpenter_instance_types.general.instance_types : t.max_pods]...)
}

output "gpu_types" {
  value = { for t in data.karpenter_instance_types.gpu.instance_types : t.name => t.labels["karpenter.k8s.aws/instance-gpu-name"] }
}
