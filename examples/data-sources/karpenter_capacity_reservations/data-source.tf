# A node class that selects the team's GPU reservations and Capacity Blocks, and a pool on it
# that may launch into them (capacity type `reserved`).
resource "karpenter_node_class" "gpu" {
  name               = "gpu"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  capacity_reservation_selector_terms = [
    { tags = { team = "ml" } },
  ]
}

resource "karpenter_node_pool" "training" {
  name       = "training"
  node_class = karpenter_node_class.gpu.resolved
  template = {
    requirements = [
      { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["p5", "g6"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["reserved", "on-demand"] },
    ]
  }
}

# The region's active and scheduled reservations, with the classes that select each and the
# pools that launch into each. A selected reservation with free instances that no pool uses is
# a plan warning on node_classes, with what it costs per hour unused and why each pool skips it.
# With the provider's `kubernetes` access the cluster's other NodePools on class gpu (written
# with kubectl, say) count too, judged by their requirements, zones and capacity types.
data "karpenter_capacity_reservations" "all" {
  node_classes = {
    gpu = karpenter_node_class.gpu.capacity_reservations[*].id
  }
  node_pools = {
    training = karpenter_node_pool.training.reservations
  }
}

# Fails (a warning at plan and apply, as checks do) when an active reservation with free
# instances is selected by no node class.
check "no_unselected_reservations" {
  assert {
    condition     = length(data.karpenter_capacity_reservations.all.unselected_ids) == 0
    error_message = "Reservations with free instances that no node class selects: ${join(", ", data.karpenter_capacity_reservations.all.unselected_ids)}"
  }
}

# Fails when a selected reservation has free instances that no pool launches into.
check "no_idle_reservations" {
  assert {
    condition = length(data.karpenter_capacity_reservations.all.idle_ids) == 0
    error_message = join("\n", [
      for r in data.karpenter_capacity_reservations.all.reservations :
      format("%s (%s in %s): %d free, %s USD/h unused; %s", r.id, r.instance_type, r.availability_zone,
        r.available_instance_count, r.idle_hourly_cost == null ? "unpriced" : format("%.2f", r.idle_hourly_cost),
      join("; ", r.idle_reasons))
      if r.idle
    ])
  }
}

output "idle_hourly_cost" {
  value = sum(concat([0], [
    for r in data.karpenter_capacity_reservations.all.reservations : r.idle_hourly_cost if r.idle && r.idle_hourly_cost != null
  ]))
}
