// Command gen-type-limits writes internal/typelimits/zz_generated.go: per EC2 instance type, the
// network limits and vCPUs the provider functions compute pod capacity from (functions get no
// provider configuration, so they cannot ask EC2).
//
// It reads two files Karpenter generates, at one commit of an aws/karpenter-provider-aws git
// repository (a bare mirror is enough):
//   - pkg/providers/instancetype/zz_generated.vpclimits.go: ENIs, IPv4 per ENI, network cards,
//     hypervisor, bare metal, trunking and branch ENIs (the VPC resource controller's limits);
//   - website/content/en/<docs>/reference/instance-types.md: each type's vCPUs and memory
//     (labels) and the pods and vpc.amazonaws.com/efa resources Karpenter computes for it.
//
// Only types both files list are written. The header records the repository commit.
//
//	go run ./cmd/gen-type-limits -repo <karpenter-provider-aws git dir> -rev <commit or tag> -docs v1.14
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// limits is one type's row.
type limits struct {
	vcpus, memoryMiB          int
	enis, ipv4PerENI, defCard int
	cardENIs                  []int
	hypervisor                string
	bareMetal, trunk          bool
	branches, efa, pods       int
}

const (
	vpcLimitsPath = "pkg/providers/instancetype/zz_generated.vpclimits.go"
	docsPathFmt   = "website/content/en/%s/reference/instance-types.md"
)

func main() {
	repo := flag.String("repo", "", "aws/karpenter-provider-aws git directory (required)")
	rev := flag.String("rev", "", "commit or tag to read (required)")
	docs := flag.String("docs", "", "documentation version folder, e.g. v1.14 (required)")
	out := flag.String("out", "internal/typelimits/zz_generated.go", "Go file to write")
	flag.Parse()
	if *repo == "" || *rev == "" || *docs == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	commit, err := git(*repo, "rev-parse", *rev+"^{commit}")
	if err != nil {
		log.Fatalf("gen-type-limits: %v", err)
	}
	commit = strings.TrimSpace(commit)
	vpcSrc, err := git(*repo, "show", commit+":"+vpcLimitsPath)
	if err != nil {
		log.Fatalf("gen-type-limits: %v", err)
	}
	docsPath := fmt.Sprintf(docsPathFmt, *docs)
	docSrc, err := git(*repo, "show", commit+":"+docsPath)
	if err != nil {
		log.Fatalf("gen-type-limits: %v", err)
	}
	vpc, err := parseVPCLimits([]byte(vpcSrc))
	if err != nil {
		log.Fatalf("gen-type-limits: %s: %v", vpcLimitsPath, err)
	}
	doc, err := parseDocs(docSrc)
	if err != nil {
		log.Fatalf("gen-type-limits: %s: %v", docsPath, err)
	}
	rows, dropped := join(vpc, doc)
	src, err := render(rows, fmt.Sprintf("aws/karpenter-provider-aws commit %s (%s, %s)", commit, vpcLimitsPath, docsPath),
		fmt.Sprintf("-repo <git dir> -rev %s -docs %s", commit, *docs))
	if err != nil {
		log.Fatalf("gen-type-limits: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatalf("gen-type-limits: %v", err)
	}
	fmt.Printf("%s: %d instance types (%d in the VPC limits only, %d in the docs only)\n", *out, len(rows), dropped[0], dropped[1])
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(b), nil
}

// parseVPCLimits reads the `Limits` map literal of Karpenter's generated Go file.
func parseVPCLimits(src []byte) (map[string]limits, error) {
	f, err := parser.ParseFile(token.NewFileSet(), vpcLimitsPath, src, 0)
	if err != nil {
		return nil, err
	}
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "Limits" && len(vs.Values) == 1 {
			lit, _ = vs.Values[0].(*ast.CompositeLit)
		}
		return lit == nil
	})
	if lit == nil {
		return nil, fmt.Errorf("no `var Limits = map[...]...{...}`")
	}
	out := make(map[string]limits, len(lit.Elts))
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil, fmt.Errorf("unexpected element %T", e)
		}
		name, err := stringLit(kv.Key)
		if err != nil {
			return nil, err
		}
		l, err := vpcEntry(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s listed twice", name)
		}
		out[name] = l
	}
	return out, nil
}

func vpcEntry(x ast.Expr) (limits, error) {
	var l limits
	fields, err := keyed(x)
	if err != nil {
		return l, err
	}
	for name, v := range fields {
		switch name {
		case "Interface":
			l.enis, err = intLit(v)
		case "IPv4PerInterface":
			l.ipv4PerENI, err = intLit(v)
		case "IsTrunkingCompatible":
			l.trunk, err = boolLit(v)
		case "BranchInterface":
			l.branches, err = intLit(v)
		case "DefaultNetworkCardIndex":
			l.defCard, err = intLit(v)
		case "Hypervisor":
			l.hypervisor, err = stringLit(v)
		case "IsBareMetal":
			l.bareMetal, err = boolLit(v)
		case "NetworkCards":
			l.cardENIs, err = cards(v)
		}
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
	}
	total := 0
	for _, n := range l.cardENIs {
		total += n
	}
	switch {
	case l.enis < 1 || l.ipv4PerENI < 1:
		return l, fmt.Errorf("no ENIs or IPv4 addresses")
	case len(l.cardENIs) > 0 && (total != l.enis || l.defCard >= len(l.cardENIs)):
		return l, fmt.Errorf("network cards %v do not add up to %d ENIs with default card %d", l.cardENIs, l.enis, l.defCard)
	}
	return l, nil
}

// cards is the ENIs per card, by card index.
func cards(x ast.Expr) ([]int, error) {
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("not a literal")
	}
	var out []int
	for _, e := range lit.Elts {
		fields, err := keyed(e)
		if err != nil {
			return nil, err
		}
		idx, err1 := intLit(fields["NetworkCardIndex"])
		enis, err2 := intLit(fields["MaximumNetworkInterfaces"])
		if err1 != nil || err2 != nil || idx < 0 || idx > 64 {
			return nil, fmt.Errorf("bad card %v %v", err1, err2)
		}
		for len(out) <= idx {
			out = append(out, 0)
		}
		out[idx] = enis
	}
	return out, nil
}

func keyed(x ast.Expr) (map[string]ast.Expr, error) {
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return nil, fmt.Errorf("not a composite literal: %T", x)
	}
	out := map[string]ast.Expr{}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return nil, fmt.Errorf("unkeyed field")
		}
		id, ok := kv.Key.(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("field key %T", kv.Key)
		}
		out[id.Name] = kv.Value
	}
	return out, nil
}

func stringLit(x ast.Expr) (string, error) {
	b, ok := x.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", fmt.Errorf("not a string literal")
	}
	return strconv.Unquote(b.Value)
}

func intLit(x ast.Expr) (int, error) {
	b, ok := x.(*ast.BasicLit)
	if !ok || b.Kind != token.INT {
		return 0, fmt.Errorf("not an integer literal")
	}
	return strconv.Atoi(b.Value)
}

func boolLit(x ast.Expr) (bool, error) {
	id, ok := x.(*ast.Ident)
	if !ok || (id.Name != "true" && id.Name != "false") {
		return false, fmt.Errorf("not a boolean literal")
	}
	return id.Name == "true", nil
}

// docEntry is what the instance-types reference says of one type.
type docEntry struct{ vcpus, memoryMiB, pods, efa int }

// parseDocs reads the reference's "### `type`" sections and their " |name|value|" table rows.
func parseDocs(src string) (map[string]docEntry, error) {
	out := map[string]docEntry{}
	var name string
	var cur docEntry
	flush := func() error {
		if name == "" {
			return nil
		}
		if cur.vcpus < 1 || cur.memoryMiB < 1 || cur.pods < 1 {
			return fmt.Errorf("%s: vCPUs, memory or pods missing", name)
		}
		if _, dup := out[name]; dup {
			return fmt.Errorf("%s listed twice", name)
		}
		out[name] = cur
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if t, ok := strings.CutPrefix(line, "### `"); ok {
			if err := flush(); err != nil {
				return nil, err
			}
			name, cur = strings.TrimSuffix(t, "`"), docEntry{}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if name == "" || !strings.HasPrefix(line, "|") || len(cells) != 2 {
			continue
		}
		var dst *int
		switch cells[0] {
		case "karpenter.k8s.aws/instance-cpu":
			dst = &cur.vcpus
		case "karpenter.k8s.aws/instance-memory":
			dst = &cur.memoryMiB
		case "pods":
			dst = &cur.pods
		case "vpc.amazonaws.com/efa":
			dst = &cur.efa
		default:
			continue
		}
		v, err := strconv.Atoi(cells[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, cells[0], err)
		}
		*dst = v
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no instance types")
	}
	return out, sc.Err()
}

type row struct {
	name string
	limits
}

// join keeps the types both sources list, sorted; dropped counts the others on each side.
func join(vpc map[string]limits, doc map[string]docEntry) (rows []row, dropped [2]int) {
	for name, l := range vpc {
		d, ok := doc[name]
		if !ok {
			dropped[0]++
			continue
		}
		l.vcpus, l.memoryMiB, l.pods, l.efa = d.vcpus, d.memoryMiB, d.pods, d.efa
		rows = append(rows, row{name, l})
	}
	dropped[1] = len(doc) - len(rows)
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.name, b.name) })
	return rows, dropped
}

func render(rows []row, source, args string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by cmd/gen-type-limits; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Source: %s.\n", source)
	fmt.Fprintf(&b, "// Regenerate: go run ./cmd/gen-type-limits %s\n\n", args)
	fmt.Fprintf(&b, "package typelimits\n\n")
	fmt.Fprintf(&b, "// Source names the commit the table was generated from.\nconst Source = %q\n\n", source)
	fmt.Fprintf(&b, "// table holds %d instance types. Columns: vCPUs, memory MiB, ENIs (all cards), IPv4 per ENI,\n", len(rows))
	fmt.Fprintf(&b, "// default card, ENIs per card, hypervisor, bare metal, trunk-compatible, branch ENIs, EFA\n")
	fmt.Fprintf(&b, "// interfaces, and the pods Karpenter's reference lists for the type (AL2023, no reserved ENIs).\n")
	fmt.Fprintf(&b, "var table = map[string]row{\n")
	for _, r := range rows {
		c := make([]string, len(r.cardENIs))
		for i, n := range r.cardENIs {
			c[i] = strconv.Itoa(n)
		}
		fmt.Fprintf(&b, "\t%q: {%d, %d, %d, %d, %d, []int{%s}, %q, %t, %t, %d, %d, %d},\n", r.name, r.vcpus, r.memoryMiB, r.enis,
			r.ipv4PerENI, r.defCard, strings.Join(c, ", "), r.hypervisor, r.bareMetal, r.trunk, r.branches, r.efa, r.pods)
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}
