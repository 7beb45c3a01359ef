# Adopt an existing pool by name (or "<name>/<owner id>" when several owners hold the name): a
# static pool's launch templates and live nodes are found by their ownership tags; a dynamic pool
# has none and is imported with a new owner id.
import {
  to = karpenter_node_pool.general
  id = "general"
}
