# An overlay is imported by its name. With the provider's `kubernetes` access the live
# NodeOverlay is read whole (requirements, price or price adjustment, capacity, weight, object
# labels and annotations) and planned, so the next plan of the same configuration is clean;
# without it the state holds only id and name, and the next plan records the configuration.
terraform import karpenter_node_overlay.m5_savings_plan m5-savings-plan
