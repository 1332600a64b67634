package live_test

import (
	"bytes"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/live"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Every test runs inside a synctest bubble: the wall clock the live Env reads is the
// bubble's fake one, which moves only when every goroutine of the bubble is blocked, so a
// run of seconds takes what its computation takes, and no test sleeps or asserts a time.

// liveJob returns the engine job and reference of a built-in scenario, and the properties a
// run of it is judged by.
func liveJob(t *testing.T, name string) (engine.Config, checker.Reference, []checker.Property) {
	t.Helper()
	s, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, ref, err := scenarios.LiveJob(s)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, ref, scenarios.PropertiesToCheck(s)
}

// judge checks the run's trace with props and fails the test on any failed property, and
// on an unknown one unless allowed says it may be.
func judge(t *testing.T, events []trace.Event, ref checker.Reference, props []checker.Property) checker.Report {
	t.Helper()
	report := checker.Check(events, ref, checker.Options{Properties: props})
	for _, r := range report.Results {
		switch r.Verdict {
		case checker.VerdictFail:
			t.Errorf("%s failed: %v", r.Property, r.Violations)
		case checker.VerdictUnknown:
			t.Errorf("%s unknown: %s", r.Property, r.Note)
		}
	}
	return report
}

func newRecorder(w *bytes.Buffer) *trace.Recorder {
	var rec *trace.Recorder
	if w == nil {
		rec = trace.NewRecorder(nil, trace.Header{Scenario: "live-test", Seed: 1})
	} else {
		rec = trace.NewRecorder(w, trace.Header{Scenario: "live-test", Seed: 1})
	}
	rec.KeepEvents()
	return rec
}

// TestCalmBoundedJobPassesEveryProperty runs the calm catalogue pipeline live to its end and
// judges the trace with every property its scenario promises.
func TestCalmBoundedJobPassesEveryProperty(t *testing.T) {
	cfg, ref, props := liveJob(t, "pipeline-calm")
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(nil)
		out, err := live.Run(cfg, rec, live.Options{Seed: 1, For: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if out.Panic != nil {
			t.Fatalf("%v\n%s", out.Panic, out.Panic.Stack)
		}
		if !out.Finished {
			t.Fatalf("the bounded job did not finish in a minute of fake time (stopped at t=%d)", out.EndNanos)
		}
		if len(out.Crashes) != 0 || out.LivenessStartNanos != 0 {
			t.Errorf("a calm run crashed %v and owed progress from t=%d", out.Crashes, out.LivenessStartNanos)
		}
		for _, e := range rec.Events() {
			if e.Kind == trace.KindPhase || e.Kind == trace.KindFault {
				t.Errorf("a calm run traced %s", e.Kind)
			}
		}
		judge(t, rec.Events(), ref, props)
	})
}

// TestTwoPhaseCommitJobWithCrashesRecovers crashes tasks of a two-phase-commit keyed sum
// every 300ms during the first half of the run: each crash must be announced by a fault
// event, traced as task.crash, fail the job over and restore it, and the output must still
// be exactly once.
func TestTwoPhaseCommitJobWithCrashesRecovers(t *testing.T) {
	cfg, ref, props := liveJob(t, "coordinator-failover")
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(nil)
		out, err := live.Run(cfg, rec, live.Options{Seed: 7, For: 30 * time.Second, CrashEvery: 300 * time.Millisecond, FaultPhase: 1200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if out.Panic != nil {
			t.Fatalf("%v\n%s", out.Panic, out.Panic.Stack)
		}
		if !out.Finished {
			t.Fatalf("the job did not finish after the crashes (stopped at t=%d)", out.EndNanos)
		}
		if len(out.Crashes) == 0 {
			t.Fatal("no task was crashed")
		}
		counts := map[string]int{}
		phases := []string{}
		for _, e := range rec.Events() {
			counts[e.Kind]++
			if e.Kind == trace.KindPhase {
				p, _ := e.Attr(trace.AttrPhase)
				phases = append(phases, p)
			}
		}
		if counts[trace.KindFault] != len(out.Crashes) || counts[trace.KindTaskCrash] == 0 {
			t.Errorf("%d crashes, %d fault events, %d task.crash", len(out.Crashes), counts[trace.KindFault], counts[trace.KindTaskCrash])
		}
		if counts[trace.KindJobFailover] == 0 {
			t.Error("no job.failover after the crashes")
		}
		if want := "fault heal liveness end"; joinWords(phases) != want {
			t.Errorf("phases %q, want %q", joinWords(phases), want)
		}
		report := judge(t, rec.Events(), ref, props)
		if r, _ := report.Result(checker.PropRestoreFidelity); r.Verdict != checker.VerdictPass {
			t.Errorf("restore-fidelity %s (%s): the crashes should have made the job restore from a checkpoint", r.Verdict, r.Note)
		}
	})
}

// TestStopCutsAnUnboundedJob runs the engine's standard job, which never ends, for a second
// and stops it there: the trace must read back well-formed and pass the safety properties,
// however the stop cut it, and nothing may be traced after the stop.
func TestStopCutsAnUnboundedJob(t *testing.T) {
	cfg := engine.StandardConfig()
	cfg.Graph = engine.KeyedSumGraph(2, 0, 500, engine.TwoPhaseCommit)
	synctest.Test(t, func(t *testing.T) {
		var file bytes.Buffer
		rec := newRecorder(&file)
		out, err := live.Run(cfg, rec, live.Options{Seed: 3, For: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if out.Panic != nil || out.Finished {
			t.Fatalf("panic %v, finished %v: want a job cut while running", out.Panic, out.Finished)
		}
		n := rec.Len()
		time.Sleep(time.Second) // fake time: would any leftover timer trace after the stop?
		if rec.Len() != n {
			t.Fatalf("%d events traced after the stop", rec.Len()-n)
		}
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		_, events, err := trace.ReadAll(&file)
		if err != nil {
			t.Fatalf("the trace does not read back: %v", err)
		}
		if len(events) != int(n) || events[len(events)-1].T > out.EndNanos {
			t.Errorf("read back %d events ending at t=%d; recorded %d, stopped at t=%d", len(events), events[len(events)-1].T, n, out.EndNanos)
		}
		completed := 0
		for _, e := range events {
			if e.Kind == trace.KindCheckpointComplete {
				completed++
			}
		}
		if completed < 5 {
			t.Errorf("%d checkpoints completed in a second at one every 100ms", completed)
		}
		safety := []checker.Property{checker.PropWellFormed, checker.PropConsistentCut, checker.PropListenerContract,
			checker.PropDurableVisible, checker.PropNoTriggerInFailover, checker.PropCheckpointOutcome}
		report := checker.Check(events, checker.Reference{}, checker.Options{Properties: safety})
		for _, r := range report.Results {
			if r.Verdict == checker.VerdictFail {
				t.Errorf("%s failed: %v", r.Property, r.Violations)
			}
		}
		if r, _ := report.Result(checker.PropWellFormed); r.Verdict != checker.VerdictPass {
			t.Errorf("well-formed %s: %s", r.Verdict, r.Note)
		}
	})
}

func joinWords(words []string) string {
	var b bytes.Buffer
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}
