# NodeOverlays need Karpenter's NodeOverlay feature gate, and the provider told of it:
#   provider "karpenter" { karpenter_feature_gates = ["NodeOverlay"] }

# A savings plan makes m5 on-demand 90 % cheaper for this account: Karpenter should launch it
# first. The overlay selects by labels; the heavier of two overlays on one offering wins.
resource "karpenter_node_overlay" "m5_savings_plan" {
  name = "m5-savings-plan"
  metadata = {
    annotations = { "kubernetes.io/description" = "m5 on-demand under the compute savings plan" }
  }
  requirements = [
    { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["m5"] },
    { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
  ]
  price_adjustment = "-90%"
  weight           = 10
}

# Extended resources a device plugin advertises on the ML pool's GPU nodes.
resource "karpenter_node_overlay" "gpu_slices" {
  name = "gpu-slices"
  requirements = [
    { key = "karpenter.sh/nodepool", operator = "In", values = ["ml"] },
    { key = "karpenter.k8s.aws/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
  ]
  capacity = { "example.com/gpu-slice" = "4" }
}

resource "karpenter_node_class" "default" {
  name               = "default"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

# Karpenter applies every overlay of the cluster to every pool: give each pool the whole list.
locals {
  node_overlays = [
    karpenter_node_overlay.m5_savings_plan.resolved,
    karpenter_node_overlay.gpu_slices.resolved,
  ]
}

resource "karpenter_node_pool" "general" {
  name          = "general"
  node_class    = karpenter_node_class.default.resolved
  node_overlays = local.node_overlays
  template = {
    requirements = [
      { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["c", "m", "r"] },
      { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
    ]
  }
  limits = { cpu = "1000" }
}

# The plan shows what the overlays change: summary.first_instance_types starts with m5 types,
# and summary.node_overlays reads e.g.
#   "m5-savings-plan (price -90%) on m5.large, m5.xlarge, m5.2xlarge and 7 more".
output "general_overlays" {
  value = karpenter_node_pool.general.summary.node_overlays
}

# Apply each NodeOverlay to the cluster like the class and pools, e.g. with the kubernetes provider:
#   resource "kubernetes_manifest" "m5_savings_plan" {
#     manifest = yamldecode(karpenter_node_overlay.m5_savings_plan.manifest)
#   }
