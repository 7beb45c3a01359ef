// Command gen-feature-gates writes internal/featuregates' table: every feature gate of every
// Karpenter release the provider plans for, with its default, read from the releases' own
// option parsing. Karpenter's core gates (--feature-gates, FEATURE_GATES) are declared in
// sigs.k8s.io/karpenter's pkg/operator/options/options.go: up to v1.14 as the flag's default
// string ("NodeRepair=false,ReservedCapacity=true,…"), from v1.15 as FeatureGate values (Name,
// Default). The AWS provider's gates (--aws-feature-gates, AWS_FEATURE_GATES) are the default
// string of its own options.go, where it has one.
//
//	go run ./cmd/gen-feature-gates [-out internal/featuregates/zz_generated_gates.go] v1.9.3 v1.10.2 …
//
// Each AWS provider release's module zip is fetched with `go mod download` (hash checked); the
// core release is the one its go.mod requires, or, when the module proxy does not serve that
// one, the same minor's .0 release (recorded as such in the output). The Go files are parsed,
// not evaluated.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/nodeplane/terraform-provider-karpenter/internal/modzip"
)

const (
	awsModule  = "github.com/aws/karpenter-provider-aws"
	coreModule = "sigs.k8s.io/karpenter"
	optionsGo  = "pkg/operator/options/options.go"
)

// gate is one feature gate as a release declares it.
type gate struct {
	Name    string
	Default bool
	AWS     bool // an --aws-feature-gates gate
}

// release is what the table records of one AWS provider release.
type release struct {
	Minor                string
	Provider, ProviderH1 string
	Core, CoreH1         string
	CoreRequired         string // the core release go.mod requires, when another one was read
	Gates                []gate
}

func main() {
	out := flag.String("out", "internal/featuregates/zz_generated_gates.go", "Go file to write")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gen-feature-gates [-out FILE] vX.Y.Z…  (Karpenter AWS provider releases)")
		os.Exit(2)
	}
	var rels []release
	for _, v := range flag.Args() {
		r, err := read(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen-feature-gates:", err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d gates (core %s)\n", v, len(r.Gates), r.Core)
		rels = append(rels, r)
	}
	src, err := render(rels)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-feature-gates:", err)
		os.Exit(1)
	}
}

// read reads one AWS provider release and the core release it builds on.
func read(version string) (release, error) {
	r := release{Provider: version, Minor: minorOf(version)}
	awsSrc, goMod, sum, err := files(awsModule, version, optionsGo, "go.mod")
	if err != nil {
		return r, err
	}
	r.ProviderH1 = sum
	core := requiredVersion(goMod, coreModule)
	if core == "" {
		return r, fmt.Errorf("%s@%s: go.mod requires no %s", awsModule, version, coreModule)
	}
	coreSrc, _, coreSum, err := files(coreModule, core, optionsGo, "")
	if err != nil && minorOf(core)+".0" != strings.TrimPrefix(core, "v") {
		// Not served: the same minor's first release declares the same gates.
		r.CoreRequired = core
		core = "v" + minorOf(core) + ".0"
		coreSrc, _, coreSum, err = files(coreModule, core, optionsGo, "")
	}
	if err != nil {
		return r, err
	}
	r.Core, r.CoreH1 = core, coreSum
	coreGates, err := coreGates(coreSrc)
	if err != nil {
		return r, fmt.Errorf("%s@%s: %w", coreModule, core, err)
	}
	awsGates, err := defaultString(awsSrc, "AWS_FEATURE_GATES")
	if err != nil {
		return r, fmt.Errorf("%s@%s: %w", awsModule, version, err)
	}
	for i := range awsGates {
		awsGates[i].AWS = true
	}
	r.Gates = append(coreGates, awsGates...)
	return r, nil
}

// files downloads module@version and reads two of its files ("" for none).
func files(module, version, a, b string) (aSrc, bSrc []byte, sum string, err error) {
	z, err := modzip.Fetch(module, version, "")
	if err != nil {
		return nil, nil, "", err
	}
	defer func() { _ = z.Close() }()
	prefix := module + "@" + version + "/"
	if aSrc, err = z.Read(prefix + a); err != nil {
		return nil, nil, "", err
	}
	if b != "" {
		if bSrc, err = z.Read(prefix + b); err != nil {
			return nil, nil, "", err
		}
	}
	return aSrc, bSrc, z.Sum, nil
}

var requireLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?(\S+)\s+(v\d+\.\d+\.\d+\S*)`)

// requiredVersion is the version go.mod requires of module ("" when it does not).
func requiredVersion(goMod []byte, module string) string {
	for _, m := range requireLine.FindAllSubmatch(goMod, -1) {
		if string(m[1]) == module {
			return string(m[2])
		}
	}
	return ""
}

func minorOf(version string) string {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return version
	}
	return parts[0] + "." + parts[1]
}

// coreGates are the core gates of an options.go: its FeatureGate values when it declares them,
// else the flag's default string.
func coreGates(src []byte) ([]gate, error) {
	f, err := parser.ParseFile(token.NewFileSet(), optionsGo, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var gates []gate
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "FeatureGate" {
			return true
		}
		var g gate
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, ok := kv.Key.(*ast.Ident)
			switch {
			case !ok:
			case key.Name == "Name":
				if b, ok := kv.Value.(*ast.BasicLit); ok {
					g.Name, _ = strconv.Unquote(b.Value)
				}
			case key.Name == "Default":
				if id, ok := kv.Value.(*ast.Ident); ok {
					g.Default = id.Name == "true"
				}
			}
		}
		if g.Name != "" {
			gates = append(gates, g)
		}
		return true
	})
	if len(gates) > 0 {
		return gates, nil
	}
	gates, err = defaultString(src, "FEATURE_GATES")
	if err == nil && len(gates) == 0 {
		err = fmt.Errorf("no feature gates declared")
	}
	return gates, err
}

// defaultString parses the gates of env.WithDefaultString(<env>, "Name=bool,…") in src; none
// when src has no such call.
func defaultString(src []byte, env string) ([]gate, error) {
	f, err := parser.ParseFile(token.NewFileSet(), optionsGo, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var value string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "WithDefaultString" {
			return true
		}
		name, ok1 := call.Args[0].(*ast.BasicLit)
		def, ok2 := call.Args[1].(*ast.BasicLit)
		if ok1 && ok2 && name.Value == strconv.Quote(env) {
			value, _ = strconv.Unquote(def.Value)
		}
		return true
	})
	return parseGates(value)
}

// parseGates reads "Name=true,Other=false".
func parseGates(s string) ([]gate, error) {
	var out []gate
	for _, entry := range strings.Split(s, ",") {
		if strings.TrimSpace(entry) == "" {
			continue
		}
		name, val, ok := strings.Cut(strings.TrimSpace(entry), "=")
		on, err := strconv.ParseBool(val)
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("feature gate default %q is not Name=bool", entry)
		}
		out = append(out, gate{Name: name, Default: on})
	}
	return out, nil
}

func render(rels []release) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by cmd/gen-feature-gates; DO NOT EDIT.\n//\n// Read from each release's pkg/operator/options/options.go:\n")
	for _, r := range rels {
		fmt.Fprintf(&b, "//   %s@%s (%s); %s@%s (%s)", awsModule, r.Provider, r.ProviderH1, coreModule, r.Core, r.CoreH1)
		if r.CoreRequired != "" {
			fmt.Fprintf(&b, ", read in place of %s, which go.mod requires and the module proxy does not serve", r.CoreRequired)
		}
		b.WriteString("\n")
	}
	b.WriteString("\npackage featuregates\n\nvar releases = []release{\n")
	for _, r := range rels {
		fmt.Fprintf(&b, "\t{Minor: %q, Provider: %q, Core: %q, Gates: []Gate{\n", r.Minor, r.Provider, r.Core)
		for _, g := range r.Gates {
			fmt.Fprintf(&b, "\t\t{Name: %q, Default: %v, AWS: %v},\n", g.Name, g.Default, g.AWS)
		}
		b.WriteString("\t}},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
