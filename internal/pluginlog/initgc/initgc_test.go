package initgc

import (
	"os"
	rdebug "runtime/debug"
	"testing"
)

func TestInitTurnsTheCollectorOff(t *testing.T) {
	prev := rdebug.SetGCPercent(100) // and back on for the rest of the test binary
	if os.Getenv("GOGC") == "" && prev != -1 {
		t.Errorf("after init the GC percent was %d, want -1 (off) while GOGC is unset", prev)
	}
	if os.Getenv("GOGC") != "" && prev == -1 && os.Getenv("GOGC") != "off" {
		t.Errorf("init turned the collector off although GOGC=%s", os.Getenv("GOGC"))
	}
}
