// Command gen-iam-policy writes the IAM policy documents of the provider's own permissions, one
// per capability (awsclient.Capabilities), from awsclient.Statements: examples/iam/<name>.json,
// with placeholders (${Partition}, ${AccountId}, ${Region}, ${ClusterName}, ${OwnerId},
// ${NodeRoleArns}, ${SsmParameterArns}) that examples/iam's module fills. It also writes the
// table of statements into the IAM guide's template. `make docs` runs it; the acceptance suite
// checks the table against the AWS operations the provider calls.
//
//	go run ./cmd/gen-iam-policy -out examples/iam -guide templates/guides/iam-permissions.md.tmpl
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/awsclient"
)

func main() {
	out := flag.String("out", "examples/iam", "folder for the policy documents")
	guide := flag.String("guide", "templates/guides/iam-permissions.md.tmpl", "guide template whose statement table to rewrite (\"\": none)")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-iam-policy:", err)
		os.Exit(1)
	}
	if *guide != "" {
		if err := writeTable(*guide); err != nil {
			fmt.Fprintln(os.Stderr, "gen-iam-policy:", err)
			os.Exit(1)
		}
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

// writeTable replaces what lies between the scope table's markers in the guide template.
func writeTable(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := withTable(string(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if text == string(raw) {
		return nil
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

func withTable(text string) (string, error) {
	before, rest, ok := strings.Cut(text, awsclient.ScopeTableBegin+"\n")
	if !ok {
		return "", errors.New("no " + awsclient.ScopeTableBegin + " marker")
	}
	_, after, ok := strings.Cut(rest, awsclient.ScopeTableEnd)
	if !ok {
		return "", errors.New("no " + awsclient.ScopeTableEnd + " marker")
	}
	return before + awsclient.ScopeTableBegin + "\n" + awsclient.ScopeTable() + awsclient.ScopeTableEnd + after, nil
}
