# Karpenter's default: subnets tagged for the cluster's discovery.
data "karpenter_subnets" "discovery" {
  selector_terms = [{ tags = { "karpenter.sh/discovery" = "my-cluster" } }]
}

# Terms are ORed; tags within a term are ANDed. "*" matches any value of a key, and
# wildcards inside values follow EC2 filter semantics.
data "karpenter_subnets" "private_or_pinned" {
  selector_terms = [
    { tags = { "karpenter.sh/discovery" = "my-cluster", Name = "*private*" } },
    { tags = { "kubernetes.io/role/internal-elb" = "*" } },
    { id = "subnet-0123456789abcdef0" },
  ]
}

output "zones" {
  value = data.karpenter_subnets.discovery.zones
}
