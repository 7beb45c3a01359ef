// Package karpenteroracle checks the provider's ports of Karpenter's drift hashes
// (internal/karpenterhash) and its launch plan against the own compiled code of every supported
// Karpenter release, 1.9 … 1.15 (release_test.go): random EC2NodeClasses
// and NodePools are rendered by internal/manifest, and the hash the provider computes for each
// document must equal the one Karpenter's API types compute (EC2NodeClass.Hash in
// github.com/aws/karpenter-provider-aws/pkg/apis/v1, hash v6; NodePool.Hash in
// sigs.k8s.io/karpenter/pkg/apis/v1, hash v3) on the object the API server would store: the
// document pruned and defaulted with the CRDs Karpenter's module embeds. It also compares the
// instance types Karpenter offers to a node class of each AMI family (its instance-type
// compatibility check, against launchplan.OfferedForFamily) and whether a node's labels meet a
// NodePool's requirements as Karpenter's RequirementsDrifted reads them (scheduling's
// Compatible, against requirements.LabelsCompatible), and the launch of a pool's NodeClaim
// (its instance provider's filters and Truncate, against launchplan's LaunchTypes and the capacity
// type of its launch plan) over random draws of a whole region's real types, where Karpenter's side
// is Karpenter's code from the case's inputs alone: its NewInstanceType of EC2's description
// (requirements, capacity), its pricing provider fed the Pricing API's and the spot price
// history's answers, its capacity reservation reconciler over the class's reservations, and its
// offering provider, which applies the release's compatibility check
// (compatibility.IsCompatibleWithNodeClass, from 1.11) to classes that set network interfaces,
// cpuOptions, enclaveOptions, a placement group of each strategy or connectionTracking (a release
// without a field ignores it, as its API server prunes it),
// and every per-type label (instance category, generation, CPU, memory, bandwidths, GPUs,
// accelerators, local NVMe, ...) the provider derives from raw DescribeInstanceTypes answers
// against Karpenter's instancetype.NewInstanceType, over Karpenter's own test data and a whole
// region's catalog (oraclegen.RegionCatalog).
// Each test fails when it
// compares fewer cases than its floor. It holds tests only; the comparisons and the random specs
// are in oraclegen.
//
// It is a module of its own for two reasons. Karpenter's packages need a newer Go than the
// provider: karpenter-provider-aws v1.15.2 declares go 1.26.11 and builds with Go 1.27 (go1.27.3
// here), while the provider stays on the machine's Go 1.26. And Karpenter's requirements
// (k8s.io v0.35–v0.37, controller-runtime, the AWS SDK at its versions, ...) would raise the
// versions of the modules the provider links. Here they apply to this module's builds alone; the
// provider's packages come from the repository root (a replace directive), compiled against
// Karpenter's k8s.io instead of the provider's.
//
// One module requires one version of Karpenter, so each release is a module file of this one
// package: go.mod is 1.15 (karpenter-provider-aws v1.15.2 with sigs.k8s.io/karpenter v1.15.0:
// v1.15.2 requires v1.15.1, whose module zip the Go module proxy does not serve), go.v1_N.mod
// the others (each pins its karpenter-provider-aws with a replace directive, so that go mod
// tidy, which reads every release's files, cannot upgrade it). Where the releases' APIs differ,
// the code is in files named rel_<first>-<last>_test.go with build tags karpenter_pre_1_N.
// scripts/karpenter-oracle.sh picks both:
//
//	scripts/karpenter-oracle.sh 1.12 test -count=1 ./...
//
// (make unit runs every release; go test ./... in this folder runs 1.15 with the toolchain
// GOTOOLCHAIN=go1.27.3). Tidy a module file with
// GOTOOLCHAIN=go1.27.3 GOFLAGS=-mod=mod go mod tidy -e -modfile=go.v1_N.mod: -e because tidy walks
// the tests of Karpenter's packages, which reach module versions the proxy does not serve.
package karpenteroracle
