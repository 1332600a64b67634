package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// coverBlock is one basic block of a Go coverage profile: statements of one file between
// two positions, and whether any run executed it.
type coverBlock struct {
	file             string // import path of the package, "/", file name
	startLine, endLn int
	startCol, endCol int
	statements       int
	covered          bool
}

// readCoverProfile reads a profile in the text form `go tool covdata textfmt` writes. A block
// listed more than once (once per run that merged into it) counts as covered if any run
// covered it.
func readCoverProfile(r io.Reader) ([]coverBlock, error) {
	scan := bufio.NewScanner(r)
	index := map[string]int{}
	var blocks []coverBlock
	for n := 1; scan.Scan(); n++ {
		line := scan.Text()
		if n == 1 && strings.HasPrefix(line, "mode: ") || line == "" {
			continue
		}
		b, key, err := parseCoverLine(line)
		if err != nil {
			return nil, fmt.Errorf("coverage profile line %d: %v", n, err)
		}
		if i, ok := index[key]; ok {
			blocks[i].covered = blocks[i].covered || b.covered
			continue
		}
		index[key] = len(blocks)
		blocks = append(blocks, b)
	}
	return blocks, scan.Err()
}

// parseCoverLine reads "pkg/file.go:L1.C1,L2.C2 STATEMENTS COUNT"; key identifies the block.
func parseCoverLine(line string) (b coverBlock, key string, err error) {
	colon := strings.LastIndex(line, ":")
	fields := strings.Fields(line[colon+1:])
	if colon < 0 || len(fields) != 3 {
		return b, "", fmt.Errorf("%q is not FILE:START,END STATEMENTS COUNT", line)
	}
	start, end, ok := strings.Cut(fields[0], ",")
	startLine, startCol, ok1 := strings.Cut(start, ".")
	endLine, endCol, ok2 := strings.Cut(end, ".")
	var errs [6]error
	b.file = line[:colon]
	b.startLine, errs[0] = strconv.Atoi(startLine)
	b.endLn, errs[1] = strconv.Atoi(endLine)
	b.statements, errs[2] = strconv.Atoi(fields[1])
	count, err3 := strconv.ParseInt(fields[2], 10, 64)
	errs[3] = err3
	b.startCol, errs[4] = strconv.Atoi(startCol)
	b.endCol, errs[5] = strconv.Atoi(endCol)
	if !ok || !ok1 || !ok2 || errors.Join(errs[:]...) != nil {
		return b, "", fmt.Errorf("%q is not FILE:START,END STATEMENTS COUNT", line)
	}
	b.covered = count > 0
	return b, b.file + ":" + fields[0], nil
}

// funcSpan is one function declaration of a source file, by lines.
type funcSpan struct {
	name       string // "Coordinator.Trigger" or "newTask"
	start, end int
	text       bool // a String method: a text form, left out of the figures
}

// fileShape is what the coverage summary needs of a source file: its function declarations,
// and its guard statements.
type fileShape struct {
	funcs  []funcSpan
	guards []token.Position // where each guard statement starts
	// checks: the file holds the invariant checks (invariants.go), code that checks the
	// protocol rather than being it.
	checks bool
}

// fileFuncs parses a Go file and returns its function declarations and guard statements.
//
// A guard is a statement whose only job is to fail: a panic call (a broken invariant, a host
// that broke its obligations), or a return of an error in a function whose last result is an
// error, where the error is err, a sentinel Err..., or built on the spot (fmt.Errorf,
// errors.New, a call of a function whose name ends in Error, or bad). A correct host never
// makes the protocol take such a path, so a sweep cannot reach it; the protocol's unit tests
// do.
func fileFuncs(filename string) (fileShape, error) {
	src, err := os.ReadFile(filename)
	if err != nil {
		return fileShape{}, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return fileShape{}, err
	}
	shape := fileShape{checks: filepath.Base(filename) == "invariants.go"}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = receiverName(fd.Recv.List[0].Type) + "." + name
		}
		shape.funcs = append(shape.funcs, funcSpan{
			name:  name,
			start: fset.Position(fd.Pos()).Line,
			end:   fset.Position(fd.End()).Line,
			text:  fd.Recv != nil && fd.Name.Name == "String",
		})
		if fd.Body != nil {
			shape.guards = appendGuards(shape.guards, fset, fd.Body, returnsError(fd.Type))
		}
	}
	return shape, nil
}

// appendGuards adds the guard statements under n, a function body whose function returns an
// error last when errorResult is set (a function literal inside it is judged by its own type).
func appendGuards(guards []token.Position, fset *token.FileSet, n ast.Node, errorResult bool) []token.Position {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			guards = appendGuards(guards, fset, n.Body, returnsError(n.Type))
			return false
		case *ast.ExprStmt:
			if call, ok := n.X.(*ast.CallExpr); ok && isIdent(call.Fun, "panic") {
				guards = append(guards, fset.Position(n.Pos()))
			}
		case *ast.ReturnStmt:
			if errorResult && len(n.Results) > 0 && isFailure(n.Results[len(n.Results)-1]) {
				guards = append(guards, fset.Position(n.Pos()))
			}
		}
		return true
	})
	return guards
}

func returnsError(t *ast.FuncType) bool {
	if t.Results == nil || len(t.Results.List) == 0 {
		return false
	}
	return isIdent(t.Results.List[len(t.Results.List)-1].Type, "error")
}

// isFailure reports whether e, returned as an error, is one for sure.
func isFailure(e ast.Expr) bool {
	name := ""
	switch e := e.(type) {
	case *ast.Ident:
		name = e.Name
	case *ast.SelectorExpr:
		name = e.Sel.Name
	case *ast.CallExpr:
		switch fun := e.Fun.(type) {
		case *ast.Ident:
			return fun.Name == "bad" || strings.HasSuffix(fun.Name, "Error")
		case *ast.SelectorExpr:
			pkg, _ := fun.X.(*ast.Ident)
			return pkg != nil && (pkg.Name == "fmt" && fun.Sel.Name == "Errorf" || pkg.Name == "errors" && fun.Sel.Name == "New")
		}
	}
	return name == "err" || strings.HasPrefix(name, "Err")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// guarded reports whether every statement of b is a guard: a block that only fails.
func (s fileShape) guarded(b coverBlock) bool {
	n := 0
	for _, g := range s.guards {
		after := g.Line > b.startLine || g.Line == b.startLine && g.Column >= b.startCol
		before := g.Line < b.endLn || g.Line == b.endLn && g.Column < b.endCol
		if after && before {
			n++
		}
	}
	return n > 0 && n == b.statements
}

func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// coverCount is covered statements of total.
type coverCount struct {
	Covered int `json:"covered"`
	Total   int `json:"statements"`
}

func (c coverCount) percent() float64 {
	if c.Total == 0 {
		return 100
	}
	return 100 * float64(c.Covered) / float64(c.Total)
}

func (c *coverCount) add(b coverBlock) {
	c.Total += b.statements
	if b.covered {
		c.Covered += b.statements
	}
}

// coverFunc is one function's coverage.
type coverFunc struct {
	Package string `json:"package"`
	Name    string `json:"func"`
	coverCount
}

// coverReport is the statement coverage per package, String methods left out, and per
// function. Behaviour is the coverage per package of what a correct host can make the code
// do: guard blocks (see fileFuncs) and the invariant checks left out too.
type coverReport struct {
	Packages  map[string]coverCount `json:"packages"`
	Behaviour map[string]coverCount `json:"behaviour"`
	Funcs     []coverFunc           `json:"funcs"`
}

// summarizeCoverage folds blocks into per-package and per-function counts. source maps a
// block's file (import path form) to the file on disk, so that String methods can be found
// and left out.
func summarizeCoverage(blocks []coverBlock, source func(file string) string) (*coverReport, error) {
	shapes := map[string]fileShape{}
	funcs := map[[2]string]*coverFunc{}
	r := &coverReport{Packages: map[string]coverCount{}, Behaviour: map[string]coverCount{}}
	for _, b := range blocks {
		shape, ok := shapes[b.file]
		if !ok {
			var err error
			if shape, err = fileFuncs(source(b.file)); err != nil {
				return nil, err
			}
			shapes[b.file] = shape
		}
		fs := shape.funcs
		i := slices.IndexFunc(fs, func(f funcSpan) bool { return f.start <= b.startLine && b.startLine <= f.end })
		if i >= 0 && fs[i].text {
			continue
		}
		name := "(outside functions)"
		if i >= 0 {
			name = fs[i].name
		}
		pkg := path.Dir(b.file)
		c := r.Packages[pkg]
		c.add(b)
		r.Packages[pkg] = c
		behaviour := r.Behaviour[pkg]
		if !shape.checks && !shape.guarded(b) {
			behaviour.add(b)
		}
		r.Behaviour[pkg] = behaviour
		key := [2]string{pkg, name}
		if funcs[key] == nil {
			funcs[key] = &coverFunc{Package: pkg, Name: name}
		}
		funcs[key].add(b)
	}
	for _, f := range funcs {
		r.Funcs = append(r.Funcs, *f)
	}
	slices.SortFunc(r.Funcs, func(x, y coverFunc) int {
		return cmp.Or(cmp.Compare(x.Package, y.Package), cmp.Compare(x.Name, y.Name))
	})
	return r, nil
}

// moduleSource maps a profile's file (module path, "/", file) to its place under root.
func moduleSource(root, module string) func(string) string {
	return func(file string) string {
		return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(file, module), "/")))
	}
}
