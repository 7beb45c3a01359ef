# A NodeOverlay is imported by name; the next plan renders it from the configuration.
terraform import karpenter_node_overlay.m5_savings_plan m5-savings-plan
