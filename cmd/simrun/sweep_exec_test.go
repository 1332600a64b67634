package main

import (
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// blockingRunner runs seed 1 only once every other seed has run, as a long run among
// short ones, so that a sweep finishes only if dispatch runs that far ahead of output.
type blockingRunner struct {
	scenariotest.Fake
	others sync.WaitGroup
}

func (r *blockingRunner) Run(p *scenarios.Plan, opts scenarios.RunOptions) (*scenarios.Result, error) {
	if p.Seed == 1 {
		r.others.Wait()
	} else {
		defer r.others.Done()
	}
	return r.Fake.Run(p, opts)
}

// TestExecuteRunsAheadOfALongRun: while one worker is held by a long run, the other goes on
// with the 40 runs after it (within the window of 32 runs a worker), and the outcomes still
// come out in order.
func TestExecuteRunsAheadOfALongRun(t *testing.T) {
	const runs = 41
	s, err := scenarios.Lookup(scenarios.StandardName)
	if err != nil {
		t.Fatal(err)
	}
	r := &blockingRunner{}
	r.others.Add(runs - 1)
	jobs := func(yield func(job) bool) {
		for i := range runs {
			if !yield(job{index: i, scenario: s, seed: uint64(i + 1)}) {
				return
			}
		}
	}
	done := make(chan []uint64)
	go func() {
		var seeds []uint64
		execute(r, jobs, 2, "test", func(o outcome) bool {
			seeds = append(seeds, o.seed)
			return true
		})
		done <- seeds
	}()
	select {
	case seeds := <-done:
		for i, seed := range seeds {
			if seed != uint64(i+1) {
				t.Fatalf("outcome %d is seed %d; want the seeds in order", i, seed)
			}
		}
		if len(seeds) != runs {
			t.Fatalf("%d outcomes, want %d", len(seeds), runs)
		}
	case <-time.After(time.Minute):
		t.Fatal("the sweep stopped behind its long first run: dispatch does not run far enough ahead")
	}
}
