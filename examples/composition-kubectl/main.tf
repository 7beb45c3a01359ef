# The composition example with kubectl_manifest (gavinbunney/kubectl) instead of
# kubernetes_manifest: the way many Karpenter users apply NodePools, because kubectl_manifest
# does not read the CRDs at plan time, so it plans in the same apply that installs Karpenter.
# The inputs are terraform-aws-eks outputs; the acceptance tests apply this example to a local
# API server.
terraform {
  required_providers {
    karpenter = { source = "nodeplane/karpenter" }
    kubectl   = { source = "gavinbunney/kubectl", version = ">= 1.19.0" }
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
  description = "A kubeconfig for the cluster (or configure the kubectl provider from the module.eks outputs, as below)"
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
# outputs instead (host, cluster_ca_certificate, exec with `aws eks get-token`).
provider "kubectl" {
  config_path      = var.kubeconfig_path
  load_config_file = true
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

# kubectl_manifest takes the YAML as it is: it plans before Karpenter's CRDs exist (the chart may
# be in this configuration: add depends_on = [helm_release.karpenter] to both resources so that
# destroy deletes the pools and classes while Karpenter still runs) and with a manifest unknown as
# a whole (a role created in the same apply).
resource "kubectl_manifest" "node_class" {
  yaml_body = module.nodes.node_class_manifest
}

resource "kubectl_manifest" "node_pool" {
  for_each  = module.nodes.node_pool_manifests
  yaml_body = each.value

  # Created after the class and deleted before it.
  depends_on = [kubectl_manifest.node_class]
}

output "objects" {
  description = "The objects on the API server, as kubectl names them."
  value = concat(
    ["ec2nodeclass.karpenter.k8s.aws/${kubectl_manifest.node_class.name}"],
    [for p in kubectl_manifest.node_pool : "nodepool.karpenter.sh/${p.name}"],
  )
}
