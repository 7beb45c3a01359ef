# Real AWS: region and credentials from the standard sources (AWS_PROFILE, SSO, instance role…).
provider "karpenter" {
  region       = "eu-west-1"
  cluster_name = "my-cluster"
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
