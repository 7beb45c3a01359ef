package main

import (
	"bytes"
	"maps"
	"strings"
	"testing"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

func TestRenderReadsBack(t *testing.T) {
	in := "# upstream licence and prose\n#\nm5.large 29\nc5.18xlarge 737\nt3.micro 4\n"
	table, err := capacity.ParseENIMaxPods(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	out := render(table, gitBlobID([]byte(in)), "v1 (2026-01-01)", "x.tsv")
	back, err := capacity.ParseENIMaxPods(bytes.NewReader(out))
	if err != nil || !maps.Equal(back, table) {
		t.Fatalf("read back %v, %v; want %v", back, err, table)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "# ") || strings.Contains(string(out), "licence") {
		t.Fatalf("unexpected output:\n%s", out)
	}
	if !strings.Contains(lines[1], "templates/shared/runtime/eni-max-pods.txt") || !strings.Contains(lines[1], "v1 (2026-01-01)") ||
		!strings.Contains(lines[2], "go run ./cmd/gen-eni-max-pods") || !strings.Contains(lines[2], "-out x.tsv") {
		t.Errorf("header:\n%s", strings.Join(lines[:3], "\n"))
	}
	if got := lines[3:]; got[0] != "c5.18xlarge\t737" || got[1] != "m5.large\t29" || got[2] != "t3.micro\t4" {
		t.Errorf("rows not sorted tab-separated pairs: %q", got)
	}
	if !bytes.Equal(out, render(table, gitBlobID([]byte(in)), "v1 (2026-01-01)", "x.tsv")) {
		t.Error("render is not deterministic")
	}
}

func TestGitBlobID(t *testing.T) {
	// `printf 'hello\n' | git hash-object --stdin`
	if got := gitBlobID([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("gitBlobID = %s", got)
	}
}
