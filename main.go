// Command terraform-provider-karpenter serves the karpenter provider to Terraform over plugin protocol 6
// (internal/provider); `-debug` serves it for a debugger.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog"
	_ "github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog/initgc" // before the heavy packages' init
	"github.com/nodeplane/terraform-provider-karpenter/internal/provider"
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

	pluginlog.TuneGC() // collect less often, within a memory budget

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
