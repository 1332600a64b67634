package mutate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Enumerate returns every mutant of the non-test, non-generated Go files directly in each of
// dirs (folders relative to root, slash-separated, like "protocol"), in a fixed order: by
// file, then by place in the file, then by operator. Subfolders are packages of their own
// and are not included unless named.
func Enumerate(root string, dirs []string) ([]*Mutant, error) {
	var all []*Mutant
	for _, dir := range dirs {
		files, err := sourceFiles(root, dir)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			if err != nil {
				return nil, err
			}
			mutants, err := EnumerateFile(file, src)
			if err != nil {
				return nil, err
			}
			all = append(all, mutants...)
		}
	}
	return all, nil
}

// sourceFiles lists the .go files of dir that are not tests, sorted, as root-relative
// slash paths.
func sourceFiles(root, dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, fmt.Errorf("mutate: package %s: %v", dir, err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files = append(files, dir+"/"+name)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("mutate: package %s has no Go source files", dir)
	}
	slices.Sort(files)
	return files, nil
}

// EnumerateFile returns the mutants of one file's source, file being its root-relative
// slash path (which the ids carry). A generated file has none: a mutant of code nobody
// writes by hand measures the generator, not the tests.
func EnumerateFile(file string, src []byte) ([]*Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("mutate: %v", err)
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	w := &walker{fset: fset, src: src, file: file, pkg: pathDir(file)}
	ast.Inspect(f, w.visit)
	slices.SortStableFunc(w.mutants, func(x, y *Mutant) int { return x.Start - y.Start })
	return dedupe(w.mutants), nil
}

// pathDir is the folder of a slash path.
func pathDir(file string) string {
	if i := strings.LastIndex(file, "/"); i >= 0 {
		return file[:i]
	}
	return "."
}

// dedupe drops a mutant whose id an earlier one already has, so that ids are unique
// whatever two operators happen to start at the same place.
func dedupe(mutants []*Mutant) []*Mutant {
	seen := map[string]bool{}
	out := mutants[:0]
	for _, m := range mutants {
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	return out
}
