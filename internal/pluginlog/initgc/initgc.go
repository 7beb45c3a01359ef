// Package initgc turns the garbage collector off for the package initialization that follows
// it. The provider's dependencies allocate about 8 MB of tables when they initialize (the AWS
// SDK's schemas, Kubernetes' registries, CEL's environments), and collecting in between made up
// a third of a provider process's start, which Terraform pays three times per plan. Go
// initializes the ready packages in import-path order, so the AWS SDK's come before this one
// and still collect; the rest do not. main imports it, and pluginlog.TuneGC, first thing in
// main, turns the collector back on. GOGC set by the user wins.
package initgc

import (
	"os"
	rdebug "runtime/debug"
)

func init() {
	if os.Getenv("GOGC") == "" {
		rdebug.SetGCPercent(-1)
	}
}
