package main

import (
	"os"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestDocsCheckPage: the round trip of docs/judging.md is the script
// testdata/script/judging.txtar (TestScripts runs it with exact outputs), and the page's
// reference file example parses.
func TestDocsCheckPage(t *testing.T) {
	data, err := os.ReadFile("../../docs/judging.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := quotesScript(t, "docs/judging.md", string(data), "testdata/script/judging.txtar")
	if len(examples) == 0 {
		t.Fatal("docs/judging.md has no reference file example (a json block)")
	}
	ref, err := checker.ParseReference([]byte(examples[0]))
	if err != nil {
		t.Fatalf("docs/judging.md's reference file does not parse: %v\n%s", err, examples[0])
	}
	if ref.Guarantee != checker.GuaranteeExactlyOnce || len(ref.Output) != 2 || ref.Output["source:0:1"].Count != 1 {
		t.Errorf("docs/judging.md's reference file reads as %+v", ref)
	}
}
