# A class is imported by its name. With the provider's `kubernetes` access the live EC2NodeClass
# is read whole (spec, object labels and annotations) and planned, so the next plan of the same
# configuration is clean; without it the state holds only id and name, and the next plan
# resolves the selectors from the configuration (an in-place update that changes nothing in AWS).
terraform import karpenter_node_class.default default
