// Package repocheck tests the repository's own checks (scripts/check-tracked.sh).
package repocheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tracked-files check passes on source and refuses a tracked binary and a file over 1 MB
// (generated data excepted by name).
func TestCheckTracked(t *testing.T) {
	script, err := filepath.Abs("../../scripts/check-tracked.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		files   map[string][]byte
		refused string // "" : passes
	}{
		{"source", map[string][]byte{"main.go": []byte("package main\n")}, ""},
		{"a binary", map[string][]byte{"main.go": []byte("package main\n"), "bench": []byte("\x7fELF\x00\x00\x01")}, "tracked binary: bench"},
		{"a large file", map[string][]byte{"data.json": []byte(strings.Repeat("x", 1<<20+1))}, "tracked file over 1 MB: data.json"},
		{"large generated data", map[string][]byte{"zz_generated.data.json": []byte(strings.Repeat("x", 1<<20+1))},
			"tracked file over 1 MB: zz_generated.data.json"}, // make generates it instead
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("add", ".")
			out, err := exec.Command("bash", script, dir).CombinedOutput()
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v\n%s", err, out)
			case tc.refused != "" && (err == nil || !strings.Contains(string(out), tc.refused)):
				t.Errorf("err %v, output %q; want a refusal %q", err, out, tc.refused)
			}
		})
	}
}
