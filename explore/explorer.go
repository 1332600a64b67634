package explore

import (
	"sync"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Config says what to explore and how.
type Config struct {
	// Seed keys the explorer's own stream (guided), or is the first seed drawn (uniform).
	Seed uint64
	// Uniform draws generate.Seed(Seed), generate.Seed(Seed+1), ... and runs each on its
	// seed, as a generated sweep does: the baseline, with no feedback.
	Uniform bool
	// Workers run in parallel (at most Window are ever in flight).
	Workers int
	Runner  scenarios.Runner
	Build   string
	// Continue is asked before each run is drawn, with the number drawn so far; false ends
	// the exploration (a time budget, a count of runs). Runs in flight still finish.
	Continue func(drawn int) bool
}

// Window is how far the drawing runs ahead of the results: input i is drawn after the
// results of runs 0 to i-Window are merged, in run order. It is a constant, not the number
// of workers, so that the inputs do not depend on -j.
const Window = 16

// freshOneIn is how often a guided exploration draws a fresh genome instead of a mutant,
// so that it never stops sampling the whole space as the uniform baseline does.
const freshOneIn = 10

// Outcome is one finished run, handed over in run order.
type Outcome struct {
	Run      int // from 0, in the order the inputs were drawn
	Input    Input
	Plan     *scenarios.Plan
	Result   *scenarios.Result
	Features []string
	New      []string // features no earlier run reached
}

// Stats sums up an exploration.
type Stats struct {
	Runs  int `json:"runs"`
	Found int `json:"found"` // runs whose verdict was unexpected
	// Discarded counts mutants never run: the generator refused the draw, or the scenario
	// could not be planned. Duplicates counts mutants equal to an input already drawn.
	Discarded  int `json:"discarded"`
	Duplicates int `json:"duplicates"`
	Corpus     int `json:"corpus"`
	Features   int `json:"features"`
	// Mutations counts the mutations applied to drawn inputs, and Productive those of the
	// inputs that reached a new feature, by name.
	Mutations  map[string]int `json:"mutations,omitempty"`
	Productive map[string]int `json:"productive,omitempty"`
	// Refusals are the first few reasons the generator or the planner gave for a discarded
	// mutant, to tell a generator bug from bad luck.
	Refusals []string `json:"refusals,omitempty"`
	// Rarest are the features the fewest runs reached, each with its count ("cp:100+ 1"):
	// what the exploration barely got to.
	Rarest []string `json:"rarest,omitempty"`
}

// maxRarest is how many features Stats.Rarest lists.
const maxRarest = 8

// maxRefusals is how many refusals Stats keeps.
const maxRefusals = 3

// job is one drawn input on its way to a worker.
type job struct {
	run       int
	input     Input
	scenario  *scenarios.Scenario
	mutations []Mutation
}

// finished is a job's run, back from its worker.
type finished struct {
	job
	plan     *scenarios.Plan
	result   *scenarios.Result
	features []string
	err      error
}

// Explore runs the exploration cfg describes and hands each outcome to emit in run order;
// emit returns false to stop (the first find). It returns the stats. The inputs depend
// only on cfg.Seed, cfg.Uniform and the results of earlier runs in run order: the same
// seed explores the same inputs whatever the number of workers.
func Explore(cfg Config, emit func(*Outcome) bool) Stats {
	x := newExplorer(cfg)
	todo := make(chan job, Window)
	done := make(chan finished, Window)
	var wg sync.WaitGroup
	for range max(1, min(cfg.Workers, Window)) {
		wg.Go(func() {
			var events []trace.Event // lent to each run in turn (scenarios.RunOptions.Events)
			for j := range todo {
				done <- x.run(j, &events)
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	x.loop(todo, done, emit)
	return x.stats()
}

// loop draws the first Window inputs, then one more after each result merged, and merges
// the results in run order until nothing is in flight.
func (x *explorer) loop(todo chan<- job, done <-chan finished, emit func(*Outcome) bool) {
	inFlight := 0
	drawNext := func() {
		if j, ok := x.draw(); ok {
			todo <- j
			inFlight++
		}
	}
	for range Window {
		drawNext()
	}
	pending := map[int]finished{}
	for inFlight > 0 {
		f := <-done
		pending[f.run] = f
		for {
			ready, ok := pending[x.merged]
			if !ok {
				break
			}
			delete(pending, x.merged)
			inFlight--
			x.merge(ready, emit)
			drawNext()
		}
	}
	close(todo)
	for range done {
	}
}
