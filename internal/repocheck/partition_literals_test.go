package repocheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// awsPartitionLiteral is an ARN written in the aws partition: wrong in aws-cn and aws-us-gov.
const awsPartitionLiteral = "arn:" + "aws:"

// partitionLiteralExempt are the places that may spell the aws partition: tests, test data, and
// the test-support packages that stand in for AWS (LocalStack stubs, in-memory fakes, the
// Karpenter oracle's generated manifests), which exercise the aws partition on purpose.
func partitionLiteralExempt(path string) bool {
	switch {
	case strings.HasSuffix(path, "_test.go"), strings.Contains(path, "/testdata/"), strings.HasPrefix(path, "testdata/"):
		return true
	}
	for _, dir := range []string{"internal/acctest/", "internal/awsfake/", "internal/karpenteroracle/"} {
		if strings.HasPrefix(path, dir) {
			return true
		}
	}
	return false
}

// partitionLiterals are the files of the list (relative to root) that write an ARN in the aws
// partition outside the exempt places, with the first line that does.
func partitionLiterals(root string, files []string) []string {
	var out []string
	for _, f := range files {
		if partitionLiteralExempt(f) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue // gone from the work tree, or binary
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, awsPartitionLiteral) {
				out = append(out, f+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				break
			}
		}
	}
	return out
}

// No code or document writes an ARN as arn:aws: — the provider builds ARNs in the caller's
// partition (awsclient.Partition, awsclient.ARN) and the documents write the partition as a
// placeholder — except tests and the test-support packages.
func TestNoAWSPartitionLiterals(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	files := strings.Fields(string(out))
	if len(files) < 100 {
		t.Fatalf("only %d files listed", len(files))
	}
	for _, hit := range partitionLiterals(root, files) {
		t.Errorf("%s: an ARN in the aws partition (build it with awsclient.ARN and the client's Partition, or write ${Partition} / <partition>)", hit)
	}
}

func TestPartitionLiteralsFindsThem(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"internal/x/x.go":            "package x\nconst p = \"" + awsPartitionLiteral + "iam::aws:policy/P\"\n",
		"docs/guide.md":              "see " + awsPartitionLiteral + "eks::aws:cluster-access-policy/X\n",
		"internal/x/x_test.go":       "package x\nconst p = \"" + awsPartitionLiteral + "iam::aws:policy/P\"\n",
		"internal/awsfake/iam.go":    "package awsfake // " + awsPartitionLiteral + "iam::0:role/x\n",
		"internal/y/testdata/a.json": "\"" + awsPartitionLiteral + "x\"",
		"internal/z/z.go":            "package z\nconst p = \"arn:aws-cn:iam::aws:policy/P\" + \"arn:\" + partition\n",
	}
	var names []string
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	got := map[string]bool{}
	for _, hit := range partitionLiterals(dir, names) {
		got[strings.SplitN(hit, ":", 2)[0]] = true
	}
	if len(got) != 2 || !got["internal/x/x.go"] || !got["docs/guide.md"] {
		t.Errorf("found %v, want internal/x/x.go and docs/guide.md", got)
	}
}
