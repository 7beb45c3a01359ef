// Command gen-pricing turns the on-demand price tables Karpenter generates and ships
// (pkg/providers/pricing/zz_generated.pricing_aws*.go in aws/karpenter-provider-aws, one file per
// partition) into internal/pricing's fallback table: USD (CNY in China) per hour by region and
// instance type, the table Karpenter prices with when the AWS Pricing API cannot be reached.
//
//	go run ./cmd/gen-pricing -karpenter-version v1.15.2 [-out internal/pricing/zz_generated_ondemand.go] [-zip PATH]
//
// Without -zip the release's module zip is fetched with `go mod download` (run in a temporary
// folder, so this repository's go.mod is not touched) and its hash checked against the h1: sum
// the go command reports; with -zip that file is read instead. The Go files are read from the
// zip with go/parser, not evaluated, and the module sum and each file's "generated at" time are
// recorded in the output's header.
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
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

// module is the Karpenter AWS provider's module path.
const module = "github.com/aws/karpenter-provider-aws"

// pricingDir is where the generated tables live inside the module.
const pricingDir = "pkg/providers/pricing/"

// partitionFile is one generated table, by AWS partition. The aws partition's comes first: its
// generation date is the table's.
type partitionFile struct {
	partition, file string
}

var partitionFiles = []partitionFile{
	{"aws", "zz_generated.pricing_aws.go"},
	{"aws-us-gov", "zz_generated.pricing_aws_us_gov.go"},
	{"aws-cn", "zz_generated.pricing_aws_cn.go"},
}

// table is what one generated file holds.
type table struct {
	partitionFile
	generated time.Time // from its "// generated at <RFC 3339> for <region>" comment
	genFor    string    // the region that comment names
	prices    map[string]map[string]float64
}

func main() {
	version := flag.String("karpenter-version", "", "Karpenter release to take the tables from, e.g. v1.15.2 (required)")
	out := flag.String("out", "internal/pricing/zz_generated_ondemand.go", "Go file to write")
	zipPath := flag.String("zip", "", "the release's module zip to read instead of downloading it with go mod download")
	flag.Parse()
	if *version == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-pricing -karpenter-version vX.Y.Z [-out FILE] [-zip MODULE.zip]")
		os.Exit(2)
	}
	if err := run(*version, *zipPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-pricing:", err)
		os.Exit(1)
	}
}

// run reads the tables from the module zip (downloaded when zipPath is empty) and writes out.
func run(version, zipPath, out string) error {
	wantSum := ""
	if zipPath == "" {
		var err error
		if zipPath, wantSum, err = modzip.Download(module, version); err != nil {
			return err
		}
	}
	sum, tables, err := readZip(zipPath, wantSum, version)
	if err != nil {
		return err
	}
	src, err := render(version, sum, tables)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	regions, prices := 0, 0
	for _, t := range tables {
		regions += len(t.prices)
		for _, m := range t.prices {
			prices += len(m)
		}
	}
	fmt.Printf("%s: %d regions, %d prices, generated %s (%s)\n", out, regions, prices,
		tables[0].generated.UTC().Format(time.DateOnly), sum)
	return nil
}

// readZip returns the zip's h1: hash (checked against wantSum when set) and the tables it holds
// for version, the aws partition's first.
func readZip(path, wantSum, version string) (string, []table, error) {
	z, err := modzip.Open(path, wantSum)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = z.Close() }()
	var tables []table
	regionFile := map[string]string{}
	for _, pf := range partitionFiles {
		src, err := z.Read(module + "@" + version + "/" + pricingDir + pf.file)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", path, err)
		}
		t, err := parseTable(pf.file, src)
		if err != nil {
			return "", nil, err
		}
		t.partitionFile = pf
		for r := range t.prices {
			if prev, dup := regionFile[r]; dup {
				return "", nil, fmt.Errorf("region %s is in both %s and %s", r, prev, pf.file)
			}
			regionFile[r] = pf.file
		}
		tables = append(tables, t)
	}
	return z.Sum, tables, nil
}

// parseTable reads one generated file: its "generated at" comment and its one map literal of
// region to instance type to price. Every price must be a positive number literal.
func parseTable(name string, src []byte) (table, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return table{}, err
	}
	t := table{prices: map[string]map[string]float64{}}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			rest, ok := strings.CutPrefix(c.Text, "// generated at ")
			if !ok {
				continue
			}
			fields := strings.Fields(rest)
			if len(fields) != 3 || fields[1] != "for" {
				return table{}, fmt.Errorf("%s: unexpected %q", fset.Position(c.Pos()), c.Text)
			}
			if !t.generated.IsZero() {
				return table{}, fmt.Errorf("%s: a second \"generated at\" comment", fset.Position(c.Pos()))
			}
			if t.generated, err = time.Parse(time.RFC3339, fields[0]); err != nil {
				return table{}, fmt.Errorf("%s: %w", fset.Position(c.Pos()), err)
			}
			t.genFor = fields[2]
		}
	}
	if t.generated.IsZero() {
		return table{}, fmt.Errorf("%s: no \"// generated at <time> for <region>\" comment", name)
	}

	lits := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.CompositeLit)
				if !ok || !isPriceMap(lit.Type) {
					continue
				}
				lits++
				if err := addRegions(fset, lit, t.prices); err != nil {
					return table{}, err
				}
			}
		}
	}
	if lits != 1 {
		return table{}, fmt.Errorf("%s: %d map[string]map[...]float64 literals, want 1", name, lits)
	}
	n := 0
	for _, m := range t.prices {
		n += len(m)
	}
	if n == 0 {
		return table{}, fmt.Errorf("%s: no prices", name)
	}
	return t, nil
}

// isPriceMap says whether e is map[string]map[K]float64, K being any named type (Karpenter's
// is ec2types.InstanceType, a string).
func isPriceMap(e ast.Expr) bool {
	outer, ok := e.(*ast.MapType)
	if !ok || !isIdent(outer.Key, "string") {
		return false
	}
	inner, ok := outer.Value.(*ast.MapType)
	return ok && isIdent(inner.Value, "float64")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// addRegions adds the regions of a price map literal to prices.
func addRegions(fset *token.FileSet, lit *ast.CompositeLit, prices map[string]map[string]float64) error {
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			return fmt.Errorf("%s: not a key: value element", fset.Position(el.Pos()))
		}
		region, err := stringLit(fset, kv.Key)
		if err != nil {
			return err
		}
		types, ok := kv.Value.(*ast.CompositeLit)
		if !ok {
			return fmt.Errorf("%s: region %s is not a map literal", fset.Position(kv.Value.Pos()), region)
		}
		if _, dup := prices[region]; dup {
			return fmt.Errorf("%s: region %s listed twice", fset.Position(kv.Pos()), region)
		}
		m := map[string]float64{}
		for _, el := range types.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				return fmt.Errorf("%s: not a key: value element", fset.Position(el.Pos()))
			}
			name, err := stringLit(fset, kv.Key)
			if err != nil {
				return err
			}
			price, err := priceLit(fset, kv.Value)
			if err != nil {
				return fmt.Errorf("%s %s: %w", region, name, err)
			}
			if _, dup := m[name]; dup {
				return fmt.Errorf("%s: %s %s listed twice", fset.Position(kv.Pos()), region, name)
			}
			m[name] = price
		}
		prices[region] = m
	}
	return nil
}

func stringLit(fset *token.FileSet, e ast.Expr) (string, error) {
	if bl, ok := e.(*ast.BasicLit); ok && bl.Kind == token.STRING {
		if s, err := strconv.Unquote(bl.Value); err == nil && s != "" {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s: not a non-empty string literal", fset.Position(e.Pos()))
}

func priceLit(fset *token.FileSet, e ast.Expr) (float64, error) {
	if bl, ok := e.(*ast.BasicLit); ok && (bl.Kind == token.FLOAT || bl.Kind == token.INT) {
		v, err := strconv.ParseFloat(bl.Value, 64)
		if err == nil && v > 0 && !math.IsInf(v, 0) {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s: not a positive number literal", fset.Position(e.Pos()))
}

// maxLine is how long a line of prices may grow (not counting its indentation).
const maxLine = 110

// render is the Go file: the provenance constants and the regions' prices, sorted, each instance
// family ("m5" of "m5.large") on lines of its own.
func render(version, sum string, tables []table) ([]byte, error) {
	aws := tables[0]
	all := map[string]map[string]float64{}
	for _, t := range tables {
		for r, m := range t.prices {
			all[r] = m
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by cmd/gen-pricing from %s %s (module zip %s), %s; DO NOT EDIT.\n",
		module, version, sum, pricingDir+"zz_generated.pricing_aws*.go")
	fmt.Fprintf(&b, "// Regenerate: make generate-pricing KARPENTER_PRICING_VERSION=%s\n", version)
	fmt.Fprintf(&b, "//\n// Karpenter generated its tables at (their \"generated at\" comments):\n")
	for _, t := range tables {
		fmt.Fprintf(&b, "//   - %s (%s): %s, for %s\n", t.file, t.partition, t.generated.UTC().Format(time.RFC3339), t.genFor)
	}
	fmt.Fprintf(&b, "\npackage pricing\n\n")
	fmt.Fprintf(&b, "// Provenance of fallbackOnDemand: the Karpenter release it comes from, the date Karpenter\n")
	fmt.Fprintf(&b, "// generated its aws partition table, and the module zip's go.sum hash.\n")
	fmt.Fprintf(&b, "const (\n\tFallbackKarpenterVersion = %q\n\tFallbackGenerated = %q\n\tFallbackModuleSum = %q\n)\n\n",
		version, aws.generated.UTC().Format(time.DateOnly), sum)
	fmt.Fprintf(&b, "// fallbackOnDemand is the hourly on-demand price by region, then instance type (%d regions).\n", len(all))
	fmt.Fprintf(&b, "var fallbackOnDemand = map[string]map[string]float64{\n")
	for _, r := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintf(&b, "%q: {\n", r)
		family, line := "", 0
		for i, it := range slices.Sorted(maps.Keys(all[r])) {
			fam, _, _ := strings.Cut(it, ".")
			entry := fmt.Sprintf("%q: %s,", it, strconv.FormatFloat(all[r][it], 'g', -1, 64))
			switch {
			case i == 0:
			case fam != family || line+1+len(entry) > maxLine:
				b.WriteString("\n")
				line = 0
			default:
				b.WriteString(" ")
				line++
			}
			family = fam
			line += len(entry)
			b.WriteString(entry)
		}
		b.WriteString("\n},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
