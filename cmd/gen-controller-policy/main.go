// Command gen-controller-policy writes internal/installation's table of the IAM permissions
// Karpenter's controller needs, per minor release, from Karpenter's own getting-started
// CloudFormation template (website/content/en/v1.X/getting-started/getting-started-with-karpenter/
// cloudformation.yaml) read from an aws/karpenter-provider-aws git directory at a recorded
// revision per minor: the managed policies named KarpenterController*, each Allow statement's
// Sid and actions.
//
// The module zips do not carry the website, hence a git directory; a minor with no revision to
// read is left out of the table, and the check says which release's policy it used instead.
//
//	go run ./cmd/gen-controller-policy -repo <git dir> 1.9=v1.12.2 1.10=v1.13.1 …
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/nodeplane/terraform-provider-karpenter/internal/iampolicy"
)

const templatePath = "website/content/en/v%s/getting-started/getting-started-with-karpenter/cloudformation.yaml"

// statement is one upstream statement as the table keeps it.
type statement struct {
	Policy, Sid string
	Actions     []string
}

// release is one minor's policy.
type release struct {
	Minor, Rev, Commit string
	Statements         []statement
}

func main() {
	repo := flag.String("repo", "", "aws/karpenter-provider-aws git directory (required)")
	out := flag.String("out", "internal/installation/zz_generated_controller_policy.go", "file to write")
	flag.Parse()
	if *repo == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-controller-policy -repo <git dir> <minor>=<rev> …")
		os.Exit(2)
	}
	if err := run(*repo, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gen-controller-policy:", err)
		os.Exit(1)
	}
}

func run(repo, out string, pairs []string) error {
	var releases []release
	for _, p := range pairs {
		minor, rev, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("%q is not <minor>=<rev>", p)
		}
		commit, err := git(repo, "rev-parse", rev+"^{commit}")
		if err != nil {
			return err
		}
		src, err := git(repo, "show", commit+":"+fmt.Sprintf(templatePath, minor))
		if err != nil {
			return err
		}
		sts, err := controllerStatements([]byte(src))
		if err != nil {
			return fmt.Errorf("v%s at %s: %w", minor, rev, err)
		}
		releases = append(releases, release{Minor: minor, Rev: rev, Commit: commit, Statements: sts})
	}
	code, err := render(releases, "-repo <git dir> "+strings.Join(pairs, " "))
	if err != nil {
		return err
	}
	return os.WriteFile(out, code, 0o644)
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// controllerStatements reads the template's AWS::IAM::ManagedPolicy resources whose
// ManagedPolicyName starts with KarpenterController, in document order. A PolicyDocument is
// either JSON text (the template's !Sub strings; the ${…} placeholders sit inside JSON strings)
// or a YAML mapping.
func controllerStatements(src []byte) ([]statement, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty template")
	}
	resources := lookup(doc.Content[0], "Resources")
	if resources == nil {
		return nil, fmt.Errorf("no Resources")
	}
	var out []statement
	for i := 0; i+1 < len(resources.Content); i += 2 {
		res := resources.Content[i+1]
		props := lookup(res, "Properties")
		if typ := lookup(res, "Type"); typ == nil || typ.Value != "AWS::IAM::ManagedPolicy" || props == nil {
			continue
		}
		name := lookup(props, "ManagedPolicyName")
		if name == nil || !strings.HasPrefix(name.Value, "KarpenterController") {
			continue
		}
		policy, _, _ := strings.Cut(name.Value, "-${")
		text, err := documentText(lookup(props, "PolicyDocument"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", policy, err)
		}
		parsed, err := iampolicy.Parse(iampolicy.Document{Source: policy, JSON: text})
		if err != nil {
			return nil, err
		}
		for _, st := range parsed.Statements {
			if st.Effect != iampolicy.EffectAllow || st.IsNotAction {
				continue
			}
			out = append(out, statement{Policy: policy, Sid: st.Sid, Actions: st.Actions})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no KarpenterController* managed policy")
	}
	return out, nil
}

// documentText is a PolicyDocument as JSON text.
func documentText(n *yaml.Node) (string, error) {
	switch {
	case n == nil:
		return "", fmt.Errorf("no PolicyDocument")
	case n.Kind == yaml.ScalarNode:
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// lookup is a mapping node's value for key; nil when absent.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func render(releases []release, args string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by gen-controller-policy %s; DO NOT EDIT.\n", args)
	b.WriteString("// Source: aws/karpenter-provider-aws, " + fmt.Sprintf(templatePath, "<minor>") + ", at the revisions below.\n\n")
	b.WriteString("package installation\n\n")
	b.WriteString("// controllerPolicies are the statements of each minor's KarpenterController* policies.\n")
	b.WriteString("var controllerPolicies = []controllerPolicy{\n")
	for _, r := range releases {
		fmt.Fprintf(&b, "\t{Minor: %q, Rev: %q, Commit: %q, Statements: []upstreamStatement{\n", r.Minor, r.Rev, r.Commit)
		for _, s := range r.Statements {
			fmt.Fprintf(&b, "\t\t{Policy: %q, Sid: %q, Actions: []string{", s.Policy, s.Sid)
			for i, a := range s.Actions {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q", a)
			}
			b.WriteString("}},\n")
		}
		b.WriteString("\t}},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
