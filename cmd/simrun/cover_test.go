package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarizeCoverageLeavesOutStringMethods: blocks inside a String method count nowhere;
// the others count per package and per function, a block merged from two runs once.
func TestSummarizeCoverageLeavesOutStringMethods(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\ntype T int\n\nfunc (t T) String() string {\n\treturn \"t\"\n}\n\nfunc f() int {\n\tif true {\n\t\treturn 1\n\t}\n\treturn 2\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := "mode: set\n" +
		"m/p/p.go:5.27,7.2 1 0\n" + // String: left out
		"m/p/p.go:9.14,10.10 1 1\n" +
		"m/p/p.go:10.10,12.3 1 0\n" +
		"m/p/p.go:10.10,12.3 1 1\n" + // the same block from another run: covered
		"m/p/p.go:13.2,13.10 1 0\n"
	blocks, err := readCoverProfile(strings.NewReader(profile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := summarizeCoverage(blocks, func(file string) string { return filepath.Join(dir, filepath.Base(file)) })
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Packages["m/p"]; got != (coverCount{Covered: 2, Total: 3}) {
		t.Errorf("package m/p: %+v, want 2 of 3", got)
	}
	if len(r.Funcs) != 1 || r.Funcs[0].Name != "f" || r.Funcs[0].Covered != 2 {
		t.Errorf("funcs: %+v, want f alone with 2 covered", r.Funcs)
	}
}

// TestBehaviourLeavesOutGuards: a block whose statements only panic or return an error
// counts in the package's figure but not in its behaviour figure, and neither does a file of
// invariant checks; a block that also does something else counts in both.
func TestBehaviourLeavesOutGuards(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import "errors"

var ErrX = errors.New("x")

func f(x int) (int, error) {
	if x < 0 {
		panic("negative")
	}
	if x == 0 {
		return 0, ErrX
	}
	if x == 1 {
		x++
		return x, ErrX
	}
	return x, nil
}
`
	checks := "package p\n\nfunc invariants() string {\n\treturn \"\"\n}\n"
	for name, text := range map[string]string{"p.go": src, "invariants.go": checks} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	profile := "mode: set\n" +
		"m/p/p.go:7.36,8.11 1 1\n" + // if x < 0
		"m/p/p.go:8.11,10.3 1 0\n" + // panic: a guard
		"m/p/p.go:11.2,11.12 1 1\n" + // if x == 0
		"m/p/p.go:11.12,13.3 1 0\n" + // return 0, ErrX: a guard
		"m/p/p.go:14.2,14.12 1 1\n" + // if x == 1
		"m/p/p.go:14.12,17.3 2 0\n" + // x++ and a return: behaviour
		"m/p/p.go:18.2,18.15 1 1\n" +
		"m/p/invariants.go:3.28,5.2 1 1\n"
	blocks, err := readCoverProfile(strings.NewReader(profile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := summarizeCoverage(blocks, func(file string) string { return filepath.Join(dir, filepath.Base(file)) })
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Packages["m/p"]; got != (coverCount{Covered: 5, Total: 9}) {
		t.Errorf("package m/p: %+v, want 5 of 9", got)
	}
	if got := r.Behaviour["m/p"]; got != (coverCount{Covered: 4, Total: 6}) {
		t.Errorf("behaviour of m/p: %+v, want 4 of 6", got)
	}
}

func TestReadCoverProfileRefusesGarbage(t *testing.T) {
	if _, err := readCoverProfile(strings.NewReader("mode: set\nm/p.go:1.1,x.2 1 0\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("got %v, want an error naming line 2", err)
	}
}

// TestRealCoverOfOneRun builds simrun with -cover and measures one calm run: the protocol is
// reached, partly, and chandylamport not at all.
func TestRealCoverOfOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented simrun")
	}
	r := realRun("cover", "-json", "--", "run", "-scenario", "pipeline-calm", "-seed", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var got struct {
		Packages map[string]coverCount `json:"packages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	p := got.Packages["github.com/ckptsim/ckptsim/protocol"]
	if p.Total == 0 || p.Covered == 0 || p.Covered == p.Total {
		t.Errorf("protocol: %+v, want some but not all statements covered", p)
	}
	if c := got.Packages["github.com/ckptsim/ckptsim/protocol/chandylamport"]; c.Covered != 0 || c.Total == 0 {
		t.Errorf("chandylamport: %+v, want none of its statements reached by a barrier job", c)
	}
	if _, ok := got.Packages["github.com/ckptsim/ckptsim/cmd/simrun"]; ok {
		t.Error("the main package, instrumented only so that data is written, is reported")
	}
}
