# A pool is imported by name when one owner holds that name in the cluster, or as
# <name>/<owner id> to pick one (the plan error for a taken name prints the exact id). Its launch
# templates, and a static pool's live nodes (as replicas), are adopted without replacement.
terraform import karpenter_node_pool.general general
