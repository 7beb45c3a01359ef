// Package vpccnioracle checks the repository's per-type network tables and the pod-capacity
// formula against the VPC CNI's own table (github.com/aws/amazon-vpc-cni-k8s/pkg/vpc). It holds
// tests only.
//
// It is a module of its own so that the CNI stays out of the provider's module graph: requiring
// amazon-vpc-cni-k8s v1.23.2 there raises the versions of modules the provider links (k8s.io/*
// from v0.34 to v0.37, grpc, golang.org/x/net, ...), and internal/manifest does not build on
// k8s.io v0.37. Here the CNI's requirements apply to this module's builds alone; the provider's
// packages come from the parent folder (a replace directive). depguard would not allow the test
// beside the catalog or capacity code either: it keeps those packages free of github.com/aws/
// imports, pkg/vpc among them.
//
// Run it with `make unit` (or `go test ./...` in this folder).
package vpccnioracle
