package protocol_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExportedAPIIsPinned: the exported surface of package protocol, the API other engines
// embed, is listed in testdata/api.golden, one declaration a line, and any change to it fails
// here until the listing is rewritten on purpose:
//
//	go test ./protocol -run TestExportedAPIIsPinned -rewrite
//
// so that a change to what embedders compile against is always deliberate and shows in review.
func TestExportedAPIIsPinned(t *testing.T) {
	got := exportedAPI(t, ".")
	path := filepath.Join("testdata", "api.golden")
	if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for _, l := range gotLines {
		if !slices.Contains(wantLines, l) {
			t.Errorf("added to the exported API: %s", l)
		}
	}
	for _, l := range wantLines {
		if !slices.Contains(gotLines, l) {
			t.Errorf("gone from the exported API: %s", l)
		}
	}
	t.Log("if the change is meant, rewrite the listing: go test ./protocol -run TestExportedAPIIsPinned -rewrite")
}

// exportedAPI lists the exported declarations of the package in dir (test files left out):
// functions and methods with their signatures, types with their exported (and blank) fields
// and interface methods, constants and variables; sorted, one a line.
func exportedAPI(t *testing.T, dir string) string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	text := func(n any) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, n); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Recv != nil && !exportedReceiver(d.Recv.List[0].Type) {
					continue
				}
				lines = append(lines, text(&ast.FuncDecl{Recv: d.Recv, Name: d.Name, Type: d.Type}))
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					lines = append(lines, exportedSpec(d.Tok, spec, text)...)
				}
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(slices.Compact(lines), "\n") + "\n"
}

func exportedReceiver(e ast.Expr) bool {
	switch r := e.(type) {
	case *ast.StarExpr:
		return exportedReceiver(r.X)
	case *ast.IndexExpr:
		return exportedReceiver(r.X)
	case *ast.Ident:
		return r.IsExported()
	}
	return false
}

func exportedSpec(tok token.Token, spec ast.Spec, text func(any) string) []string {
	var lines []string
	switch s := spec.(type) {
	case *ast.TypeSpec:
		if !s.Name.IsExported() {
			return nil
		}
		switch ty := s.Type.(type) {
		case *ast.StructType:
			lines = append(lines, "type "+s.Name.Name+" struct")
			for _, field := range ty.Fields.List {
				for _, name := range field.Names {
					// A blank field is listed too: it decides whether
					// embedders may write unkeyed literals.
					if name.IsExported() || name.Name == "_" {
						lines = append(lines, s.Name.Name+"."+name.Name+" "+text(field.Type))
					}
				}
				if len(field.Names) == 0 {
					lines = append(lines, s.Name.Name+" embeds "+text(field.Type))
				}
			}
		case *ast.InterfaceType:
			lines = append(lines, "type "+s.Name.Name+" interface")
			for _, m := range ty.Methods.List {
				for _, name := range m.Names {
					lines = append(lines, s.Name.Name+"."+name.Name+" "+strings.TrimPrefix(text(m.Type), "func"))
				}
			}
		default:
			lines = append(lines, "type "+s.Name.Name+" "+text(s.Type))
		}
	case *ast.ValueSpec:
		for _, name := range s.Names {
			if !name.IsExported() {
				continue
			}
			line := tok.String() + " " + name.Name
			if s.Type != nil {
				line += " " + text(s.Type)
			}
			lines = append(lines, line)
		}
	}
	return lines
}
