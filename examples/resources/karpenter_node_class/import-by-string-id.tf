# Adopt a running EC2NodeClass by its name; with the provider's `kubernetes` access,
# `terraform plan -generate-config-out=generated.tf` writes its configuration and the import
# changes nothing (the plan shows only the import).
import {
  to = karpenter_node_class.default
  id = "default"
}
