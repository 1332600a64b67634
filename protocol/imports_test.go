package protocol_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
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

func TestImportsStandardLibraryOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
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
				t.Errorf("%s imports %s: protocol may import the standard library only", name, path)
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
				t.Errorf("%s: go statement at %v: the protocol never starts goroutines", name, fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && forbiddenTimeFuncs[n.Sel.Name] {
					t.Errorf("%s: time.%s at %v: time comes in as an argument", name, n.Sel.Name, fset.Position(n.Pos()))
				}
			case *ast.SelectStmt:
				t.Errorf("%s: select at %v: the protocol never waits", name, fset.Position(n.Pos()))
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked only %d files; is the test running in the package directory?", checked)
	}
}
