// Command gen-eni-max-pods turns an amazon-eks-ami eni-max-pods.txt file into the table the
// capacity tests check the pod-capacity engine against, so the repository carries the figures
// itself. Only the data is kept (instance type, max pods; sorted by type); the header is ours and
// names the source, the input's git blob id and how to regenerate the file.
//
//	go run ./cmd/gen-eni-max-pods -in <path>/eni-max-pods.txt -ref '<commit, date>' -out internal/capacity/testdata/eni-max-pods.tsv
package main

import (
	"bytes"
	"crypto/sha1" // git's object id, not a security measure
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/capacity"
)

// upstreamPath is where amazon-eks-ami kept the table.
const upstreamPath = "awslabs/amazon-eks-ami templates/shared/runtime/eni-max-pods.txt"

func main() {
	in := flag.String("in", "", "amazon-eks-ami eni-max-pods.txt to read (required)")
	out := flag.String("out", "internal/capacity/testdata/eni-max-pods.tsv", "table to write")
	ref := flag.String("ref", "", "upstream version the input was taken at, e.g. `commit 2bed73dc (file last changed 2026-02-27)`; recorded in the header")
	flag.Parse()
	if *in == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}

	src, err := os.ReadFile(*in)
	if err != nil {
		log.Fatalf("gen-eni-max-pods: %v", err)
	}
	table, err := capacity.ParseENIMaxPods(bytes.NewReader(src))
	if err != nil {
		log.Fatalf("gen-eni-max-pods: %s: %v", *in, err)
	}
	if len(table) == 0 {
		log.Fatalf("gen-eni-max-pods: %s has no data rows", *in)
	}
	data := render(table, gitBlobID(src), *ref, *out)

	// The output must read back to the same table.
	back, err := capacity.ParseENIMaxPods(bytes.NewReader(data))
	if err != nil || !maps.Equal(back, table) {
		log.Fatalf("gen-eni-max-pods: output does not read back to the input table (%v)", err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatalf("gen-eni-max-pods: %v", err)
	}
	fmt.Printf("%s: %d instance types\n", *out, len(table))
}

// render writes the header lines ('#', which ParseENIMaxPods skips) and one
// "<type>\t<pods>" line per instance type, sorted, so a rerun on the same input is byte-identical.
func render(table map[string]int, blob, ref, out string) []byte {
	var b bytes.Buffer
	version := "git blob " + blob
	if ref != "" {
		version += ", " + ref
	}
	refFlag := ""
	if ref != "" {
		refFlag = " -ref '" + strings.ReplaceAll(ref, "'", `'\''`) + "'"
	}
	fmt.Fprintf(&b, "# ENI-limited max pods per EC2 instance type (secondary IPs, no caps): %d types. Columns: instance type, max pods.\n", len(table))
	fmt.Fprintf(&b, "# Source: %s (%s).\n", upstreamPath, version)
	fmt.Fprintf(&b, "# Generated, do not edit. Regenerate: go run ./cmd/gen-eni-max-pods -in <path to eni-max-pods.txt>%s -out %s\n", refFlag, out)
	for _, typ := range slices.Sorted(maps.Keys(table)) {
		fmt.Fprintf(&b, "%s\t%d\n", typ, table[typ])
	}
	return b.Bytes()
}

// gitBlobID is the id git gives the file's content, so the header pins the exact input.
func gitBlobID(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
