package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedFilesAreUpToDate runs the generator in-process on every
// package that has a go:generate directive for it, with the directive's own
// arguments, and compares its output with the file on disk: a constant
// added or renamed without go generate fails here.
func TestGeneratedFilesAreUpToDate(t *testing.T) {
	checked := 0
	for _, dir := range []string{"../..", "../../chandylamport"} {
		output, specs := directive(t, dir)
		want, err := generate(dir, specs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, output))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate in %s", filepath.Join(dir, output), dir)
		}
		checked++
	}
	if checked != 2 {
		t.Fatalf("checked %d packages", checked)
	}
}

// directive finds the one go:generate line of the package in dir that runs
// enumgen and returns its output file and type specifications.
func directive(t *testing.T, dir string) (output string, specs []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		s := bufio.NewScanner(f)
		for s.Scan() {
			fields := strings.Fields(s.Text())
			if len(fields) < 6 || fields[0] != "//go:generate" || !strings.HasSuffix(fields[3], "/internal/enumgen") {
				continue
			}
			if fields[4] != "-o" {
				t.Fatalf("%s: %s: want -o FILE after the command", name, s.Text())
			}
			output, specs = fields[5], fields[6:]
			found++
		}
		f.Close()
	}
	if found != 1 {
		t.Fatalf("%s: %d go:generate lines for enumgen, want 1", dir, found)
	}
	return output, specs
}

func TestKebabAndSpecs(t *testing.T) {
	for in, want := range map[string]string{
		"TooManyPending": "too-many-pending", "Expired": "expired", "AtLeastOnce": "at-least-once",
		"TransactionActionType": "transaction-action-type",
	} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
	e, err := parseSpec("MessageType:Msg:message")
	if err != nil || e.prefix != "Msg" || e.unknown != "message" {
		t.Errorf("parseSpec: %+v, %v", e, err)
	}
	e, err = parseSpec("Status::Status")
	if err != nil || e.prefix != "Status" || e.unknown != "Status" {
		t.Errorf("parseSpec with an empty prefix: %+v, %v", e, err)
	}
	if _, err := parseSpec("A:B:C:D"); err == nil {
		t.Error("parseSpec accepted four parts")
	}
	if _, err := generate("../..", []string{"Config"}); err == nil {
		t.Error("generate accepted a struct type")
	}
	if _, err := generate("../..", []string{"Reason:Mode"}); err == nil {
		t.Error("generate accepted constants without the prefix")
	}
}
