// Package oraclegen is what the Karpenter oracle's releases share: random EC2NodeClass and
// NodePool specs of the provider's manifest types (Gen), random launches, overlays and kubelets,
// the API server's pruning and defaulting of a rendered document with a CRD (APIServer), and the
// comparisons. The oracle (internal/karpenteroracle, run at every release from 1.9 to 1.15)
// compares Karpenter's own code with the provider's on what it draws.
//
// It is a module of its own, without Karpenter among its requirements: it needs neither
// Karpenter nor Go 1.27, so the machine's Go and golangci-lint check it (make vet, lint, unit),
// and every release's module file requires it unchanged.
package oraclegen
