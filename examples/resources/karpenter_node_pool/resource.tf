resource "karpenter_node_class" "default" {
  name               = "default"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

# The tutorial's general-purpose pool, limited to two zones.
resource "karpenter_node_pool" "general" {
  name       = "general"
  node_class = karpenter_node_class.default.resolved
  # The NodePool object's own metadata (its nodes' labels are template.labels).
  metadata = {
    annotations = { "kubernetes.io/description" = "General purpose nodes for the web tier" }
  }

  template = {
    labels = { workload = "general" }
    requirements = [
      { key = "topology.kubernetes.io/zone", operator = "In", values = ["ap-southeast-1a", "ap-southeast-1b"] },
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["2"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
    expire_after = "720h"
  }
  limits = { cpu = "1000", memory = "1000Gi" }
  disruption = {
    consolidation_policy = "WhenEmptyOrUnderutilized"
    consolidate_after    = "30s"
  }

  # The deployments this pool is for: the plan says which type runs each, on how many nodes,
  # and whether the subnets' free IPs and the limits hold them (workload_fit).
  workloads = {
    web = { cpu = "500m", memory = "1Gi", replicas = 300 }
  }

  lifecycle {
    postcondition {
      condition     = self.workload_fit["web"].fits
      error_message = self.workload_fit["web"].summary
    }
  }
}

# What the plan comes to, in a few lines: the first types Karpenter would launch, cheapest first
# with their hourly price, the cost the limits allow, their max pods, the launch template groups,
# and the nodes the free IPs and the limits allow.
# Set `details = true` on the pool for every type's max pods, the launch plan and the templates.
output "summary" {
  value = karpenter_node_pool.general.summary
}

# The web deployment's answer, e.g. "300 pods of 500m/1Gi → 100 × c6a.large (on-demand, 3 pods
# each, bound by cpu), 7.65 USD/h; fits, tightest: ...".
output "web_fit" {
  value = karpenter_node_pool.general.workload_fit["web"].summary
}

# Per zone: the subnet Karpenter would launch into, and the nodes its free IPs address.
output "zones" {
  value = { for zone, z in karpenter_node_pool.general.zones : zone => "${z.subnet_id}: ${z.nodes_by_ips} nodes by free IPs" }
}
