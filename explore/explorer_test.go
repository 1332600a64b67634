package explore

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
	"github.com/ckptsim/ckptsim/trace"
)

// watchingFake is scenariotest's fake runner that also shows a watcher one event per fault
// of the plan and per checkpoint the scenario may run at once, so that runs differ in
// features and the guidance has something to follow, without the engine.
type watchingFake struct {
	scenariotest.Fake
}

func (f *watchingFake) Run(p *scenarios.Plan, opts scenarios.RunOptions) (*scenarios.Result, error) {
	if opts.Watch != nil {
		for _, e := range p.Faults.Entries {
			opts.Watch(&trace.Event{Kind: trace.KindFault, Fault: string(e.Fault.Kind)})
		}
		for cp := range uint64(p.Scenario.Checkpoint.MaxConcurrent) {
			opts.Watch(&trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: cp + 1})
		}
	}
	return f.Fake.Run(p, opts)
}

// explored is what one exploration drew and saw, run by run.
type explored struct {
	keys     []uint64
	features [][]string
	hashes   []string
	stats    Stats
}

func exploreRuns(cfg Config, runs int, stopAt func(*Outcome) bool) explored {
	var x explored
	cfg.Continue = func(drawn int) bool { return drawn < runs }
	x.stats = Explore(cfg, func(o *Outcome) bool {
		x.keys = append(x.keys, o.Input.key())
		x.features = append(x.features, o.Features)
		x.hashes = append(x.hashes, o.Result.TraceHash)
		return stopAt == nil || !stopAt(o)
	})
	return x
}

// TestExploreIsDeterministic: the same seed explores the same inputs in the same order
// whatever the number of workers, since results merge in run order.
func TestExploreIsDeterministic(t *testing.T) {
	for _, uniform := range []bool{false, true} {
		var runs []explored
		for _, workers := range []int{1, 3, 16} {
			cfg := Config{Seed: 5, Uniform: uniform, Workers: workers, Runner: &watchingFake{}}
			runs = append(runs, exploreRuns(cfg, 3*Window, nil))
		}
		for i, r := range runs[1:] {
			if !slices.Equal(r.keys, runs[0].keys) || !slices.Equal(r.hashes, runs[0].hashes) {
				t.Errorf("uniform=%v: workers %d explored other inputs than one worker", uniform, []int{3, 16}[i])
			}
		}
		if got := len(runs[0].keys); got != 3*Window {
			t.Errorf("uniform=%v: %d runs, want %d", uniform, got, 3*Window)
		}
	}
}

// TestExploreSeedsDiffer: another seed explores other inputs.
func TestExploreSeedsDiffer(t *testing.T) {
	a := exploreRuns(Config{Seed: 1, Workers: 2, Runner: &watchingFake{}}, 2*Window, nil)
	b := exploreRuns(Config{Seed: 2, Workers: 2, Runner: &watchingFake{}}, 2*Window, nil)
	if slices.Equal(a.keys, b.keys) {
		t.Error("seeds 1 and 2 explored the same inputs")
	}
}

// TestExploreMutatesAfterTheFirstWindow: the first Window runs are fresh draws; later ones
// are mostly mutants of the corpus, and the stats count them.
func TestExploreMutatesAfterTheFirstWindow(t *testing.T) {
	x := exploreRuns(Config{Seed: 1, Workers: 2, Runner: &watchingFake{}}, 4*Window, nil)
	total := 0
	for _, n := range x.stats.Mutations {
		total += n
	}
	if total == 0 || x.stats.Corpus == 0 || x.stats.Features == 0 {
		t.Errorf("stats %+v: no mutation, corpus or feature", x.stats)
	}
	if x.stats.Runs != 4*Window {
		t.Errorf("%d runs, want %d", x.stats.Runs, 4*Window)
	}
}

// TestUniformDrawsSeedAfterSeed: the baseline runs generate.Seed(seed) on seed, from cfg.Seed up.
func TestUniformDrawsSeedAfterSeed(t *testing.T) {
	var seeds []uint64
	cfg := Config{Seed: 7, Uniform: true, Workers: 2, Runner: &watchingFake{}, Continue: func(n int) bool { return n < 5 }}
	Explore(cfg, func(o *Outcome) bool {
		seeds = append(seeds, o.Input.Seed)
		if o.Plan.Scenario.Name != generate.Name || o.Plan.Seed != o.Input.Seed {
			t.Errorf("run %d: scenario %s on seed %d", o.Run, o.Plan.Scenario.Name, o.Plan.Seed)
		}
		return true
	})
	if !slices.Equal(seeds, []uint64{7, 8, 9, 10, 11}) {
		t.Errorf("seeds %v, want 7 to 11", seeds)
	}
}

// TestExploreStopsWhenAsked: emit's false ends the exploration at that run, counted, and no
// later run is handed over even though some were in flight.
func TestExploreStopsWhenAsked(t *testing.T) {
	x := exploreRuns(Config{Seed: 1, Workers: 4, Runner: &watchingFake{}}, 10*Window, func(o *Outcome) bool { return o.Run == 20 })
	if x.stats.Runs != 21 || len(x.keys) != 21 {
		t.Errorf("stopped after %d runs (%d handed over), want 21", x.stats.Runs, len(x.keys))
	}
}

// TestExploreCountsRefusals: a generator that refuses every draw ends the exploration with
// its refusals counted, not a panic or a loop.
func TestExploreCountsRefusals(t *testing.T) {
	defer func(f func(rand.Source) *scenarios.Scenario) { generateFrom = f }(generateFrom)
	generateFrom = refusingGenerator
	x := exploreRuns(Config{Seed: 1, Workers: 1, Runner: &watchingFake{}}, 5, nil)
	if x.stats.Runs != 0 || x.stats.Discarded != maxTries || len(x.stats.Refusals) != maxRefusals {
		t.Errorf("stats %+v, want no run and %d refusals", x.stats, maxTries)
	}
}
