# Pods per m5.large node under EKS Auto Mode: 110 with /28 prefixes (the default), 29 with
# secondary IPs only, 20 with secondary IPs in pod subnets.
output "m5_large_auto_mode" {
  value = {
    prefixes    = provider::karpenter::auto_mode_max_pods("m5.large", {})
    secondary   = provider::karpenter::auto_mode_max_pods("m5.large", { ipv4_prefix_size = "32" })
    pod_subnets = provider::karpenter::auto_mode_max_pods("m5.large", { ipv4_prefix_size = "32", pod_subnets = true })
  }
}
