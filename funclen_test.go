package ckptsim

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFunctionLines is the longest a function of the module's code may be, from its func
// keyword to its closing brace. Tests are left out: a table of cases is long by nature.
const maxFunctionLines = 70

// longFunctions are the functions longer than that when the rule came in, with their length
// then. The list may only shrink: a function not on it may not pass the bound, one on it
// may not grow, and one that is short again must leave the list. The catalogue's tables
// are lists of scenario literals; the rest wait to be split.
var longFunctions = map[string]int{
	"cmd/simrun/cmd_cover.go:cover":                     110,
	"cmd/simrun/cmd_sweep.go:sweep":                     120,
	"picture/perfetto/perfetto.go:event":                153,
	"scenarios/catalogue_controls.go:negativeControls":  122,
	"scenarios/catalogue_positive.go:positiveScenarios": 180,
	"scenarios/catalogue_rare.go:rareScenarios":         244,
	"scenarios/catalogue_regimes.go:regimeScenarios":    296,
	"scenarios/graph.go:Graph":                          139,
	"scenarios/validate.go:validateExplicit":            113,
}

// TestFunctionsAreShort holds every function of the module's non-test code to
// maxFunctionLines, bar those on longFunctions, which may only get shorter.
func TestFunctionsAreShort(t *testing.T) {
	lengths, err := functionLengths(".")
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range lengths {
		was, listed := longFunctions[name]
		switch {
		case !listed && n > maxFunctionLines:
			t.Errorf("%s is %d lines, over %d: split it", name, n, maxFunctionLines)
		case listed && n > was:
			t.Errorf("%s grew from %d to %d lines: it may only get shorter", name, was, n)
		case listed && n <= maxFunctionLines:
			t.Errorf("%s is %d lines now: take it off longFunctions", name, n)
		}
	}
	for name := range longFunctions {
		if _, ok := lengths[name]; !ok {
			t.Errorf("%s on longFunctions is gone: take it off the list", name)
		}
	}
}

// functionLengths returns the length in lines of every function and method with a body in
// the non-test Go files under root, named "dir/file.go:Func" (methods by their own name).
func functionLengths(root string) (map[string]int, error) {
	fset := token.NewFileSet()
	lengths := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				name := fmt.Sprintf("%s:%s", filepath.ToSlash(path), fn.Name.Name)
				n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				lengths[name] = max(lengths[name], n) // two methods of one name in a file: the longer
			}
		}
		return nil
	})
	return lengths, err
}

// TestFunctionLengthsCountFromFuncToBrace pins how a length is counted.
func TestFunctionLengthsCountFromFuncToBrace(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\n// doc\nfunc f() {\n\tx := 1\n\t_ = x\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc g() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := functionLengths(dir)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.ToSlash(filepath.Join(dir, "p.go")) + ":f"
	if !slices.Equal(slices.Sorted(maps.Keys(got)), []string{name}) || got[name] != 4 {
		t.Fatalf("got %v, want %s of 4 lines and no test function", got, name)
	}
}
