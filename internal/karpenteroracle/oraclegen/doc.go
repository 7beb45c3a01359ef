// Package oraclegen is what the Karpenter oracle modules share: random EC2NodeClass and
// NodePool specs of the provider's manifest types (Gen), and the API server's pruning and
// defaulting of a rendered document with a CRD (APIServer). The oracles
// (internal/karpenteroracle for Karpenter 1.15, its v1_14 and v1_9 for 1.14 and 1.9) compare
// Karpenter's own hash code with internal/karpenterhash on what it draws.
//
// It is a module of its own, without Karpenter among its requirements, because each oracle
// module requires a different Karpenter: a package shared through either oracle module would
// bring that module's Karpenter into the other's build. It needs neither Karpenter nor Go 1.27,
// so the machine's Go and golangci-lint check it (make vet, lint, unit).
package oraclegen
