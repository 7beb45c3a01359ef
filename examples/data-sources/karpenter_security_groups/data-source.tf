data "karpenter_security_groups" "nodes" {
  selector_terms = [
    { tags = { "karpenter.sh/discovery" = "my-cluster" } },
    { name = "eks-cluster-sg-my-cluster-123456789" }, # the EC2 group name, not the Name tag
    { id = "sg-0123456789abcdef0" },
  ]
}

output "security_group_ids" {
  value = data.karpenter_security_groups.nodes.security_groups[*].id
}
