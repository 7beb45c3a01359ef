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
