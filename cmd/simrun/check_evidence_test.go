package main

import (
	"path/filepath"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestCheckHeaderAndPhaseOnly: a trace that holds a header and one phase event shows nothing,
// so nothing about it may pass: every property but well-formed is unknown, and the exit
// status is 1. Well-formed may pass (its one event is well formed). Without a reference,
// every property is judged but those that judge a policy setting the trace cannot give.
func TestCheckHeaderAndPhaseOnly(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "phase.jsonl"), headerAndPhase)
	r := testApp(t, nil).invoke("check", "-json", path)
	out := decodeCheck(t, r)
	if r.code != exitUnexpected || out.Verdict == "pass" {
		t.Errorf("exit %d, verdict %s; want exit 1", r.code, out.Verdict)
	}
	if want := checker.DefaultProperties(checker.Reference{}); len(out.Results) != len(want) {
		t.Errorf("%d properties judged, want %d: %v", len(out.Results), len(want), want)
	}
	for _, res := range out.Results {
		if res.Verdict == "unknown" || res.Verdict == "unexercised" || res.Property == "well-formed" && res.Verdict == "pass" {
			continue
		}
		t.Errorf("%s is %s (%s), want unknown or unexercised: a trace with one phase event is no evidence", res.Property, res.Verdict, res.Note)
	}
}
