package protocol_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImports are standard packages the protocol must not use: they
// bring shared state, wall-clock time, concurrency or I/O into a value
// that must be a pure function of its inputs.
var forbiddenImports = map[string]string{
	"sync":        "the protocol is single-threaded; the host serialises calls",
	"sync/atomic": "the protocol is single-threaded; the host serialises calls",
	"math/rand":   "global randomness breaks replay; use math/rand/v2 with an injected source",
	"os":          "the host owns all I/O",
	"log":         "logging is a side effect; report through outputs",
	"log/slog":    "logging is a side effect; report through outputs",
	"net":         "the host owns all I/O",
	"io/ioutil":   "the host owns all I/O",
	"unsafe":      "no need, and it hides aliasing",
}

// forbiddenTimeFuncs read the wall clock or start timers.
var forbiddenTimeFuncs = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

// pureDirs are the packages that hosts embed, relative to this one: the
// protocol and the Chandy-Lamport snapshot. Each must be a value stepped by
// its host. (protocol/internal/scripttest is not among them: it reads the
// scripts from disk, and only tests import it.)
var pureDirs = []string{".", "chandylamport"}

func TestImportsStandardLibraryOnly(t *testing.T) {
	for _, dir := range pureDirs {
		t.Run(dir, func(t *testing.T) { checkPure(t, dir) })
	}
}

// checkPure checks the non-test files of the package in dir: standard
// library only, no forbidden import, no wall-clock time, no goroutine, no
// select.
func checkPure(t *testing.T, dir string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		timeName := ""
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") {
				t.Errorf("%s imports %s: an embeddable protocol may import the standard library only", name, path)
			}
			if why, bad := forbiddenImports[path]; bad {
				t.Errorf("%s imports %s: %s", name, path, why)
			}
			if path == "time" {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement at %v: an embeddable protocol never starts goroutines", name, fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && forbiddenTimeFuncs[n.Sel.Name] {
					t.Errorf("%s: time.%s at %v: time comes in as an argument", name, n.Sel.Name, fset.Position(n.Pos()))
				}
			case *ast.SelectStmt:
				t.Errorf("%s: select at %v: an embeddable protocol never waits", name, fset.Position(n.Pos()))
			}
			return true
		})
	}
	if checked < 5 {
		t.Fatalf("checked only %d files in %s; is the test running in the package directory?", checked, dir)
	}
}

// TestPurityCoversEveryPackage keeps pureDirs honest: every package under
// protocol that a host can import (all but internal ones) must be checked.
func TestPurityCoversEveryPackage(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" || d.Name() == "internal" {
			return filepath.SkipDir
		}
		code, _ := filepath.Glob(filepath.Join(path, "*.go"))
		code = slices.DeleteFunc(code, func(name string) bool { return strings.HasSuffix(name, "_test.go") })
		if len(code) > 0 && !slices.Contains(pureDirs, path) {
			t.Errorf("package protocol/%s is not in pureDirs: add it, or say why it may do I/O", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
