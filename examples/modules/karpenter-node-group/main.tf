# A node class and one pool per entry of var.pools: the unit a platform team hands to each
# workload, with the rendered manifests as outputs for a Kubernetes module.
terraform {
  required_providers {
    karpenter = {
      source = "nodeplane/karpenter"
    }
  }
}

variable "name" {
  description = "Node class name (and prefix of the pool names)."
  type        = string
}

variable "role" {
  description = "IAM role of the nodes."
  type        = string
}

variable "subnet_tags" {
  description = "Subnet selector tags; null uses the provider's cluster discovery tag."
  type        = map(string)
  default     = null
}

variable "efa" {
  description = "Attach EFA interfaces on every network card."
  type        = bool
  default     = false
}

variable "prefix_delegation" {
  description = "The VPC CNI runs with prefix delegation."
  type        = bool
  default     = false
}

variable "pools" {
  description = "Pools on this class: name => { zones, requirements, limits, details, workloads }."
  type = map(object({
    zones = optional(list(string))
    requirements = optional(list(object({
      key        = string
      operator   = string
      values     = optional(list(string))
      min_values = optional(number)
    })), [])
    limits = optional(map(string))
    # Fill the pool's per-type attributes (instance_types, max_pods, launch_plan, the launch
    # templates); without it the pool shows its summary and zones.
    details = optional(bool)
    # Deployments to fit into the pool: name => pod requests x replicas (see workload_fits).
    workloads = optional(map(object({
      cpu               = optional(string)
      memory            = optional(string)
      replicas          = number
      max_pods_per_node = optional(number)
      daemonset_pods    = optional(number)
    })))
  }))
}

resource "karpenter_node_class" "this" {
  name                  = var.name
  role                  = var.role
  ami_selector_terms    = [{ alias = "al2023@latest" }]
  subnet_selector_terms = var.subnet_tags == null ? null : [{ tags = var.subnet_tags }]
  efa                   = var.efa
  networking            = { prefix_delegation = var.prefix_delegation }
}

resource "karpenter_node_pool" "this" {
  for_each   = var.pools
  name       = "${var.name}-${each.key}"
  node_class = karpenter_node_class.this.resolved
  template = {
    requirements = concat(
      each.value.zones == null ? [] : [{ key = "topology.kubernetes.io/zone", operator = "In", values = each.value.zones, min_values = null }],
      each.value.requirements,
    )
  }
  limits    = each.value.limits
  details   = each.value.details
  workloads = each.value.workloads
}

output "zones" {
  description = "Zones the class resolves to."
  value       = karpenter_node_class.this.zones
}

output "subnets" {
  description = "Resolved subnets in Karpenter's order."
  value       = karpenter_node_class.this.subnets
}

output "amis" {
  description = "The images the class's AMI terms resolve to at plan, and why an alias was left to Karpenter (null when it was not)."
  value = {
    images     = karpenter_node_class.this.amis
    unresolved = karpenter_node_class.this.resolved.ami_unresolved
  }
}

output "node_class_manifest" {
  description = "EC2NodeClass YAML, for kubernetes_manifest via yamldecode."
  value       = karpenter_node_class.this.manifest
}

output "node_class_manifest_object" {
  description = "The EC2NodeClass as an object, for kubernetes_manifest's manifest as is: while the role is known only after apply, only spec.role is unknown in it."
  value       = karpenter_node_class.this.manifest_object
}

output "node_pool_manifests" {
  description = "NodePool YAML per pool (pools with a manifest: static pools have none)."
  value       = { for k, p in karpenter_node_pool.this : k => p.manifest if p.manifest != null }
}

output "summaries" {
  description = "Per pool: eligible types (count and the first few in Karpenter's price order), cost, max pods range, launch template groups, nodes by free IPs and by limits."
  value       = { for k, p in karpenter_node_pool.this : k => p.summary }
}

output "workload_fits" {
  description = "Per pool with workloads: name => whether it fits, the type, nodes, cost and the binding constraint."
  value       = { for k, p in karpenter_node_pool.this : k => p.workload_fit }
}

output "pool_zones" {
  description = "Per pool: zone => the subnet Karpenter would launch into and the nodes its free IPs address at max pods."
  value       = { for k, p in karpenter_node_pool.this : k => p.zones }
}

output "launch_plans" {
  description = "Per pool with details: the CreateFleet overrides Karpenter would use, by zone and capacity type (null without details)."
  value       = { for k, p in karpenter_node_pool.this : k => p.launch_plan }
}

output "instance_types" {
  description = "Per pool with details: eligible instance types, in launch order (null without details)."
  value       = { for k, p in karpenter_node_pool.this : k => p.instance_types }
}

output "max_pods" {
  description = "Per pool with details: max pods per eligible instance type (null without details)."
  value       = { for k, p in karpenter_node_pool.this : k => p.max_pods }
}

output "karpenter_assumed_pods" {
  description = "Per pool with details: the types where Karpenter assumes another pod count than max_pods (empty when they agree, null without details)."
  value       = { for k, p in karpenter_node_pool.this : k => p.karpenter_assumed_pods }
}

output "launch_templates" {
  description = "Per pool with details: launch template groups (max pods, instance types, network interfaces; null without details)."
  value       = { for k, p in karpenter_node_pool.this : k => p.launch_templates }
}

output "warnings" {
  description = "Per pool: plan warnings (e.g. subnets too small for the limits)."
  value       = { for k, p in karpenter_node_pool.this : k => p.warnings }
}
