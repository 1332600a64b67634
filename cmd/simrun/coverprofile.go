package main

import (
	"bufio"
	"cmp"
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
	startLine, _, ok1 := strings.Cut(start, ".")
	endLine, _, ok2 := strings.Cut(end, ".")
	var errs [4]error
	b.file = line[:colon]
	b.startLine, errs[0] = strconv.Atoi(startLine)
	b.endLn, errs[1] = strconv.Atoi(endLine)
	b.statements, errs[2] = strconv.Atoi(fields[1])
	count, err3 := strconv.ParseInt(fields[2], 10, 64)
	errs[3] = err3
	if !ok || !ok1 || !ok2 || errs[0] != nil || errs[1] != nil || errs[2] != nil || errs[3] != nil {
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

// fileFuncs parses a Go file and returns its function declarations.
func fileFuncs(filename string) ([]funcSpan, error) {
	src, err := os.ReadFile(filename)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var spans []funcSpan
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = receiverName(fd.Recv.List[0].Type) + "." + name
		}
		spans = append(spans, funcSpan{
			name:  name,
			start: fset.Position(fd.Pos()).Line,
			end:   fset.Position(fd.End()).Line,
			text:  fd.Recv != nil && fd.Name.Name == "String",
		})
	}
	return spans, nil
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
// function.
type coverReport struct {
	Packages map[string]coverCount `json:"packages"`
	Funcs    []coverFunc           `json:"funcs"`
}

// summarizeCoverage folds blocks into per-package and per-function counts. source maps a
// block's file (import path form) to the file on disk, so that String methods can be found
// and left out.
func summarizeCoverage(blocks []coverBlock, source func(file string) string) (*coverReport, error) {
	spans := map[string][]funcSpan{}
	funcs := map[[2]string]*coverFunc{}
	r := &coverReport{Packages: map[string]coverCount{}}
	for _, b := range blocks {
		fs, ok := spans[b.file]
		if !ok {
			var err error
			if fs, err = fileFuncs(source(b.file)); err != nil {
				return nil, err
			}
			spans[b.file] = fs
		}
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
