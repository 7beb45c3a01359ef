# Adopt an existing class by its name (`terraform plan` shows the import and an in-place update
# that records the selector resolution; nothing changes in AWS).
import {
  to = karpenter_node_class.default
  id = "default"
}
