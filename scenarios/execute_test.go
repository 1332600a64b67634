package scenarios

import (
	"strings"
	"testing"
)

// panicWriter takes a trace and panics once it has taken more than limit bytes: a broken
// invariant deep inside a run, at a point the test can choose.
type panicWriter struct{ written, limit int }

func (w *panicWriter) Write(p []byte) (int, error) {
	w.written += len(p)
	if w.written > w.limit {
		panic("broken on purpose")
	}
	return len(p), nil
}

// TestPanicIsPinnedToTheLastEvent: a panic in the middle of a simulated run becomes an
// invariant violation that points at the last event recorded before it (its sequence
// number, time, task and checkpoint), not at seq 0, t=0, where nothing happened.
func TestPanicIsPinnedToTheLastEvent(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: &panicWriter{limit: 40_000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictFail || len(res.Violations) != 1 || !strings.Contains(res.Panic, "broken on purpose") {
		t.Fatalf("result %+v", res)
	}
	v := res.Violations[0]
	if v.Property != PropertyInvariant || v.Seq == 0 || v.T == 0 || !strings.Contains(v.Message, "broken on purpose") {
		t.Errorf("violation %v, want the invariant pinned to an event after the start", v)
	}
	if res.Events <= v.Seq || res.VirtualNanos < v.T {
		t.Errorf("the run had recorded %d events by %dns, but the violation is at seq %d, t=%d", res.Events, res.VirtualNanos, v.Seq, v.T)
	}
	t.Log(v)
}
