// Command profprovider is the provider binary with profiling: it serves the same provider as the
// root main package and writes a CPU profile (and a heap profile at exit) to the files named by
// KARPENTER_CPU_PROFILE and KARPENTER_HEAP_PROFILE, and an execution trace to
// KARPENTER_EXEC_TRACE. make bench -profile uses it; it is never shipped.
package main

import (
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog"
	_ "github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog/initgc" // as main.go
	"github.com/nodeplane/terraform-provider-karpenter/internal/provider"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	for name, level := range pluginlog.Quiet(os.Environ()) { // as main.go does
		if err := os.Setenv(name, level); err != nil {
			return err
		}
	}
	// Each provider process of a plan writes its own file.
	suffix := fmt.Sprintf(".%d", os.Getpid())
	if path := os.Getenv("KARPENTER_CPU_PROFILE"); path != "" {
		f, err := os.Create(path + suffix)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("KARPENTER_EXEC_TRACE"); path != "" { // go tool trace: where the wall time goes
		f, err := os.Create(path + suffix)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
	pluginlog.TuneGC()
	server, err := provider.NewServer("bench")() // main.go's server: the same protocol layer
	if err != nil {
		return err
	}
	err = tf6server.Serve("registry.terraform.io/nodeplane/karpenter", func() tfprotov6.ProviderServer { return server })
	if path := os.Getenv("KARPENTER_HEAP_PROFILE"); path != "" {
		runtime.GC()
		f, ferr := os.Create(path + suffix)
		if ferr != nil {
			return ferr
		}
		defer f.Close()
		if werr := pprof.Lookup("allocs").WriteTo(f, 0); werr != nil {
			return werr
		}
	}
	return err
}
