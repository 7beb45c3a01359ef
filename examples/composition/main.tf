# The node classes and pools of a cluster made by terraform-aws-eks, composed with the cluster:
# this provider plans them against EC2 and renders the Karpenter objects, and kubernetes_manifest
# (hashicorp/kubernetes) creates them on the API server. The inputs are terraform-aws-eks outputs;
# `make demo` applies this example to a local API server, and the acceptance tests apply it too.
terraform {
  required_providers {
    karpenter  = { source = "nodeplane/karpenter" }
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}

variable "cluster_name" {
  description = "module.eks.cluster_name"
  type        = string
}

variable "cluster_endpoint" {
  description = "module.eks.cluster_endpoint (written into the nodes' user data)"
  type        = string
}

variable "cluster_certificate_authority_data" {
  description = "module.eks.cluster_certificate_authority_data"
  type        = string
}

variable "cluster_service_cidr" {
  description = "module.eks.cluster_service_cidr"
  type        = string
}

variable "node_iam_role_name" {
  description = "module.karpenter.node_iam_role_name: the role of terraform-aws-eks's karpenter submodule (it may be created in the same apply)"
  type        = string
}

variable "kubeconfig_path" {
  description = "A kubeconfig for the cluster (or configure the kubernetes provider from the module.eks outputs, as below)"
  type        = string
}

variable "name" {
  description = "Name of the node class; its pools are named <name>-<pool>"
  type        = string
  default     = "default"
}

variable "instance_categories" {
  description = "Instance categories of the general pool"
  type        = list(string)
  default     = ["c", "m", "r"]
}

provider "karpenter" {
  cluster_name                       = var.cluster_name
  cluster_endpoint                   = var.cluster_endpoint
  cluster_certificate_authority_data = var.cluster_certificate_authority_data
  cluster_service_cidr               = var.cluster_service_cidr
}

# With terraform-aws-eks in the same configuration, the provider usually reads the cluster's
# outputs instead:
#   host                   = module.eks.cluster_endpoint
#   cluster_ca_certificate = base64decode(module.eks.cluster_certificate_authority_data)
#   exec { api_version = "client.authentication.k8s.io/v1beta1", command = "aws",
#          args = ["eks", "get-token", "--cluster-name", module.eks.cluster_name] }
provider "kubernetes" {
  config_path = var.kubeconfig_path
}

module "nodes" {
  source = "../modules/karpenter-node-group"
  name   = var.name
  role   = var.node_iam_role_name
  pools = {
    general = {
      requirements = [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = var.instance_categories },
        { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
      ]
      limits = { cpu = "1000", memory = "1000Gi" }
    }
  }
}

# The EC2NodeClass as an object: with the role created in the same apply only spec.role is
# unknown at plan, which kubernetes_manifest can plan (yamldecode of the YAML could not).
# Karpenter's CRDs must exist when this is planned: install the karpenter-crd chart in an earlier
# apply (or another configuration). When the chart is in this configuration, add
# depends_on = [helm_release.karpenter] to both resources, so that destroy deletes the pools and
# classes while Karpenter still runs to drain and terminate their nodes, and the chart after them.
resource "kubernetes_manifest" "node_class" {
  manifest = module.nodes.node_class_manifest_object

  # Terraform owns these objects: apply takes back a field edited in the cluster (the edit shows
  # in the next plan) instead of failing with a field-manager conflict.
  field_manager {
    force_conflicts = true
  }
}

resource "kubernetes_manifest" "node_pool" {
  for_each = module.nodes.node_pool_manifests
  manifest = yamldecode(each.value)

  field_manager {
    force_conflicts = true
  }

  # Created after the class and deleted before it.
  depends_on = [kubernetes_manifest.node_class]
}

output "objects" {
  description = "The objects on the API server, as kubectl names them."
  value = concat(
    ["ec2nodeclass.karpenter.k8s.aws/${kubernetes_manifest.node_class.manifest.metadata.name}"],
    [for p in kubernetes_manifest.node_pool : "nodepool.karpenter.sh/${p.manifest.metadata.name}"],
  )
}
