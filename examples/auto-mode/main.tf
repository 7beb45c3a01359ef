# EKS Auto Mode against the seeded VPC (make seed): cluster my-cluster in ap-southeast-1, subnets
# in 1a, 1b and 1c tagged karpenter.sh/discovery = my-cluster. A custom Auto Mode NodeClass on
# those subnets and a pool on it, with the EKS user guide's sample requirements; the plan shows
# the subnets it resolved, the NodeClass and NodePool manifests, Auto Mode's max pods (at most
# 110) and the /28 prefixes a full node takes. Apply the manifests with kubernetes_manifest or
# kubectl_manifest (examples/composition shows how).
terraform {
  required_providers {
    karpenter = {
      source = "nodeplane/karpenter"
    }
  }
}

variable "cluster_name" {
  type    = string
  default = "my-cluster"
}

variable "region" {
  type    = string
  default = "ap-southeast-1"
}

# With lookup_cluster = true the provider also reads the cluster's computeConfig (an Auto Mode
# class on a cluster without Auto Mode fails the plan; a pool may not take a built-in pool's name)
# and checks the node role's EKS access entry. LocalStack serves no EKS, so the demo leaves it off.
provider "karpenter" {
  region       = var.region
  cluster_name = var.cluster_name
}

resource "karpenter_auto_mode_node_class" "private" {
  name = "private-compute"
  # Needs an EKS access entry of type EC2 with AmazonEKSAutoNodePolicy, or its nodes never join.
  role = "AmazonEKSAutoNodeRole"

  subnet_selector_terms         = [{ tags = { "karpenter.sh/discovery" = var.cluster_name } }]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = var.cluster_name } }]
  ephemeral_storage             = { size = "160Gi" }
  tags                          = { team = "platform" }
}

resource "karpenter_node_pool" "general" {
  name       = "general-compute"
  node_class = karpenter_auto_mode_node_class.private.resolved
  limits     = { cpu = "1000", memory = "1000Gi" }
  template = {
    labels = { billing-team = "my-team" }
    requirements = [
      { key = "eks.amazonaws.com/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "eks.amazonaws.com/instance-cpu", operator = "In", values = ["4", "8", "16", "32"] },
      { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
}

output "subnets" {
  description = "The node subnets the class's selectors hit, by id."
  value       = karpenter_auto_mode_node_class.private.subnets
}

output "pool" {
  description = "What Auto Mode launches for the pool: types, max pods, nodes by IPs and limits."
  value       = karpenter_node_pool.general.summary
}

output "manifests" {
  description = "The NodeClass and NodePool to apply to the cluster."
  value       = { node_class = karpenter_auto_mode_node_class.private.manifest, node_pool = karpenter_node_pool.general.manifest }
}
