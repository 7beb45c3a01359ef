# A pool is imported by name; its launch templates are found by their ownership tags.
terraform import karpenter_node_pool.general general
