# A custom EKS Auto Mode NodeClass: private subnets for nodes, pods in subnets of their own, and a
# larger, customer-key encrypted ephemeral volume. The role needs an EKS access entry of type EC2
# with the AmazonEKSAutoNodePolicy access policy, or its nodes never join.
resource "karpenter_auto_mode_node_class" "private_compute" {
  name = "private-compute"
  role = "AmazonEKSAutoNodeRole"

  subnet_selector_terms             = [{ tags = { "kubernetes.io/role/internal-elb" = "1" } }]
  security_group_selector_terms     = [{ tags = { "aws:eks:cluster-name" = "my-cluster" } }]
  pod_subnet_selector_terms         = [{ tags = { "kubernetes.io/role/pod" = "1" } }]
  pod_security_group_selector_terms = [{ tags = { Name = "eks-pod-sg" } }]

  snat_policy    = "Random"
  network_policy = "DefaultAllow"
  ephemeral_storage = {
    size       = "160Gi"
    iops       = 3000
    throughput = 125
    kms_key_id = "alias/eks-node-volumes"
  }
  advanced_networking = { ipv4_prefix_size = "Auto" }
  tags                = { team = "platform" }
}

# A pool on it selects with Auto Mode's labels; its plan counts Auto Mode's max pods (at most 110)
# and the /28 prefixes its nodes take from the pod subnets.
resource "karpenter_node_pool" "general" {
  name       = "general"
  node_class = karpenter_auto_mode_node_class.private_compute.resolved
  limits     = { cpu = "200" }
  template = {
    requirements = [
      { key = "eks.amazonaws.com/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "eks.amazonaws.com/instance-generation", operator = "Gt", values = ["4"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
}

# The cluster applies the manifests; the provider only plans them.
output "node_class_manifest" {
  value = karpenter_auto_mode_node_class.private_compute.manifest
}
