// Package karpenteroracle (in internal/karpenteroracle/v1_9) is the Karpenter oracle of
// internal/karpenteroracle for Karpenter 1.9 (the LTS): karpenter-provider-aws v1.9.3 and
// sigs.k8s.io/karpenter v1.9.0 (v1.9.3 requires v1.9.1, whose module zip the Go module proxy
// does not serve), EC2NodeClass hash v4 (no CA bundle) and NodePool hash v3. It is a module of
// its own because one module can require only one version of Karpenter; the comparisons and the
// random specs are internal/karpenteroracle/oraclegen's. It holds tests only.
// karpenter-provider-aws v1.9.3 declares go 1.26.10, above the provider's Go, so it runs with
// go1.27.3 like the other oracles:
//
//	GOTOOLCHAIN=go1.27.3 go test ./...
package karpenteroracle
