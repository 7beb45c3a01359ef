# Karpenter's ENI-limited pod count (the eni-max-pods.txt value): 29 for m5.large.
output "m5_large_eni_limited_pods" {
  value = provider::karpenter::eni_limited_pods("m5.large")
}
