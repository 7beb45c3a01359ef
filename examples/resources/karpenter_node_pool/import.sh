# A pool is imported by name when one owner holds that name in the cluster, or as
# <name>/<owner id> to pick one (the plan error for a taken name prints the exact id). A static
# pool's launch templates and live nodes (as replicas) are adopted without replacement. A dynamic
# pool holds no EC2 objects: a name nothing in EC2 holds is imported as a dynamic pool with a new
# owner id, and the next apply settles it.
terraform import karpenter_node_pool.general general
