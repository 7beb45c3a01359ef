# A pool is imported by name. With the provider's `kubernetes` access, a NodePool of that name in
# the cluster is read whole: its spec and metadata become the configuration (a NodePool with
# spec.replicas as launcher = "karpenter") and node_class holds the values of the EC2NodeClass it
# names. Otherwise the pool is found in EC2 by its ownership tags: a static pool's launch
# templates and live nodes (as replicas) are adopted without replacement; use <name>/<owner id>
# when several owners hold the name (the plan error for a taken name prints the exact id).
terraform import karpenter_node_pool.general general
