package explore

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/trace"
)

// exploreStream keys the explorer's own PCG ("guide"), which draws fresh genomes, parents
// and mutations; nothing else reads it.
const exploreStream = 0x6775696465

// maxTries bounds the mutants drawn for one input before the exploration gives up: every
// one refused or already run means the generator refuses nearly everything, a bug to
// report rather than a loop to spin in.
const maxTries = 64

// explorer is one exploration's state. Only the goroutine of Explore's loop touches it,
// except run, which reads cfg alone.
type explorer struct {
	cfg        Config
	r          *rand.Rand
	corpus     *Corpus
	drawn      map[uint64]bool // keys of the inputs drawn
	next       int             // the next run's index
	merged     int             // results merged so far, in run order
	seedsTried uint64          // uniform: seeds drawn so far, refused or not
	stopped    bool
	s          Stats
	mutations  [mutationCount]int
	productive [mutationCount]int
}

func newExplorer(cfg Config) *explorer {
	return &explorer{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, exploreStream)), corpus: NewCorpus(), drawn: map[uint64]bool{}}
}

// draw draws the next input and its scenario, or reports that the exploration is over.
func (x *explorer) draw() (job, bool) {
	if x.stopped || (x.cfg.Continue != nil && !x.cfg.Continue(x.next)) {
		return job{}, false
	}
	for range maxTries {
		j, err := x.candidate()
		if err != nil {
			x.refused(err)
			continue
		}
		if x.drawn[j.input.key()] {
			x.s.Duplicates++
			continue
		}
		x.drawn[j.input.key()] = true
		j.run = x.next
		x.next++
		for _, m := range j.mutations {
			x.mutations[m]++
		}
		return j, true
	}
	x.stopped = true
	return job{}, false
}

// candidate draws one input: the next seed's scenario (uniform), a fresh genome (the first
// Window runs, and one run in freshOneIn), or a mutant of a corpus entry chosen by energy.
func (x *explorer) candidate() (job, error) {
	if x.cfg.Uniform {
		seed := x.cfg.Seed + x.seedsTried // past a refused seed, on to the next
		x.seedsTried++
		s, err := seeded(seed)
		return job{input: Input{Seed: seed}, scenario: s}, err
	}
	var in Input
	var muts []Mutation
	parent := (*Entry)(nil)
	if x.next >= Window && x.r.IntN(freshOneIn) != 0 {
		parent = x.corpus.Choose(x.r)
	}
	if parent == nil {
		in = Input{Genome: Genome{x.r.Uint64()}, Seed: x.r.Uint64()}
	} else {
		other := x.corpus.Choose(x.r)
		in, muts = mutate(x.r, parent.Input, &other.Input)
	}
	s, consumed, err := Draw(in.Genome)
	if err != nil {
		return job{}, err
	}
	in.Genome = consumed
	s.Seeds = &scenarios.SeedRange{First: in.Seed, Last: in.Seed}
	s.Description = fmt.Sprintf("Drawn by simrun explore (seed %d, run %d): %s.", x.cfg.Seed, x.next, generate.Summary(s))
	return job{input: in, scenario: s, mutations: muts}, nil
}

// seeded is generate.Seed with its panic (a draw the generator refuses) returned.
func seeded(seed uint64) (s *scenarios.Scenario, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("explore: the generator refused seed %d: %v", seed, p)
		}
	}()
	return generate.Seed(seed), nil
}

// refused counts a discarded input and keeps the first line of the first few reasons.
func (x *explorer) refused(err error) {
	x.s.Discarded++
	if len(x.s.Refusals) < maxRefusals {
		line, _, _ := strings.Cut(err.Error(), "\n")
		x.s.Refusals = append(x.s.Refusals, line)
	}
}

// run runs one job on a worker and names its features.
func (x *explorer) run(j job, events *[]trace.Event) finished {
	o := NewObserver()
	opts := scenarios.RunOptions{Build: x.cfg.Build, Events: events, Watch: o.Watch}
	plan, res, err := scenarios.Execute(x.cfg.Runner, j.scenario, j.input.Seed, opts)
	if err != nil {
		return finished{job: j, err: err}
	}
	return finished{job: j, plan: plan, result: res, features: o.Features(plan, res)}
}

// merge folds one result, the next in run order, into the corpus and hands it to emit.
// After emit asked to stop, results still in flight are dropped uncounted.
func (x *explorer) merge(f finished, emit func(*Outcome) bool) {
	x.merged++
	if x.stopped {
		return
	}
	if f.err != nil {
		x.refused(f.err)
		return
	}
	x.s.Runs++
	fresh := x.corpus.Add(f.run, f.input, f.features)
	if len(fresh) > 0 {
		for _, m := range f.mutations {
			x.productive[m]++
		}
	}
	if f.result.Unexpected {
		x.s.Found++
	}
	o := &Outcome{Run: f.run, Input: f.input, Plan: f.plan, Result: f.result, Features: f.features, New: fresh}
	if !emit(o) {
		x.stopped = true
	}
}

// stats returns the exploration's stats as they stand.
func (x *explorer) stats() Stats {
	s := x.s
	s.Corpus = len(x.corpus.Entries)
	s.Features = len(x.corpus.Hits)
	s.Rarest = x.corpus.Rarest(maxRarest)
	s.Mutations, s.Productive = map[string]int{}, map[string]int{}
	for m := range mutationCount {
		if x.mutations[m] > 0 {
			s.Mutations[m.String()] = x.mutations[m]
		}
		if x.productive[m] > 0 {
			s.Productive[m.String()] = x.productive[m]
		}
	}
	return s
}
