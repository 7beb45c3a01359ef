package pluginlog

import (
	"os"
	rdebug "runtime/debug"
)

// The provider process's garbage collector: the heap may grow to 5× the live heap between
// collections, but collections come sooner as it nears memoryLimit.
const (
	gcPercent   = 400
	memoryLimit = 80 << 20
)

// TuneGC sets the collector of a provider process, which lives for one Terraform command and
// allocates heavily, to collect less often within a memory budget. GOGC and GOMEMLIMIT set by
// the user win. The provider binary and the bench's profiling binary both call it, so a profile
// measures the collector users run.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		rdebug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		rdebug.SetMemoryLimit(memoryLimit)
	}
}
