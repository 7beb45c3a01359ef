// Command gen-iam-policy writes the IAM policy documents of the provider's own permissions, one
// per capability (awsclient.Capabilities), from awsclient.Permissions: examples/iam/<name>.json.
// `make docs` runs it; the acceptance suite checks the table against the AWS operations the
// provider calls.
//
//	go run ./cmd/gen-iam-policy -out examples/iam
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

func main() {
	out := flag.String("out", "examples/iam", "folder for the policy documents")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-iam-policy:", err)
		os.Exit(1)
	}
}

func write(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, c := range awsclient.Capabilities {
		doc, err := awsclient.PolicyDocument(c.Name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, c.Name+".json"), append(doc, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
