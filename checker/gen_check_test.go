package checker

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestGeneratedRunPasses(t *testing.T) {
	for seed := range uint64(20) {
		events, ref := generate(rand.New(rand.NewPCG(seed, 1)), smallRun)
		report := Check(events, ref, Options{})
		if report.Verdict() != VerdictPass {
			t.Fatalf("seed %d (%d events):\n%s", seed, len(events), report)
		}
	}
}

// TestJudgedTheSameAfterJSONLines writes a run through a Recorder, reads it back, and checks
// that the checkers see the same trace: the same hash and the same report, broken or not.
func TestJudgedTheSameAfterJSONLines(t *testing.T) {
	events, ref := generate(rand.New(rand.NewPCG(3, 1)), smallRun)
	events[len(events)/2].Task = "someone-else" // break it, so the report has violations to compare
	var buf bytes.Buffer
	rec := trace.NewRecorder(&buf, trace.Header{Scenario: "synthetic", Seed: 3})
	for _, e := range events {
		rec.Emit(e.T, e)
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	_, back, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if trace.HashEvents(back) != rec.Hash() {
		t.Fatal("read-back trace hashes differently")
	}
	want, got := Check(events, ref, Options{}).String(), Check(back, ref, Options{}).String()
	if want != got {
		t.Fatalf("report changed after JSON Lines:\nbefore:\n%s\nafter:\n%s", want, got)
	}
	if Check(back, ref, Options{}).Verdict() != VerdictFail {
		t.Fatal("the broken run should fail")
	}
}
