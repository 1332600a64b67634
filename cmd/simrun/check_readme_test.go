package main

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestReadmeCheckSection runs the commands of the README's "Judging another engine's trace"
// in order in a fresh directory, as TestReadmeWalkthrough does for "Using simrun": each exits
// 0 and prints the lines the section quotes. Its reference file example must parse.
func TestReadmeCheckSection(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Judging another engine's trace\n")
	if !ok {
		t.Fatal("README has no section \"## Judging another engine's trace\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")

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
			t.Errorf("the README quotes %q, which the commands do not print", q)
		}
	}
	ref, err := checker.ParseReference([]byte(example.String()))
	if err != nil {
		t.Fatalf("the README's reference file does not parse: %v\n%s", err, example.String())
	}
	if ref.Guarantee != checker.GuaranteeExactlyOnce || len(ref.Output) != 2 || ref.Output["source:0:1"].Count != 1 {
		t.Errorf("the README's reference file reads as %+v", ref)
	}
}
