# Karpenter's default node class: subnets and security groups found by the provider's
# cluster_name discovery tag (karpenter.sh/discovery = <cluster_name>), resolved at plan time.
resource "karpenter_node_class" "default" {
  name               = "default"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
}

# An EFA class on the HPC subnets, with prefix delegation and a bigger root volume.
resource "karpenter_node_class" "efa" {
  name               = "efa"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]
  subnet_selector_terms = [
    { tags = { "karpenter.sh/discovery" = "my-cluster", purpose = "hpc" } },
  ]
  security_group_selector_terms = [{ tags = { "karpenter.sh/discovery" = "my-cluster" } }]
  efa                           = true

  networking = {
    prefix_delegation = true
  }
  block_device_mappings = [{
    device_name = "/dev/xvda"
    root_volume = true
    ebs         = { volume_size = "200Gi", volume_type = "gp3", encrypted = true, delete_on_termination = true }
  }]
  tags = { team = "ml" }
}

# Connectivity checks at plan time: the class's security groups must let nodes talk to each
# other (checked on every class unless checks = "off"), and to and from the EKS control plane
# (tcp 443 and 10250, checked when its groups are given). Failed checks are warnings
# (checks = "error" fails the plan); rules changed outside Terraform show up in the next plan.
resource "karpenter_node_class" "checked" {
  name               = "checked"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]

  connectivity = {
    # The EKS cluster security group, e.g. aws_eks_cluster.this.vpc_config[0].cluster_security_group_id,
    # or select it: control_plane_security_group_selector_terms = [{ tags = { "aws:eks:cluster-name" = "my-cluster" } }]
    control_plane_security_group_ids = ["sg-0123456789abcdef0"]
    checks                           = "warn"
  }
}

# A training class in a partition placement group, with the team's capacity reservations for
# node pools that allow capacity type "reserved". Both selectors resolve at plan time into
# `placement_group` and `capacity_reservations`; a missing group fails the plan.
resource "karpenter_node_class" "training" {
  name               = "training"
  role               = "KarpenterNodeRole-my-cluster"
  ami_selector_terms = [{ alias = "al2023@latest" }]

  placement_group_selector = { name = "training-partitions" }
  capacity_reservation_selector_terms = [
    { id = "cr-0123456789abcdef0" },
    { tags = { team = "ml" }, instance_match_criteria = "targeted" },
  ]
  connection_tracking = { tcp_established_timeout = 3600 }
}

output "failed_connectivity_checks" {
  value = [for c in karpenter_node_class.checked.connectivity_report : "${c.check} (${c.group_id}): ${c.detail}" if !c.passed]
}

# Hand the rendered EC2NodeClass to Kubernetes:
#   resource "kubernetes_manifest" "default" { manifest = yamldecode(karpenter_node_class.default.manifest) }
output "zones" {
  value = karpenter_node_class.default.zones
}
