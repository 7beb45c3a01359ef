// Package initgc turns the garbage collector off for the package initialization that follows
// it. The provider's dependencies allocate about 8 MB of tables when they initialize (the AWS
// SDK's schemas, Kubernetes' registries, CEL's environments), and collecting in between made up
// a third of a provider process's start, which Terraform pays three times per plan. main
// imports it, and pluginlog.TuneGC, first thing in main, turns the collector back on. GOGC set
// by the user wins.
//
// Go initializes the ready packages in import-path order, so this package runs as soon as its
// imports have: with runtime/debug (which needs fmt) that was after the AWS SDK's packages,
// which sort first and then still collected. It imports only syscall, and reaches the
// runtime's collector setting by the name the runtime itself exports it under for
// runtime/debug.SetGCPercent, so it runs among the first twenty packages, before any
// dependency's tables (main.TestInitRunsBeforeTheDependencies).
package initgc

import (
	"syscall"
	_ "unsafe" // go:linkname
)

// setGCPercent is runtime/debug.SetGCPercent without the package (the runtime's own
// implementation, pushed by the runtime under this name).
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(int32) int32

func init() {
	if _, set := syscall.Getenv("GOGC"); !set {
		setGCPercent(-1)
	}
}
