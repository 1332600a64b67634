package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// runProgress reports how far one long `simrun run` has got, on stderr, so that a run of
// minutes is not silent until it ends: its events of max_events, its virtual time of the
// time at which it stops, and the wall time so far. A run shorter than runProgressAfter
// shows nothing. On a terminal the report is one line redrawn in place and cleared before
// the result is printed; where stderr is a file or a pipe (a CI log) it is a line every
// progressEvery. Where stderr is neither (a test's buffer) there is no report, so standard
// output and captured output are what they were without it.
//
// The run's goroutine only stores two numbers per event; a ticker on another goroutine
// reads them, so the report never slows the run down by more than that, and never reaches
// the trace.
type runProgress struct {
	events       atomic.Uint64
	virtualNanos atomic.Int64
	// after is how long the run goes before anything is shown; every how often the report
	// is written (redrawn on a terminal).
	after, every time.Duration
	stop         chan struct{}
	done         sync.WaitGroup
}

// runProgressAfter is how long a run goes before its progress is shown.
const runProgressAfter = 2 * time.Second

// watchRun starts the progress report of plan's run when stderr can show it, and has the
// next runPlan feed it. The returned function stops it and clears its line; call it once
// the run has returned, before anything else is printed.
func (a *app) watchRun(plan *scenarios.Plan) func() {
	if !a.progress && !isFile(a.stderr) {
		return func() {}
	}
	p := newRunProgress(a.progress)
	a.runWatch = p.observe
	p.done.Add(1)
	go p.report(a.stderr, a.progress, plan, time.Now())
	return func() {
		a.runWatch = nil
		close(p.stop)
		p.done.Wait()
	}
}

// newRunProgress is a report that is not running yet, timed for a terminal or a log.
func newRunProgress(terminal bool) *runProgress {
	p := &runProgress{after: runProgressAfter, every: progressEvery, stop: make(chan struct{})}
	if terminal {
		p.every = 200 * time.Millisecond
	}
	return p
}

// observe is the run's watcher: it keeps the count and the virtual time of the last event.
func (p *runProgress) observe(e *trace.Event) {
	p.events.Add(1)
	p.virtualNanos.Store(e.T)
}

// report writes the progress until stop, redrawn on a terminal and a line every
// progressEvery elsewhere, and clears a redrawn line when it stops.
func (p *runProgress) report(w io.Writer, terminal bool, plan *scenarios.Plan, start time.Time) {
	defer p.done.Done()
	ticker := time.NewTicker(p.every)
	defer ticker.Stop()
	shown := false
	for {
		select {
		case <-p.stop:
			if shown && terminal {
				fmt.Fprint(w, "\r\x1b[K")
			}
			return
		case now := <-ticker.C:
			if now.Sub(start) < p.after {
				continue
			}
			line := p.status(plan, now.Sub(start))
			if terminal {
				fmt.Fprintf(w, "\r\x1b[K%s", line)
			} else {
				fmt.Fprintln(w, line)
			}
			shown = true
		}
	}
}

// status is "simrun: standard seed 1: 3.41s of 9.75s virtual (35%), 120433 trace events,
// 12s wall". The virtual time is out of the end of the liveness phase, where a run stops
// unless it hits a limit first.
func (p *runProgress) status(plan *scenarios.Plan, wall time.Duration) string {
	l := plan.Scenario.Limits
	ends := time.Duration(l.FaultPhase + l.HealPhase + l.LivenessBound*5/4)
	virtual := time.Duration(p.virtualNanos.Load())
	if p.events.Load() == 0 {
		return fmt.Sprintf("simrun: %s seed %d: building the job and its reference, %s wall", plan.Scenario.Name, plan.Seed, wall.Round(time.Second))
	}
	return fmt.Sprintf("simrun: %s seed %d: %s of %s virtual (%d%%), %d trace events, %s wall",
		plan.Scenario.Name, plan.Seed, virtual.Round(time.Millisecond), ends, int64(100*virtual/max(ends, 1)), p.events.Load(), wall.Round(time.Second))
}

// isFile reports whether w is a file or pipe of the process (a log, not a test's buffer).
func isFile(w io.Writer) bool {
	_, ok := w.(*os.File)
	return ok
}
