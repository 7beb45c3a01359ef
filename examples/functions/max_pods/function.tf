# The kubelet max pods of m5.large under the VPC CNI's defaults (29) and with prefix delegation (110).
output "m5_large_max_pods" {
  value = provider::karpenter::max_pods("m5.large", {})
}

output "m5_large_max_pods_prefix_delegation" {
  value = provider::karpenter::max_pods("m5.large", { prefix_delegation = true })
}

# A module input checked against the instance type it will run on.
variable "pods_per_node" {
  type    = number
  default = 100

  validation {
    condition     = var.pods_per_node <= provider::karpenter::max_pods("m5.xlarge", { prefix_delegation = true })
    error_message = "m5.xlarge nodes cannot run that many pods."
  }
}
