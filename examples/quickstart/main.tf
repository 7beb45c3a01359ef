# The tutorial end to end against the seeded VPC (make seed): cluster my-cluster in
# ap-southeast-1, subnets in 1a, 1b and 1c tagged karpenter.sh/discovery = my-cluster, the 1a
# one also purpose = hpc.
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

# Prefix of the node class and pool names: copies of this configuration in one cluster (make demo
# passes demo-<id>- per checkout) keep their instance profiles, launch templates and Kubernetes
# objects apart.
variable "name_prefix" {
  type    = string
  default = ""
}

# Credentials and the LocalStack endpoint come from the standard AWS variables
# (make demo sets AWS_ENDPOINT_URL=http://127.0.0.1:4566).
# kubernetes_version lets node classes resolve the al2023@latest alias at plan; LocalStack
# cannot serve AWS's public /aws/service/... parameters, so the demo shows one warning: the alias
# is left to Karpenter.
provider "karpenter" {
  region             = var.region
  cluster_name       = var.cluster_name
  kubernetes_version = "1.33"
}

# 1. The default class (discovery tag) and the general pool limited to two zones.
module "default" {
  source = "../modules/karpenter-node-group"
  name   = "${var.name_prefix}default"
  role   = "KarpenterNodeRole-${var.cluster_name}"
  pools = {
    general = {
      zones = ["${var.region}a", "${var.region}b"]
      requirements = [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
        { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["5"] },
        { key = "karpenter.k8s.aws/instance-size", operator = "In", values = ["large", "xlarge", "2xlarge"] },
        { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
        # Karpenter v1 has no default capacity type: without this it launches spot first (the plan warns).
        { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
      ]
      limits = { cpu = "1000", memory = "1000Gi" }
      # The tutorial's question for a real deployment: do 400 pods of 500m / 1Gi fit the subnets?
      workloads = {
        web = { cpu = "500m", memory = "1Gi", replicas = 400 }
      }
    }
  }
}

# 2. The EFA class on the purpose = hpc subnets, with an EFA pool.
module "efa" {
  source      = "../modules/karpenter-node-group"
  name        = "${var.name_prefix}efa"
  role        = "KarpenterNodeRole-${var.cluster_name}"
  subnet_tags = { "karpenter.sh/discovery" = var.cluster_name, purpose = "hpc" }
  efa         = true
  pools = {
    training = {
      requirements = [
        { key = "node.kubernetes.io/instance-type", operator = "In", values = ["c5n.18xlarge", "c6in.32xlarge", "p4de.24xlarge"] },
        { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
      ]
      limits  = { nodes = "4" }
      details = true # the summary prints each launch template's EFA interfaces
    }
  }
}

# 3. Prefix delegation beside secondary IPs: the same pool on both CNI modes.
module "prefix" {
  source            = "../modules/karpenter-node-group"
  name              = "${var.name_prefix}prefix"
  role              = "KarpenterNodeRole-${var.cluster_name}"
  prefix_delegation = true
  pools = {
    dense = {
      requirements = [
        { key = "node.kubernetes.io/instance-type", operator = "In", values = ["m5.large", "m5.xlarge", "c5.18xlarge"] },
        { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
      ]
      limits  = { nodes = "60" }
      details = true # the summary prints each type's max pods beside Karpenter's assumption
    }
  }
}

# Pod capacity per CNI mode for a few types.
locals {
  capacity_types = ["t3.micro", "m5.large", "m5.xlarge", "c5.18xlarge", "p5.48xlarge"]
}

data "karpenter_pod_capacity" "secondary" {
  for_each      = toset(local.capacity_types)
  instance_type = each.key
}

data "karpenter_pod_capacity" "prefix" {
  for_each          = toset(local.capacity_types)
  instance_type     = each.key
  prefix_delegation = true
}

data "karpenter_pod_capacity" "custom_networking" {
  for_each          = toset(local.capacity_types)
  instance_type     = each.key
  custom_networking = true
  reserved_enis     = 1
}
