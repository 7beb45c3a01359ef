package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
)

// Call is one IAM action the controller's code calls, the feature gate it is called only under
// ("" none) and the file (inside the module) that calls it.
type Call struct {
	Action, Gate, File string
}

// sdkService is the import path prefix of the AWS SDK for Go v2's service clients.
const sdkService = "github.com/aws/aws-sdk-go-v2/service/"

// iamPrefix is the IAM service prefix of each SDK service package. A package the code calls that
// is not here is an error: the table needs its prefix.
var iamPrefix = map[string]string{
	"arczonalshift":   "arc-zonal-shift",
	"ec2":             "ec2",
	"eks":             "eks",
	"iam":             "iam",
	"pricing":         "pricing",
	"sqs":             "sqs",
	"ssm":             "ssm",
	"sts":             "sts",
	"timestreamwrite": "timestream",
}

// coreEntry is a cloud provider method Karpenter's core (sigs.k8s.io/karpenter, not in the
// module) calls only for a value the provider hands it: Reboot only on a node whose repair policy's
// action is RebootNode. The method is then under whatever gate decides every use of that value.
type coreEntry struct {
	Type, Method, Only string
}

var coreEntries = []coreEntry{{Type: "CloudProvider", Method: "Reboot", Only: "RebootNode"}}

// Analyze finds the AWS SDK calls the Go files (path → source) make.
//
// A call is a method call whose name is an operation of an SDK service the code names (the
// service package's <Operation>Input type appears in it) and whose receiver is a variable or
// field of a client type of that service (*<service>.Client, or an interface whose methods take
// that service's inputs, by type name) or which is passed a <service>.<Operation>Input literal;
// <service>.New<Operation>Paginator counts as the operation. Functions are matched by name, not
// type: a method nothing calls is dead (its calls are left out) unless something outside the
// module may call it: main, init, the cloud provider's methods, and exported methods no interface
// of the module declares.
//
// A call is under feature gate G when the code reads G (a FeatureGates field, or a parameter,
// field or variable that only ever holds it) in an if that guards the call (its body, its else
// for a negated gate, or what follows an if !G { return }) or in lo.Ternary's condition, or when
// every use of the function that makes it is (its callers, by name, or for a coreEntry every use
// of the value Karpenter's core calls it for). Matching by name errs one way: a name several
// functions share counts the uses of all, so a call is kept (not dead) and ungated more often,
// never less; the table may ask for an action the controller does not call, not the reverse.
func Analyze(files map[string][]byte) ([]Call, error) {
	a := &analyzer{fset: token.NewFileSet(), byName: map[string][]*function{}, uses: map[string][]use{},
		ifaceMethods: map[string]bool{}, ops: map[string]map[string]bool{}, clientTypes: map[string]string{},
		clients: map[string]map[string]bool{}, fieldGate: map[string]string{}, paramGate: map[*function]map[string]string{},
		localGate: map[*function]map[string]string{}, gatesVar: map[*function]map[string]bool{}, guards: map[*function][]guard{},
		gate: map[*function]string{}, dead: map[*function]bool{}}
	for _, path := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(a.fset, path, files[path], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		a.add(path, f)
	}
	a.types()
	a.taint()
	for _, f := range a.funcs {
		a.guards[f] = a.guardsOf(f)
	}
	a.liveness()
	a.gates()
	calls, err := a.calls()
	if err == nil && len(calls) == 0 {
		err = fmt.Errorf("no AWS SDK calls found in %d files", len(files))
	}
	return calls, err
}

type analyzer struct {
	fset  *token.FileSet
	files []*file
	funcs []*function
	// byName are the functions and methods by name; uses every identifier in a function body (or a
	// package-level var's value) by name.
	byName map[string][]*function
	uses   map[string][]use
	// ifaceMethods are the method names the module's interfaces declare.
	ifaceMethods map[string]bool
	// ops are the operations each SDK service package has in the code; clientTypes the interface
	// types of one service's client, by type name; clients the variables and fields of a client type,
	// by name.
	ops         map[string]map[string]bool
	clientTypes map[string]string
	clients     map[string]map[string]bool
	// fieldGate, paramGate and localGate are the fields, parameters and variables that only ever
	// hold a gate's value; gatesVar the variables that hold a FeatureGates struct.
	fieldGate map[string]string
	paramGate map[*function]map[string]string
	localGate map[*function]map[string]string
	gatesVar  map[*function]map[string]bool
	guards    map[*function][]guard
	gate      map[*function]string
	dead      map[*function]bool
}

type file struct {
	path string
	ast  *ast.File
	sdk  map[string]string // import name → SDK service package
}

type function struct {
	name, recv string
	file       *file
	decl       *ast.FuncDecl
}

// use is an identifier at pos in fn (nil: a package-level var's value).
type use struct {
	fn  *function
	pos token.Pos
}

// guard is a range of code that runs only with gate on.
type guard struct {
	pos, end token.Pos
	gate     string
}

func (a *analyzer) add(path string, f *ast.File) {
	fl := &file{path: path, ast: f, sdk: map[string]string{}}
	a.files = append(a.files, fl)
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		svc, ok := strings.CutPrefix(p, sdkService)
		if !ok || strings.Contains(svc, "/") {
			continue
		}
		name := svc
		if imp.Name != nil {
			name = imp.Name.Name
		}
		fl.sdk[name] = svc
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Body == nil {
				continue
			}
			fn := &function{name: d.Name.Name, recv: recvType(d), file: fl, decl: d}
			a.funcs = append(a.funcs, fn)
			a.byName[fn.name] = append(a.byName[fn.name], fn)
			ast.Inspect(d.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					a.uses[id.Name] = append(a.uses[id.Name], use{fn, id.Pos()})
				}
				return true
			})
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, v := range vs.Values {
						ast.Inspect(v, func(n ast.Node) bool {
							if id, ok := n.(*ast.Ident); ok {
								a.uses[id.Name] = append(a.uses[id.Name], use{nil, id.Pos()})
							}
							return true
						})
					}
				}
			}
		}
	}
}

func recvType(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// types finds the SDK operations, the client interfaces and the variables and fields of client
// types.
func (a *analyzer) types() {
	for _, fl := range a.files {
		ast.Inspect(fl.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && fl.sdk[x.Name] != "" {
					if op, ok := strings.CutSuffix(n.Sel.Name, "Input"); ok && op != "" {
						a.op(fl.sdk[x.Name], op)
					} else if op := paginatorOp(n.Sel.Name); op != "" {
						a.op(fl.sdk[x.Name], op)
					}
				}
			case *ast.TypeSpec:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					if svc := a.clientInterface(fl, it); svc != "" {
						a.clientTypes[n.Name.Name] = svc
					}
				}
			}
			return true
		})
	}
	for _, fl := range a.files {
		ast.Inspect(fl.ast, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if svc := a.typeService(fl, n.Type); svc != "" {
					for _, name := range n.Names {
						a.client(name.Name, svc)
					}
				}
			case *ast.ValueSpec:
				if svc := a.typeService(fl, n.Type); svc != "" {
					for _, name := range n.Names {
						a.client(name.Name, svc)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i, r := range n.Rhs {
						if svc := newClient(fl, r); svc != "" {
							a.client(lastName(n.Lhs[i]), svc)
						}
					}
				}
			case *ast.KeyValueExpr:
				if svc := newClient(fl, n.Value); svc != "" {
					a.client(lastName(n.Key), svc)
				}
			}
			return true
		})
	}
}

func (a *analyzer) op(svc, op string) {
	if a.ops[svc] == nil {
		a.ops[svc] = map[string]bool{}
	}
	a.ops[svc][op] = true
}

func (a *analyzer) client(name, svc string) {
	if name == "" || name == "_" {
		return
	}
	if a.clients[name] == nil {
		a.clients[name] = map[string]bool{}
	}
	a.clients[name][svc] = true
}

// clientInterface is the service whose inputs every method of it takes; "" when not one.
func (a *analyzer) clientInterface(fl *file, it *ast.InterfaceType) string {
	for _, m := range it.Methods.List {
		for _, name := range m.Names {
			a.ifaceMethods[name.Name] = true
		}
	}
	svc := ""
	for _, m := range it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok {
			return ""
		}
		found := ""
		for _, p := range ft.Params.List {
			if s, ok := p.Type.(*ast.StarExpr); ok {
				if sel, ok := s.X.(*ast.SelectorExpr); ok && strings.HasSuffix(sel.Sel.Name, "Input") {
					if x, ok := sel.X.(*ast.Ident); ok {
						found = fl.sdk[x.Name]
					}
				}
			}
		}
		if found == "" || (svc != "" && found != svc) {
			svc = "-"
		} else if svc == "" {
			svc = found
		}
	}
	if svc == "-" {
		return ""
	}
	return svc
}

// typeService is the service of a client type: *<svc>.Client or a client interface by name.
func (a *analyzer) typeService(fl *file, t ast.Expr) string {
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch t := t.(type) {
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok && t.Sel.Name == "Client" && fl.sdk[x.Name] != "" {
			return fl.sdk[x.Name]
		}
		return a.clientTypes[t.Sel.Name]
	case *ast.Ident:
		return a.clientTypes[t.Name]
	}
	return ""
}

// newClient is the service of <svc>.NewFromConfig(…) or <svc>.New(…); "" otherwise.
func newClient(fl *file, e ast.Expr) string {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || (sel.Sel.Name != "NewFromConfig" && sel.Sel.Name != "New") {
		return ""
	}
	if x, ok := sel.X.(*ast.Ident); ok {
		return fl.sdk[x.Name]
	}
	return ""
}

// paginatorOp is Op of New<Op>Paginator; "" otherwise.
func paginatorOp(name string) string {
	if op, ok := strings.CutPrefix(name, "New"); ok {
		if op, ok := strings.CutSuffix(op, "Paginator"); ok {
			return op
		}
	}
	return ""
}

// lastName is the name an expression ends in: x of p.x, f of p.f(), "" otherwise.
func lastName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.CallExpr:
		return lastName(e.Fun)
	case *ast.ParenExpr:
		return lastName(e.X)
	case *ast.StarExpr:
		return lastName(e.X)
	case *ast.IndexExpr:
		return lastName(e.X)
	}
	return ""
}

// gateOf is the gate whose value e is (positive: e is the gate, else its negation); "" none.
func (a *analyzer) gateOf(f *function, e ast.Expr) (gate string, positive bool) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return a.gateOf(f, e.X)
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			g, p := a.gateOf(f, e.X)
			return g, !p
		}
	case *ast.SelectorExpr:
		if a.isGates(f, e.X) && ast.IsExported(e.Sel.Name) {
			return e.Sel.Name, true
		}
		if g := a.fieldGate[e.Sel.Name]; g != "" {
			return g, true
		}
	case *ast.Ident:
		if g := a.paramGate[f][e.Name]; g != "" {
			return g, true
		}
		if g := a.localGate[f][e.Name]; g != "" {
			return g, true
		}
	}
	return "", false
}

// isGates says whether e is a FeatureGates struct: x.FeatureGates, or a variable holding one.
func (a *analyzer) isGates(f *function, e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "FeatureGates"
	case *ast.Ident:
		return e.Name == "FeatureGates" || a.gatesVar[f][e.Name]
	}
	return false
}

// positiveGate is the gate e holds, "" when none (or its negation).
func (a *analyzer) positiveGate(f *function, e ast.Expr) string {
	if g, p := a.gateOf(f, e); p {
		return g
	}
	return ""
}

// condGates are the gates on when cond holds (pos) and when it does not (neg).
func (a *analyzer) condGates(f *function, cond ast.Expr) (pos, neg []string) {
	switch c := cond.(type) {
	case *ast.ParenExpr:
		return a.condGates(f, c.X)
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			p, n := a.condGates(f, c.X)
			return n, p
		}
	case *ast.BinaryExpr:
		lp, ln := a.condGates(f, c.X)
		rp, rn := a.condGates(f, c.Y)
		switch c.Op {
		case token.LAND:
			return append(lp, rp...), nil
		case token.LOR:
			return nil, append(ln, rn...)
		}
		return nil, nil
	}
	switch g, p := a.gateOf(f, cond); {
	case g == "":
		return nil, nil
	case p:
		return []string{g}, nil
	default:
		return nil, []string{g}
	}
}

// taint finds the parameters, fields and variables that only ever hold one gate's value (a gate
// passed to an option function that stores it in a field), until nothing more is found.
func (a *analyzer) taint() {
	for range 10 {
		params := map[string]map[int][]string{}
		fields := map[string][]string{}
		locals := map[*function]map[string][]string{}
		gatesVar := map[*function]map[string]bool{}
		for _, f := range a.funcs {
			local := func(name, gate string) {
				if locals[f] == nil {
					locals[f] = map[string][]string{}
				}
				locals[f][name] = append(locals[f][name], gate)
			}
			ast.Inspect(f.decl.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					name := lastName(n.Fun)
					if _, isCall := n.Fun.(*ast.CallExpr); isCall || len(a.byName[name]) == 0 {
						break
					}
					if params[name] == nil {
						params[name] = map[int][]string{}
					}
					for i, arg := range n.Args {
						params[name][i] = append(params[name][i], a.positiveGate(f, arg))
					}
				case *ast.AssignStmt:
					for i, l := range n.Lhs {
						g := ""
						if len(n.Lhs) == len(n.Rhs) {
							g = a.positiveGate(f, n.Rhs[i])
							if id, ok := l.(*ast.Ident); ok && a.isGates(f, n.Rhs[i]) {
								if gatesVar[f] == nil {
									gatesVar[f] = map[string]bool{}
								}
								gatesVar[f][id.Name] = true
							}
						}
						switch l := l.(type) {
						case *ast.SelectorExpr:
							fields[l.Sel.Name] = append(fields[l.Sel.Name], g)
						case *ast.Ident:
							local(l.Name, g)
						}
					}
				case *ast.ValueSpec:
					for i, name := range n.Names {
						g := ""
						if len(n.Values) == len(n.Names) {
							g = a.positiveGate(f, n.Values[i])
						}
						local(name.Name, g)
					}
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok {
						fields[k.Name] = append(fields[k.Name], a.positiveGate(f, n.Value))
					}
				}
				return true
			})
		}
		paramGate := map[*function]map[string]string{}
		for name, byIndex := range params {
			for i, gates := range byIndex {
				g := unanimous(gates)
				if g == "" {
					continue
				}
				for _, fn := range a.byName[name] {
					if p := paramName(fn.decl, i); p != "" {
						if paramGate[fn] == nil {
							paramGate[fn] = map[string]string{}
						}
						paramGate[fn][p] = g
					}
				}
			}
		}
		fieldGate := map[string]string{}
		for name, gates := range fields {
			if g := unanimous(gates); g != "" {
				fieldGate[name] = g
			}
		}
		localGate := map[*function]map[string]string{}
		for f, vars := range locals {
			for name, gates := range vars {
				if g := unanimous(gates); g != "" {
					if localGate[f] == nil {
						localGate[f] = map[string]string{}
					}
					localGate[f][name] = g
				}
			}
		}
		same := maps.Equal(fieldGate, a.fieldGate) && sameNested(paramGate, a.paramGate) && sameNested(localGate, a.localGate) &&
			sameNested(gatesVar, a.gatesVar)
		a.fieldGate, a.paramGate, a.localGate, a.gatesVar = fieldGate, paramGate, localGate, gatesVar
		if same {
			return
		}
	}
}

func sameNested[K comparable, V comparable](x, y map[K]map[string]V) bool {
	return maps.EqualFunc(x, y, func(a, b map[string]V) bool { return maps.Equal(a, b) })
}

// unanimous is the gate every value holds; "" when none or not all the same.
func unanimous(gates []string) string {
	if len(gates) == 0 || gates[0] == "" {
		return ""
	}
	for _, g := range gates[1:] {
		if g != gates[0] {
			return ""
		}
	}
	return gates[0]
}

// paramName is the name of d's i-th parameter; "" when variadic, unnamed or absent.
func paramName(d *ast.FuncDecl, i int) string {
	k := 0
	for _, p := range d.Type.Params.List {
		if _, ok := p.Type.(*ast.Ellipsis); ok {
			return ""
		}
		names := max(len(p.Names), 1)
		if i < k+names {
			if len(p.Names) == 0 {
				return ""
			}
			return p.Names[i-k].Name
		}
		k += names
	}
	return ""
}

// guardsOf are the ranges of f's body that run only with a gate on.
func (a *analyzer) guardsOf(f *function) []guard {
	var gs []guard
	add := func(n ast.Node, gates []string) {
		for _, g := range gates {
			gs = append(gs, guard{n.Pos(), n.End(), g})
		}
	}
	after := func(list []ast.Stmt, end token.Pos) {
		for i, s := range list {
			if ifs, ok := s.(*ast.IfStmt); ok && ifs.Else == nil && i+1 < len(list) && terminates(ifs.Body) {
				_, neg := a.condGates(f, ifs.Cond)
				for _, g := range neg {
					gs = append(gs, guard{list[i+1].Pos(), end, g})
				}
			}
		}
	}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			pos, neg := a.condGates(f, n.Cond)
			add(n.Body, pos)
			if n.Else != nil {
				add(n.Else, neg)
			}
		case *ast.BlockStmt:
			after(n.List, n.Rbrace)
		case *ast.CaseClause:
			after(n.Body, n.End())
		case *ast.CommClause:
			after(n.Body, n.End())
		case *ast.CallExpr:
			if lastName(n.Fun) == "Ternary" && len(n.Args) == 3 {
				pos, neg := a.condGates(f, n.Args[0])
				add(n.Args[1], pos)
				add(n.Args[2], neg)
			}
		}
		return true
	})
	return gs
}

// terminates says whether a block ends in return, break, continue or panic.
func terminates(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.BREAK || s.Tok == token.CONTINUE
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.CallExpr)
		return ok && lastName(c.Fun) == "panic"
	}
	return false
}

// guardAt is the gate of the innermost guard of f around pos; "" none.
func (a *analyzer) guardAt(f *function, pos token.Pos) string {
	gate, size := "", token.Pos(0)
	for _, g := range a.guards[f] {
		if g.pos <= pos && pos < g.end && (gate == "" || g.end-g.pos < size) {
			gate, size = g.gate, g.end-g.pos
		}
	}
	return gate
}

// entry is the coreEntry f is; nil when none.
func entry(f *function) *coreEntry {
	for i, e := range coreEntries {
		if f.recv == e.Type && f.name == e.Method {
			return &coreEntries[i]
		}
	}
	return nil
}

// external says whether code outside the module may call f.
func (a *analyzer) external(f *function) bool {
	if f.name == "main" || f.name == "init" || entry(f) != nil {
		return true
	}
	for _, e := range coreEntries {
		if f.recv == e.Type {
			return true
		}
	}
	return f.recv != "" && ast.IsExported(f.name) && !a.ifaceMethods[f.name]
}

// sites are the uses of f's name outside f itself and outside dead functions.
func (a *analyzer) sites(name string, f *function) []use {
	var out []use
	for _, u := range a.uses[name] {
		if u.fn != f && !a.dead[u.fn] {
			out = append(out, u)
		}
	}
	return out
}

// liveness marks dead the functions only dead code (or nothing) uses by name.
func (a *analyzer) liveness() {
	for changed := true; changed; {
		changed = false
		for _, f := range a.funcs {
			if !a.dead[f] && !a.external(f) && len(a.sites(f.name, f)) == 0 {
				a.dead[f], changed = true, true
			}
		}
	}
}

// gates finds the gate each function runs only under: one every use of it is under.
func (a *analyzer) gates() {
	for changed := true; changed; {
		changed = false
		for _, f := range a.funcs {
			if a.dead[f] || a.gate[f] != "" {
				continue
			}
			var sites []use
			switch e := entry(f); {
			case e != nil:
				sites = a.sites(e.Only, f)
			case a.external(f):
				continue
			default:
				sites = a.sites(f.name, f)
			}
			gates := make([]string, len(sites))
			for i, u := range sites {
				if u.fn != nil {
					gates[i] = cmp.Or(a.guardAt(u.fn, u.pos), a.gate[u.fn])
				}
			}
			if g := unanimous(gates); g != "" {
				a.gate[f], changed = g, true
			}
		}
	}
}

// calls are the SDK calls of the live functions, sorted.
func (a *analyzer) calls() ([]Call, error) {
	seen := map[Call]bool{}
	var err error
	for _, f := range a.funcs {
		if a.dead[f] {
			continue
		}
		ast.Inspect(f.decl.Body, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, svcOp := range a.callOps(f.file, c) {
				prefix, ok := iamPrefix[svcOp[0]]
				if !ok {
					err = fmt.Errorf("%s: no IAM prefix for SDK package %s", a.fset.Position(c.Pos()), svcOp[0])
					continue
				}
				seen[Call{Action: prefix + ":" + svcOp[1], Gate: cmp.Or(a.guardAt(f, c.Pos()), a.gate[f]), File: f.file.path}] = true
			}
			return true
		})
	}
	out := slices.Collect(maps.Keys(seen))
	slices.SortFunc(out, func(x, y Call) int {
		return cmp.Or(strings.Compare(x.Action, y.Action), strings.Compare(x.Gate, y.Gate), strings.Compare(x.File, y.File))
	})
	return out, err
}

// callOps are the (service package, operation) pairs call c makes.
func (a *analyzer) callOps(fl *file, c *ast.CallExpr) [][2]string {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	if x, ok := sel.X.(*ast.Ident); ok && fl.sdk[x.Name] != "" {
		if op := paginatorOp(sel.Sel.Name); op != "" {
			return [][2]string{{fl.sdk[x.Name], op}}
		}
		return nil
	}
	op := sel.Sel.Name
	var out [][2]string
	for _, svc := range slices.Sorted(maps.Keys(a.ops)) {
		if a.ops[svc][op] && (a.clients[lastName(sel.X)][svc] || passesInput(fl, c, svc, op)) {
			out = append(out, [2]string{svc, op})
		}
	}
	return out
}

// passesInput says whether one of c's arguments is a <svc>.<op>Input literal.
func passesInput(fl *file, c *ast.CallExpr, svc, op string) bool {
	for _, arg := range c.Args {
		if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
			arg = u.X
		}
		cl, ok := arg.(*ast.CompositeLit)
		if !ok {
			continue
		}
		if sel, ok := cl.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == op+"Input" {
			if x, ok := sel.X.(*ast.Ident); ok && fl.sdk[x.Name] == svc {
				return true
			}
		}
	}
	return false
}
