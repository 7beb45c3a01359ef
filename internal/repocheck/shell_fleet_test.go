package repocheck

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// minShellFiles and minShellSources are floors on the files of internal/provider that
// TestShellImportsNoFleet parses, all of them and the non-test ones: a glob that finds fewer is
// looking in the wrong place and would pass while checking nothing.
const (
	minShellFiles   = 60
	minShellSources = 25
)

// TestShellImportsNoFleet: the Terraform shell drives no apply-stage machinery. What it needs
// of internal/fleet (a class's instance profiles, a pool's launch templates and nodes, the
// static pools a list finds) is a use case of internal/planner, whose API names the few values
// the shell records; no file of internal/provider, its tests included, imports internal/fleet.
func TestShellImportsNoFleet(t *testing.T) {
	mod := modulePath(t)
	fleet, planner := mod+"/internal/fleet", mod+"/internal/planner"
	files, err := filepath.Glob("../provider/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	sources, viaPlanner := 0, 0
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(f, "_test.go") {
			sources++
		}
		for _, imp := range file.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatalf("%s: import %s: %v", f, imp.Path.Value, err)
			}
			switch {
			case p == fleet || strings.HasPrefix(p, fleet+"/"):
				t.Errorf("%s imports %s: the shell reaches the apply stage through internal/planner (add the use case "+
					"or the value's alias there)", filepath.Base(f), p)
			case p == planner:
				viaPlanner++
			}
		}
	}
	if len(files) < minShellFiles || sources < minShellSources {
		t.Fatalf("only %d files (%d non-test) parsed in internal/provider; expected at least %d (%d)", len(files), sources, minShellFiles, minShellSources)
	}
	if viaPlanner == 0 { // the imports are read under the module's path: the shell calls the planner
		t.Fatalf("no file of internal/provider imports %s: the imports are not read as they are written", planner)
	}
	t.Logf("%d files (%d non-test) checked, %d import the planner", len(files), sources, viaPlanner)
}

// modulePath is the module path go.mod declares.
func modulePath(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod declares no module")
	}
	return string(m[1])
}
