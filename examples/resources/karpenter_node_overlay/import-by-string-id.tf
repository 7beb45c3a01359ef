# Adopt a running NodeOverlay by its name; with the provider's `kubernetes` access,
# `terraform plan -generate-config-out=generated.tf` writes its configuration and the import
# changes nothing (the plan shows only the import).
import {
  to = karpenter_node_overlay.m5_savings_plan
  id = "m5-savings-plan"
}
