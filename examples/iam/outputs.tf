output "policies" {
  description = "Capability → the filled policy document (JSON), ready for aws_iam_policy's policy."
  value       = local.policies
}
