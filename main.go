package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/nodeplane/terraform-provider-karpenter/internal/pluginlog"
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

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/nodeplane/karpenter",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
