// Package karpenteroracle (in internal/karpenteroracle/v1_14) is the Karpenter oracle of
// internal/karpenteroracle for Karpenter 1.14: karpenter-provider-aws v1.14.3 and
// sigs.k8s.io/karpenter v1.14.3, EC2NodeClass hash v5 (typed spec.kubelet) and NodePool hash v3.
// It is a module of its own because one module can require only one version of Karpenter; the
// comparisons and the random specs are internal/karpenteroracle/oraclegen's. It holds tests
// only. karpenter-provider-aws v1.14.3 declares go 1.26.10, above the provider's Go, so it runs
// with go1.27.3 like the 1.15 oracle:
//
//	GOTOOLCHAIN=go1.27.3 go test ./...
package karpenteroracle
