# Adopt a running NodePool by name; `terraform plan -generate-config-out=generated.tf` writes its
# configuration. With the provider's `kubernetes` access the live NodePool is read (spec, object
# metadata, and its EC2NodeClass's values as node_class: replace them with
# karpenter_node_class.<name>.resolved once the class is imported too); a static pool of the
# provider's own launcher is found in EC2 by its ownership tags.
import {
  to = karpenter_node_pool.general
  id = "general"
}
