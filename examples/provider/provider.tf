# Real AWS: region and credentials from the standard sources (AWS_PROFILE, SSO, instance role…).
# The cluster facts go into the nodes' user data; static pools (replicas) need them to join.
provider "karpenter" {
  region                             = "eu-west-1"
  cluster_name                       = module.eks.cluster_name
  cluster_endpoint                   = module.eks.cluster_endpoint
  cluster_certificate_authority_data = module.eks.cluster_certificate_authority_data
  cluster_service_cidr               = module.eks.cluster_service_cidr
}

# Or let the provider read those facts (and kubernetes_version) with eks:DescribeCluster.
provider "karpenter" {
  alias          = "lookup"
  region         = "eu-west-1"
  cluster_name   = "my-cluster"
  lookup_cluster = true
}

# LocalStack (or any EC2-compatible endpoint).
provider "karpenter" {
  alias      = "local"
  region     = "ap-southeast-1"
  access_key = "test"
  secret_key = "test"
  endpoints = {
    ec2 = "http://127.0.0.1:4566"
    sts = "http://127.0.0.1:4566"
    ssm = "http://127.0.0.1:4566"
    iam = "http://127.0.0.1:4566"
  }
  cluster_name = "my-cluster"
}

# CI runner: keep the instance-type catalog next to the workspace for six hours (default: the
# user's cache directory, one hour; ttl = "0s" reads EC2 in every provider process).
provider "karpenter" {
  alias        = "ci"
  region       = "eu-west-1"
  cluster_name = "my-cluster"
  catalog_cache = {
    directory = ".terraform/karpenter-catalog"
    ttl       = "6h"
  }
}
