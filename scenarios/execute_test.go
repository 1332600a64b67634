package scenarios

import (
	"cmp"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
)

// panicWriter takes a trace and panics once it has taken more than limit bytes: a broken
// invariant deep inside a run, at a point the test can choose.
type panicWriter struct {
	written, limit int
	value          any // what it panics with; nil: a string
}

func (w *panicWriter) Write(p []byte) (int, error) {
	w.written += len(p)
	if w.written > w.limit {
		panic(cmp.Or(w.value, any("broken on purpose")))
	}
	return len(p), nil
}

// TestPanicIsPinnedToTheLastEvent: a panic in the middle of a simulated run becomes a
// panic violation that points at the last event recorded before it (its sequence
// number, time, task and checkpoint), not at seq 0, t=0, where nothing happened.
func TestPanicIsPinnedToTheLastEvent(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: &panicWriter{limit: 60_000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictFail || len(res.Violations) != 1 || !strings.Contains(res.Panic, "broken on purpose") {
		t.Fatalf("result %+v", res)
	}
	v := res.Violations[0]
	if v.Property != PropertyPanic || v.Seq == 0 || v.T == 0 || !strings.Contains(v.Message, "broken on purpose") {
		t.Errorf("violation %v, want the panic pinned to an event after the start", v)
	}
	if res.Events <= v.Seq || res.VirtualNanos < v.T {
		t.Errorf("the run had recorded %d events by %dns, but the violation is at seq %d, t=%d", res.Events, res.VirtualNanos, v.Seq, v.T)
	}
	t.Log(v)
}

// TestBrokenProtocolInvariantIsAVerdict: a *protocol.InvariantError, what the protocol's own
// checks panic with, is the invariant violation (a catch), not a mere panic; so is an
// *engine.InvariantError, the engine's.
func TestBrokenProtocolInvariantIsAVerdict(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	for _, broken := range []error{
		&protocol.InvariantError{Who: "coordinator", Invariant: "pending checkpoints out of order: 3 after 4"},
		&engine.InvariantError{Message: "engine: sum-0: output to sink-0 queues 7 buffers, over the bound 6"},
	} {
		_, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: &panicWriter{limit: 60_000, value: broken}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) != 1 || res.Violations[0].Property != PropertyInvariant || !strings.Contains(res.Violations[0].Message, broken.Error()) {
			t.Errorf("violations %v, want the broken invariant named", res.Violations)
		}
	}
}

// startPanics is a Runner whose job panics as it starts, before any event.
type startPanics struct{ *Simulation }

func (startPanics) Run(*Plan, RunOptions) (*Result, error) {
	panic(&RunPanic{Value: "broken on purpose"})
}

// TestPanicBeforeAnyEventIsAJobNotStarted: a run that panics before its first event never
// started its job, which validation would have refused with an error if the input were
// bad: job-accepted names the build's defect, as for a refusal.
func TestPanicBeforeAnyEventIsAJobNotStarted(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := Execute(startPanics{NewSimulation()}, s, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) != 1 || res.Violations[0].Property != PropertyJobAccepted ||
		!strings.Contains(res.Violations[0].Message, "panicked before its first event: broken on purpose") {
		t.Errorf("violations %v, want job-accepted", res.Violations)
	}
}

// panicOnce panics at its first write past limit and takes every later write.
type panicOnce struct {
	buf      strings.Builder
	limit    int
	panicked bool
}

func (w *panicOnce) Write(p []byte) (int, error) {
	if !w.panicked && w.buf.Len()+len(p) > w.limit {
		w.panicked = true
		panic("broken on purpose")
	}
	return w.buf.Write(p)
}

// TestAPanickingRunWritesItsWholeTrace: the trace file of a run that panicked holds every
// event it recorded, the last ones before the panic included.
func TestAPanickingRunWritesItsWholeTrace(t *testing.T) {
	s, err := Lookup("pipeline-calm")
	if err != nil {
		t.Fatal(err)
	}
	w := &panicOnce{limit: 60_000}
	_, res, err := Execute(NewSimulation(), s, 1, RunOptions{Trace: w})
	if err != nil {
		t.Fatal(err)
	}
	if res.Panic == "" {
		t.Fatal("the run did not panic")
	}
	if lines := uint64(strings.Count(w.buf.String(), "\n")); lines != res.Events+1 {
		t.Errorf("the trace file has %d lines, want the header and the %d events recorded", lines, res.Events)
	}
}

// A scenario built in Go and run without Complete is refused with an error that says to call
// it, not with the engine's complaint about a setting the defaults would have filled.
func TestAScenarioWithoutCompleteIsRefused(t *testing.T) {
	s := &Scenario{Name: "hand-made", Mode: ModeAligned,
		Topology: Topology{Kind: TopologyPipeline, Parallelism: 1},
		Workload: Workload{Kind: WorkloadKeyedSum, Records: 10}, Sink: &Sink{Kind: SinkTwoPhaseCommit},
		Expect: Expect{Verdict: VerdictPass}}
	_, _, err := Execute(NewSimulation(), s, 1, RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "hand-made: defaults not applied: call Complete") {
		t.Fatalf("Execute without Complete: %v", err)
	}
	if err := s.Complete("scenario"); err != nil {
		t.Fatal(err)
	}
	if _, res, err := Execute(NewSimulation(), s, 1, RunOptions{}); err != nil || res.Unexpected {
		t.Fatalf("after Complete: %v, %v", err, res)
	}
}
