package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxShellFunc is the longest function the Terraform shell (internal/provider) may hold: it
// decodes, calls the core and encodes; a longer function is orchestration or policy that
// belongs in a core package.
const maxShellFunc = 80

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
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxShellFunc {
				t.Errorf("%s: %s is %d lines; the shell's functions stay within %d", filepath.Base(f), fn.Name.Name, n, maxShellFunc)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d functions checked", checked)
	}
}
