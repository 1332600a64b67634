package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// lockedBuffer is a writer two goroutines may share.
type lockedBuffer struct {
	sync.Mutex
	strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.Lock()
	defer b.Unlock()
	return b.Builder.Write(p)
}

func (b *lockedBuffer) String() string {
	b.Lock()
	defer b.Unlock()
	return b.Builder.String()
}

func progressPlan(t *testing.T) *scenarios.Plan {
	t.Helper()
	s, err := scenarios.Lookup("standard")
	if err != nil {
		t.Fatal(err)
	}
	return &scenarios.Plan{Scenario: s, Seed: 7}
}

// TestRunProgressStatus: the line says the run, how much of its virtual time has passed,
// its events and the wall time; before the first event, that the job is being built.
func TestRunProgressStatus(t *testing.T) {
	plan := progressPlan(t)
	p := newRunProgress(false)
	if got, want := p.status(plan, 3*time.Second), "simrun: standard seed 7: building the job and its reference, 3s wall"; got != want {
		t.Errorf("before any event: %q, want %q", got, want)
	}
	for _, at := range []int64{1_000_000, 2_000_000, 4_875_000_000} {
		p.observe(&trace.Event{T: at})
	}
	if got, want := p.status(plan, 12*time.Second), "simrun: standard seed 7: 4.875s of 9.75s virtual (50%), 3 trace events, 12s wall"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRunProgressReport: off a terminal a line is written each time, after the delay; on a
// terminal the line is redrawn and cleared when the run ends, so that the result starts on
// a clean line.
func TestRunProgressReport(t *testing.T) {
	plan := progressPlan(t)
	for _, terminal := range []bool{false, true} {
		var w lockedBuffer
		p := newRunProgress(terminal)
		p.after, p.every = 0, time.Millisecond
		p.observe(&trace.Event{T: 1_000_000_000})
		p.done.Add(1)
		go p.report(&w, terminal, plan, time.Now())
		for !strings.Contains(w.String(), "1s of 9.75s virtual") {
			time.Sleep(time.Millisecond)
		}
		close(p.stop)
		p.done.Wait()
		got := w.String()
		if terminal && (!strings.HasPrefix(got, "\r\x1b[Ksimrun: standard seed 7: ") || !strings.HasSuffix(got, "\r\x1b[K")) {
			t.Errorf("terminal: %q is not redrawn and cleared", got)
		}
		if !terminal && (strings.Contains(got, "\r") || !strings.HasSuffix(got, "wall\n")) {
			t.Errorf("log: %q is not whole lines", got)
		}
	}
}

// TestRunShowsNoProgressInCapturedOutput: where stderr is neither a terminal nor a file
// (a test's buffer), a run installs no watcher and writes nothing to stderr.
func TestRunShowsNoProgressInCapturedOutput(t *testing.T) {
	inTempDir(t)
	r := realRun("run", "-scenario", "pipeline-calm", "-seed", "1")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	a := testApp(t, nil)
	a.stderr = &strings.Builder{}
	a.watchRun(progressPlan(t))()
	if a.runWatch != nil {
		t.Error("a watcher was installed for a buffer")
	}
}
