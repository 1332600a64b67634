package main

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestDocsCheckPage runs the commands of docs/judging.md in order in a fresh directory, as
// TestDocsWalkthrough does for docs/simrun.md: each exits 0 and prints the lines the page
// quotes. Its reference file example must parse.
func TestDocsCheckPage(t *testing.T) {
	data, err := os.ReadFile("../../docs/judging.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)

	inTempDir(t)
	var printed, example strings.Builder
	var quoted []string
	block := "" // the info string of the open block; "" outside blocks
	inBlock := false
	commands := 0
	scan := bufio.NewScanner(strings.NewReader(section))
	for scan.Scan() {
		line := scan.Text()
		if info, ok := strings.CutPrefix(line, "```"); ok {
			inBlock, block = !inBlock, info
			continue
		}
		switch {
		case !inBlock:
		case block == "json":
			example.WriteString(line + "\n")
		case strings.HasPrefix(line, "go run ./cmd/simrun"):
			commands++
			r := realRun(strings.Fields(strings.TrimPrefix(line, "go run ./cmd/simrun"))...)
			if r.code != exitOK {
				t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
			}
			printed.WriteString(r.stdout)
		case line == "...", line == "":
		default:
			quoted = append(quoted, line)
		}
	}
	if commands < 2 || len(quoted) < 5 {
		t.Errorf("%d commands and %d quoted lines found; has the section's layout changed?", commands, len(quoted))
	}
	for _, q := range quoted {
		if !strings.Contains(printed.String(), q) {
			t.Errorf("docs/judging.md quotes %q, which the commands do not print", q)
		}
	}
	ref, err := checker.ParseReference([]byte(example.String()))
	if err != nil {
		t.Fatalf("docs/judging.md's reference file does not parse: %v\n%s", err, example.String())
	}
	if ref.Guarantee != checker.GuaranteeExactlyOnce || len(ref.Output) != 2 || ref.Output["source:0:1"].Count != 1 {
		t.Errorf("docs/judging.md's reference file reads as %+v", ref)
	}
}
