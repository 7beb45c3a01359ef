// Command terraform-provider-karpenter serves the karpenter provider to Terraform over plugin protocol 6
// (internal/provider); `-debug` serves it for a debugger.
package main

import (
	"flag"
	"log"
	"os"
	rdebug "runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog"
	"github.com/nodeplane/terraform-provider-karpenter/internal/provider"
)

// The provider process's garbage collector: the heap may grow to 5× the live heap between
// collections, but collections come sooner as it nears memoryLimit.
const (
	gcPercent   = 400
	memoryLimit = 80 << 20
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	// Without any TF_LOG variable Terraform discards the SDK's TRACE lines; do not format them.
	for name, level := range pluginlog.Quiet(os.Environ()) {
		if err := os.Setenv(name, level); err != nil {
			log.Fatal(err)
		}
	}

	// A provider process lives for one Terraform command and allocates heavily (the plugin
	// framework converts each resource's values several times per call): collect garbage less
	// often, within a memory budget. GOGC and GOMEMLIMIT set by the user win.
	if os.Getenv("GOGC") == "" {
		rdebug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		rdebug.SetMemoryLimit(memoryLimit)
	}

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	server, err := provider.NewServer(version)()
	if err != nil {
		log.Fatal(err)
	}
	// The provider's server (the plugin framework's, with diagnostics Terraform can place).
	if err := tf6server.Serve("registry.terraform.io/nodeplane/karpenter", func() tfprotov6.ProviderServer { return server }, opts...); err != nil {
		log.Fatal(err)
	}
}
