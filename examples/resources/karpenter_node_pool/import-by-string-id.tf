# Adopt an existing pool by name (or "<name>/<owner id>" when several owners hold the name): its
# launch templates and live nodes are found by their ownership tags.
import {
  to = karpenter_node_pool.general
  id = "general"
}
