package main

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// outcome is a finished job.
type outcome struct {
	job
	plan   *scenarios.Plan
	result *scenarios.Result
	err    error // the scenario could not be assembled
}

// execute runs the jobs on workers goroutines (one simulation per goroutine; parallelism is
// across seeds only) and hands outcomes to emit in job order, whatever order they finish in,
// so output does not depend on the number of workers. emit returns false to stop the sweep:
// no further job starts, and no later outcome is emitted.
func execute(r scenarios.Runner, jobs func(yield func(job) bool), workers int, build string, emit func(outcome) bool) {
	// window bounds how far dispatch may run ahead of emission, which bounds the memory held
	// by finished outcomes waiting for a slow earlier one (a few kilobytes each: the trace
	// is not kept). Generated seeds differ in cost by a factor of thirty, so a window of
	// four runs a worker left the others idle behind one long run; with 32 a worker, a
	// replay of the run times of seeds 1-2000 at -j 2 waits 0.01% of the time, against 2.5%.
	window := make(chan struct{}, 32*workers)
	todo := make(chan job)
	done := make(chan outcome)
	var stopped atomic.Bool

	go func() {
		defer close(todo)
		for j := range jobs {
			window <- struct{}{}
			if stopped.Load() {
				<-window
				return
			}
			todo <- j
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			// A worker's runs take turns with one array for their events (RunOptions.Events).
			var events []trace.Event
			for j := range todo {
				done <- runJob(r, j, build, &events)
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	pending := map[int]outcome{}
	next := 0
	for o := range done {
		pending[o.index] = o
		for {
			ready, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if !stopped.Load() && !emit(ready) {
				stopped.Store(true)
			}
		}
	}
}

func runJob(r scenarios.Runner, j job, build string, events *[]trace.Event) outcome {
	plan, res, err := scenarios.Execute(r, j.scenario, j.seed, scenarios.RunOptions{Build: build, Events: events})
	if err != nil && j.own && !errors.Is(err, scenarios.ErrUnsupported) {
		plan, res = scenarios.Refused(j.scenario, j.seed, err)
		err = nil
	}
	return outcome{job: j, plan: plan, result: res, err: err}
}
