# The tutorial's scenario against the seeded VPC (make seed): cluster my-cluster in
# ap-southeast-1, subnets and a security group discovered by the karpenter.sh/discovery tag.
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

# Credentials and the LocalStack endpoint come from the standard AWS variables
# (make demo sets AWS_ENDPOINT_URL=http://127.0.0.1:4566).
provider "karpenter" {
  region       = var.region
  cluster_name = var.cluster_name
}

# Karpenter's default discovery: every subnet tagged for the cluster.
data "karpenter_subnets" "discovered" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = var.cluster_name } }]
}

# The HPC subnets of the EFA section: discovery tag AND purpose = hpc.
data "karpenter_subnets" "hpc" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = var.cluster_name, purpose = "hpc" } }]
}

data "karpenter_security_groups" "discovered" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = var.cluster_name } }]
}
