//go:build tools

// Package tools pins the versions of the generators the Makefile runs.
package tools

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
