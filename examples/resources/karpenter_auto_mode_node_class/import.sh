# An Auto Mode NodeClass is imported by name; the next plan resolves its selectors from the
# configuration and records them.
terraform import karpenter_auto_mode_node_class.private_compute private-compute
