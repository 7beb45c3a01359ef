// Command gen-bandwidth writes internal/catalog's network bandwidth table: for every instance
// type, the karpenter.k8s.aws/instance-network-bandwidth value (megabits per second) each
// Karpenter release the provider plans for gives it. Karpenter does not read the bandwidth from
// EC2: it looks the type up in a table generated from the EC2 documentation
// (pkg/providers/instancetype/zz_generated.bandwidth.go, InstanceTypeBandwidthMegabits), and a
// type the table lacks has no such label. The tables only grow between releases, with rare
// changes of a value, so the output keeps one row per type with a value per release.
//
//	go run ./cmd/gen-bandwidth [-out internal/catalog/zz_generated_bandwidth.go] v1.9.3 v1.10.2 …
//
// Each release's module zip is fetched with `go mod download` (hash checked) and the table's
// file parsed with go/parser, not evaluated; the releases and their module sums are recorded in
// the output's header.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

const (
	module        = "github.com/aws/karpenter-provider-aws"
	bandwidthFile = "pkg/providers/instancetype/zz_generated.bandwidth.go"
	tableName     = "InstanceTypeBandwidthMegabits"
)

// release is one release's table.
type release struct {
	version, minor, sum string
	mbps                map[string]int64
}

func main() {
	out := flag.String("out", "internal/catalog/zz_generated_bandwidth.go", "Go file to write")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-bandwidth [-out FILE] vX.Y.Z…  (Karpenter AWS provider releases, oldest first)")
		os.Exit(2)
	}
	var releases []release
	for _, v := range flag.Args() {
		r, err := read(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen-bandwidth:", err)
			os.Exit(1)
		}
		releases = append(releases, r)
	}
	src, err := render(releases)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-bandwidth:", err)
		os.Exit(1)
	}
	for _, r := range releases {
		fmt.Printf("%s: %s %d types (%s)\n", *out, r.version, len(r.mbps), r.sum)
	}
}

// read fetches a release's module zip and parses its table.
func read(version string) (release, error) {
	z, err := modzip.Fetch(module, version, "")
	if err != nil {
		return release{}, err
	}
	defer func() { _ = z.Close() }()
	src, err := z.Read(module + "@" + version + "/" + bandwidthFile)
	if err != nil {
		return release{}, fmt.Errorf("%s@%s: %w", module, version, err)
	}
	mbps, err := parseTable(version, src)
	if err != nil {
		return release{}, err
	}
	return release{version: version, minor: minorOf(version), sum: z.Sum, mbps: mbps}, nil
}

// minorOf is "1.15" of "v1.15.2".
func minorOf(version string) string {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}

// parseTable reads the one map literal assigned to InstanceTypeBandwidthMegabits: string keys,
// positive integer values.
func parseTable(version string, src []byte) (map[string]int64, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, bandwidthFile, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out map[string]int64
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != tableName || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.CompositeLit)
			if !ok || out != nil {
				return nil, fmt.Errorf("%s %s: %s is not one map literal", version, bandwidthFile, tableName)
			}
			out = map[string]int64{}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					return nil, fmt.Errorf("%s: not a key: value entry", fset.Position(e.Pos()))
				}
				k, kok := kv.Key.(*ast.BasicLit)
				v, vok := kv.Value.(*ast.BasicLit)
				if !kok || !vok || k.Kind != token.STRING || v.Kind != token.INT {
					return nil, fmt.Errorf("%s: want \"type\": megabits", fset.Position(e.Pos()))
				}
				name, err := strconv.Unquote(k.Value)
				if err != nil {
					return nil, err
				}
				n, err := strconv.ParseInt(v.Value, 10, 64)
				if err != nil || n <= 0 {
					return nil, fmt.Errorf("%s: %s is not a positive bandwidth", fset.Position(v.Pos()), v.Value)
				}
				if _, dup := out[name]; dup {
					return nil, fmt.Errorf("%s: %s twice", fset.Position(k.Pos()), name)
				}
				out[name] = n
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s %s: no %s entries", version, bandwidthFile, tableName)
	}
	return out, nil
}

// render writes the table: the releases, then per type its value in each release (0: not in
// that release's table).
func render(releases []release) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by cmd/gen-bandwidth. DO NOT EDIT.\n//\n")
	b.WriteString("// Karpenter's network bandwidth table (" + bandwidthFile + ", " + tableName + ") of each release:\n")
	for _, r := range releases {
		fmt.Fprintf(&b, "//   %s@%s %s (%d types)\n", module, r.version, r.sum, len(r.mbps))
	}
	b.WriteString("\npackage catalog\n\n")
	b.WriteString("// bandwidthMinors are the Karpenter minors of bandwidthMbps's columns, oldest first.\n")
	b.WriteString("var bandwidthMinors = [...]string{")
	for i, r := range releases {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(r.minor))
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, "// bandwidthMbps is each type's megabits per second in each release's table (0: not in it).\n")
	fmt.Fprintf(&b, "var bandwidthMbps = map[string][%d]int32{\n", len(releases))
	names := map[string]bool{}
	for _, r := range releases {
		for n := range r.mbps {
			names[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(&b, "\t%q: {", n)
		for i, r := range releases {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(r.mbps[n], 10))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
