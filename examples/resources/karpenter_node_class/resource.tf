# Karpenter's default node class: subnets and security groups found by the provider's
# cluster_name discovery tag (karpenter.sh/discovery = <cluster_name>), resolved at plan time.
resource "karpenter_node_class" "default" {
  name               = "default"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

# An EFA class on the HPC subnets, with prefix delegation and a bigger root volume.
resource "karpenter_node_class" "efa" {
  name               = "efa"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  subnet_selector_terms = [
    { tags = { "karpenter.sh/discovery" = "my-cluster", purpose = "hpc" } },
  ]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = "my-cluster" } }]
  efa                           = true

  networking = {
    prefix_delegation = true
  }
  block_device_mappings = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "200Gi", volume_type = "gp3", encrypted = true, delete_on_termination = true }
  }]
  tags = { team = "ml" }
}

# Hand the rendered EC2NodeClass to Kubernetes:
#   resource "kubernetes_manifest" "default" { manifest = yamldecode(karpenter_node_class.default.manifest) }
output "zones" {
  value = karpenter_node_class.default.zones
}
