# The provider's IAM policies, one per capability, filled in for one cluster. The documents are
# the *.json files next to this module (written by cmd/gen-iam-policy from the provider's
# permissions table); this module fills their placeholders and leaves out what an empty list
# leaves without a resource (PassNodeRoles without node roles, for instance).
#
#   data "aws_partition" "current" {}
#   data "aws_caller_identity" "current" {}
#   data "aws_region" "current" {}
#
#   module "karpenter_provider_iam" {
#     source         = "./iam" # a copy of examples/iam
#     partition      = data.aws_partition.current.partition
#     account_id     = data.aws_caller_identity.current.account_id
#     region         = data.aws_region.current.name
#     cluster_name   = "my-cluster"
#     node_role_arns = [aws_iam_role.nodes.arn]
#     capabilities   = ["plan", "prices", "instance-profiles", "static-pools", "identity"]
#   }
#
#   resource "aws_iam_policy" "karpenter_provider" {
#     for_each = module.karpenter_provider_iam.policies
#     name     = "karpenter-provider-${each.key}"
#     policy   = each.value
#   }

locals {
  all_capabilities = toset([for f in fileset(path.module, "*.json") : trimsuffix(f, ".json")])
  capabilities     = var.capabilities == null ? local.all_capabilities : toset(var.capabilities)

  # A list placeholder stands alone in a JSON array ("${NodeRoleArns}"): joined with `", "` it
  # becomes one array element per value, and an empty list one "" element, dropped below.
  values = {
    Partition        = var.partition
    AccountId        = var.account_id
    Region           = var.region
    ClusterName      = var.cluster_name
    OwnerId          = join("\", \"", var.owner_ids)
    NodeRoleArns     = join("\", \"", var.node_role_arns)
    SsmParameterArns = join("\", \"", var.ssm_parameter_arns)
  }

  filled = { for c in local.capabilities : c => jsondecode(templatefile("${path.module}/${c}.json", local.values)) }

  policies = { for c, doc in local.filled : c => jsonencode({
    Version = doc.Version
    Statement = [
      for s in doc.Statement : merge(s, { Resource = [for r in s.Resource : r if r != ""] })
      if length([for r in s.Resource : r if r != ""]) > 0
    ]
  }) }
}
