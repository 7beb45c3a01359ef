package repocheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is what a newcomer reads to the end: short, the two commands first, and every
// link into the repository live. The details live in docs/ (the provider page, the resource
// docs and the guides), which the docs check keeps true.
const (
	readmeMaxLines     = 220
	readmeMaxLineChars = 600
)

var (
	markdownLink  = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	referenceLink = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	externalLink  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`) // https:, mailto:, …
)

// readmeProblems says what is wrong with a README's text; exists reports whether a path
// relative to the README's directory names a file or directory.
func readmeProblems(text string, exists func(string) bool) []string {
	var problems []string
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) > readmeMaxLines {
		problems = append(problems, fmt.Sprintf("%d lines, over %d", len(lines), readmeMaxLines))
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > readmeMaxLineChars {
			problems = append(problems, fmt.Sprintf("line %d has %d characters, over %d", i+1, n, readmeMaxLineChars))
		}
	}
	if got := firstCommands(lines, 2); len(got) != 2 || got[0] != "make demo" || got[1] != "make test" {
		problems = append(problems, fmt.Sprintf("does not begin with a code block whose first commands are `make demo` and `make test` (got %q)", got))
	}
	inFence := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		var targets []string
		for _, m := range markdownLink.FindAllStringSubmatch(l, -1) {
			targets = append(targets, m[1])
		}
		if m := referenceLink.FindStringSubmatch(l); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			target = strings.Trim(target, "<>")
			if externalLink.MatchString(target) || strings.HasPrefix(target, "#") {
				continue
			}
			path, _, _ := strings.Cut(target, "#")
			if !exists(path) {
				problems = append(problems, fmt.Sprintf("line %d links %s, which does not exist", i+1, target))
			}
		}
	}
	return problems
}

// firstCommands is the first n commands (a line's first two words, comments and blank lines
// skipped) of the code block the text opens with; nil when it does not open with one.
func firstCommands(lines []string, n int) []string {
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "```") {
		return nil
	}
	var cmds []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "```") || len(cmds) == n {
			break
		}
		l, _, _ = strings.Cut(l, "#")
		if f := strings.Fields(l); len(f) >= 2 {
			cmds = append(cmds, f[0]+" "+f[1])
		} else if len(f) == 1 {
			cmds = append(cmds, f[0])
		}
	}
	return cmds
}

func TestReadmeShape(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil
	}
	for _, p := range readmeProblems(string(b), exists) {
		t.Errorf("README.md: %s", p)
	}
}

// The check refuses what it is there to refuse.
func TestReadmeProblems(t *testing.T) {
	files := map[string]bool{"docs/index.md": true, "examples/iam/": true}
	exists := func(p string) bool { return files[p] }
	start := "```sh\nmake demo    # the demo\nmake test    # the tests\n```\n\n# title\n"
	for _, tc := range []struct {
		name, text, want string // want "": no problem
	}{
		{"good", start + "See [the provider page](docs/index.md#aws-access), [policies](examples/iam/), [AWS](https://aws.amazon.com/) and [below](#guides).\n", ""},
		{"too long", start + strings.Repeat("line\n", readmeMaxLines), "lines, over 220"},
		{"a long line", start + strings.Repeat("x", readmeMaxLineChars+1) + "\n", "line 7 has 601 characters"},
		{"no code block first", "# title\n" + start, "does not begin"},
		{"other commands first", "```sh\nmake build\nmake test\n```\n", "does not begin"},
		{"only one command", "```sh\nmake demo\n```\nmake test\n", "does not begin"},
		{"a broken link", start + "See [the guide](docs/guides/missing.md#part).\n", "links docs/guides/missing.md#part"},
		{"a broken reference link", start + "[guide]: docs/guides/missing.md\n", "links docs/guides/missing.md"},
		{"a link in code is not a link", start + "```text\n[x](nowhere.md)\n```\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(readmeProblems(tc.text, exists), "; ")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("problems %q, want none", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("problems %q, want one with %q", got, tc.want)
			}
		})
	}
}
