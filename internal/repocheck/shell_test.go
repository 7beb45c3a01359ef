package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxShellFunc is the longest function the Terraform shell (internal/provider) may hold: it
// decodes, calls the core and encodes; a longer function is orchestration or policy that
// belongs in a core package.
const maxShellFunc = 80

// maxFunc is the longest function any non-test, non-generated file under internal/ may hold:
// past it a function does several things that each want a name.
const maxFunc = 80

// longFuncAllowed are the functions under internal/ that may still exceed maxFunc, keyed by
// "file func". Keep it empty but for work under way elsewhere: an entry that no longer
// exceeds the limit fails the test, so that it is removed.
var longFuncAllowed = map[string]bool{}

// minInternalFiles is a floor on the files TestInternalFunctionsAreShort checks: a walk that
// finds fewer is looking in the wrong place and would pass while checking nothing.
const minInternalFiles = 100

// funcLines is one function of a file with its length in lines, counted from the func line
// to the closing brace inclusive.
type funcLines struct {
	name  string // Name, or Recv.Name for a method
	lines int
}

// functionLines parses path and returns its functions that have a body, and whether the file
// is generated (a "Code generated ... DO NOT EDIT." header).
func functionLines(t *testing.T, fset *token.FileSet, path string) (funcs []funcLines, generated bool) {
	t.Helper()
	file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			name = receiverType(fn.Recv.List[0].Type) + "." + name
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		funcs = append(funcs, funcLines{name: name, lines: n})
	}
	return funcs, ast.IsGenerated(file)
}

// receiverType is the receiver's type name without pointer or type parameters.
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

func TestShellFunctionsAreShort(t *testing.T) {
	files, err := filepath.Glob("../provider/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shell sources: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		funcs, _ := functionLines(t, fset, f)
		for _, fn := range funcs {
			checked++
			if fn.lines > maxShellFunc {
				t.Errorf("%s: %s is %d lines; the shell's functions stay within %d", filepath.Base(f), fn.name, fn.lines, maxShellFunc)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d functions checked", checked)
	}
}

// TestInternalFunctionsAreShort holds every non-test, non-generated Go file under internal/ to
// maxFunc lines a function, but for longFuncAllowed.
func TestInternalFunctionsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	files, funcs := 0, 0
	long := map[string]int{} // "file func" -> lines, over maxFunc
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// The go tool ignores these directories too.
			if path != ".." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "zz_generated") {
			return nil
		}
		fileFuncs, generated := functionLines(t, fset, path)
		if generated {
			return nil
		}
		rel, err := filepath.Rel("..", path)
		if err != nil {
			return err
		}
		shown := "internal/" + filepath.ToSlash(rel)
		files++
		for _, fn := range fileFuncs {
			funcs++
			if fn.lines > maxFunc {
				long[shown+" "+fn.name] = fn.lines
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < minInternalFiles {
		t.Fatalf("only %d files checked (%d functions) under internal/; expected at least %d", files, funcs, minInternalFiles)
	}
	for _, key := range slices.Sorted(maps.Keys(long)) {
		if longFuncAllowed[key] {
			continue
		}
		file, fn, _ := strings.Cut(key, " ")
		t.Errorf("%s:%s:%d lines; functions under internal/ stay within %d (split it into helpers that say what they compute)", file, fn, long[key], maxFunc)
	}
	for _, key := range slices.Sorted(maps.Keys(longFuncAllowed)) {
		if _, ok := long[key]; !ok {
			t.Errorf("%s is allowed to exceed %d lines but no longer does (or is gone): remove it from longFuncAllowed", key, maxFunc)
		}
	}
	t.Logf("%d files, %d functions checked", files, funcs)
}
