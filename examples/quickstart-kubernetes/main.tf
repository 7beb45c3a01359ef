# The second step of the quickstart: the Karpenter objects examples/quickstart rendered, created on
# a Kubernetes API server through kubernetes_manifest. `make demo` applies it to the local API
# server of `make k8s-up` (Karpenter's CRDs installed, no controller: the objects are stored and
# validated, nothing launches). It reads the quickstart's outputs from its state file.
terraform {
  required_providers {
    kubernetes = { source = "hashicorp/kubernetes" }
  }
}

variable "kubeconfig_path" {
  description = "A kubeconfig for the cluster"
  type        = string
}

variable "quickstart_state" {
  description = "The state file of examples/quickstart"
  type        = string
  default     = "../quickstart/terraform.tfstate"
}

provider "kubernetes" {
  config_path = var.kubeconfig_path
}

data "terraform_remote_state" "quickstart" {
  backend = "local"
  config  = { path = var.quickstart_state }
}

locals {
  # Static pools (replicas) have no NodePool: the provider launches their nodes itself.
  objects = { for name, doc in data.terraform_remote_state.quickstart.outputs.manifests : name => yamldecode(doc) if doc != null }
}

resource "kubernetes_manifest" "node_class" {
  for_each = { for name, obj in local.objects : name => obj if obj.kind == "EC2NodeClass" }
  manifest = each.value

  field_manager {
    force_conflicts = true
  }
}

resource "kubernetes_manifest" "node_pool" {
  for_each = { for name, obj in local.objects : name => obj if obj.kind == "NodePool" }
  manifest = each.value

  field_manager {
    force_conflicts = true
  }

  # Created after the classes and deleted before them.
  depends_on = [kubernetes_manifest.node_class]
}
