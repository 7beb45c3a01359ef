// Package karpenteroracle checks the provider's ports of Karpenter's drift hashes
// (internal/karpenterhash) against Karpenter's own compiled code: random EC2NodeClasses and
// NodePools are rendered by internal/manifest, and the hash the provider computes for each
// document must equal the one Karpenter's API types compute (EC2NodeClass.Hash in
// github.com/aws/karpenter-provider-aws/pkg/apis/v1, NodePool.Hash in
// sigs.k8s.io/karpenter/pkg/apis/v1) on the object the API server would store: the document
// pruned and defaulted with the CRDs Karpenter's module embeds. Each test fails when it compares
// fewer cases than its floor. It holds tests only.
//
// It is a module of its own for two reasons. Karpenter's packages need a newer Go than the
// provider: karpenter-provider-aws v1.15.2 declares go 1.26.11 and builds with Go 1.27 (go1.27.3
// here), while the provider stays on the machine's Go 1.26. And Karpenter's requirements (k8s.io
// v0.37, controller-runtime, the AWS SDK at its versions, ...) would raise the versions of the
// modules the provider links. Here they apply to this module's builds alone; the provider's
// packages come from the parent folder (a replace directive). sigs.k8s.io/karpenter is replaced
// by v1.15.0: karpenter-provider-aws v1.15.2 requires v1.15.1, whose module zip the Go module
// proxy does not serve. One module can require one version of Karpenter, so this one checks the
// Karpenter 1.15 hashes (EC2NodeClass hash v6, NodePool hash v3) only.
//
// Run it in this folder with
//
//	GOTOOLCHAIN=go1.27.3 go test ./...
//
// (make unit does that). The go and toolchain lines of go.mod select go1.27.3 as well when the
// go command's GOTOOLCHAIN is auto, its default.
package karpenteroracle
