# A class is imported by its name; the state then holds only id and name. The next plan
# resolves the selectors from the configuration: an in-place update that changes nothing in AWS.
terraform import karpenter_node_class.default default
