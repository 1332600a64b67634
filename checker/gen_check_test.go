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
		if problem := falseVerdict(events, Check(events, ref, Options{})); problem != "" {
			t.Fatalf("seed %d (%d events): %s", seed, len(events), problem)
		}
	}
}

// falseVerdict returns what is wrong with the report of a correct run, or "": no property
// may fail, and one may be unknown only for evidence the run really lacks (the synthetic
// runs do not always restore from a checkpoint or read the store).
func falseVerdict(events []trace.Event, report Report) string {
	has := func(match func(e *trace.Event) bool) bool {
		for i := range events {
			if match(&events[i]) {
				return true
			}
		}
		return false
	}
	for _, res := range report.Results {
		switch {
		case res.Verdict == VerdictPass:
		case res.Verdict == VerdictUnexercised && res.Property == PropRestoreFidelity &&
			!has(func(e *trace.Event) bool { return e.Kind == trace.KindTaskRestore && e.CP > 0 }):
		case res.Verdict == VerdictUnexercised && res.Property == PropFailureAccounting &&
			!has(func(e *trace.Event) bool { return e.Kind == trace.KindCheckpointAbort && failureCounts[e.Reason] }):
		case res.Verdict == VerdictUnexercised && (res.Property == PropNoTriggerInFailover || res.Property == PropNoPendingAcrossFailover) &&
			!has(func(e *trace.Event) bool { return e.Kind == trace.KindJobFailover }):
		case res.Verdict == VerdictUnexercised && res.Property == PropNoTriggerAfterFinish:
		case res.Verdict == VerdictUnknown && res.Property == PropSinkVisibility &&
			!has(func(e *trace.Event) bool { return e.Kind == trace.KindSinkRead }):
		default:
			return "a correct run is judged wrongly:\n" + report.String()
		}
	}
	return ""
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
