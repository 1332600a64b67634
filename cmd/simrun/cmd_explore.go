package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/explore"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// exploreOptions are explore's flags, read.
type exploreOptions struct {
	budget    time.Duration
	seed      uint64
	uniform   bool
	workers   int
	first     bool
	artifacts string
	asJSON    bool
}

// exploreCommand is `simrun explore`: draw generated scenarios for a wall-clock budget,
// guided by what earlier runs reached (package explore) or, with -uniform, seed after
// seed as a generated sweep does, and report every unexpected verdict with its artifact.
// Exit status: 0 nothing unexpected, 1 some run unexpected, 2 bad usage. With -zoo it
// instead compares guided and uniform exploration on the zoo's bugs (cmd_explore_zoo.go).
func (a *app) exploreCommand(args []string) int {
	fs := newFlags("explore")
	budget := fs.Duration("for", 0, "how long to explore, on the wall clock (such as 60s); runs in flight then finish")
	seed := seedFlag{value: 1}
	fs.Var(&seed, "seed", "the explorer's seed (guided), or the first seed drawn (-uniform)")
	uniform := fs.Bool("uniform", false, "the baseline: draw generate.Seed(seed) for seed, seed+1, ... without feedback")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel, one per CPU unless given (at most 16 are in flight)")
	first := fs.Bool("first", false, "stop at the first unexpected verdict")
	artifactDir := fs.String("artifacts", "", "save an artifact of every failing run in this directory")
	asJSON := fs.Bool("json", false, "print one JSON line per unexpected run, then a summary line")
	zooMode := fs.Bool("zoo", false, "compare guided and uniform exploration on the zoo's bugs, each planted in a mutated simrun")
	bugID := fs.String("bug", "", "with -zoo: only this bug")
	positional, status := a.parseCommand(fs, usageExplore, args)
	if status >= 0 {
		return status
	}
	switch {
	case len(positional) > 0:
		return a.fail("explore: unexpected argument %q (usage: simrun %s)", positional[0], usageExplore)
	case *budget <= 0:
		return a.fail("explore: -for must be a positive duration such as 60s (usage: simrun %s)", usageExplore)
	case *bugID != "" && !*zooMode:
		return a.fail("explore: -bug needs -zoo")
	}
	o := exploreOptions{budget: *budget, seed: seed.value, uniform: *uniform, workers: jobs.value, first: *first, artifacts: *artifactDir, asJSON: *asJSON}
	if *zooMode {
		if *uniform || *first || *artifactDir != "" {
			return a.fail("explore: -zoo runs both guided and uniform with -first; give no -uniform, -first or -artifacts")
		}
		return a.exploreZoo(o, *bugID)
	}
	return a.explore(o)
}

// explore runs one exploration and reports it.
func (a *app) explore(o exploreOptions) int {
	policy, err := a.artifactPolicy(o.artifacts)
	if err != nil {
		return a.fail("explore: %v", err)
	}
	now := a.clock
	if now == nil {
		now = time.Now
	}
	start := now()
	deadline := start.Add(o.budget)
	if !o.asJSON {
		fmt.Fprintf(a.stdout, "explore: %s from seed %d for %s, %d worker(s)\n", exploreMode(o.uniform), o.seed, o.budget, o.workers)
	}
	cfg := explore.Config{Seed: o.seed, Uniform: o.uniform, Workers: o.workers, Runner: a.runner, Build: a.build(),
		Continue: func(int) bool { return now().Before(deadline) }}
	var first *exploreFind
	stats := explore.Explore(cfg, func(out *explore.Outcome) bool {
		r := out.Result
		if !r.Unexpected {
			return true
		}
		a.save(policy, out.Plan, r)
		find := &exploreFind{Result: forJSON(r), Drawn: generate.Summary(out.Plan.Scenario), Run: out.Run + 1, Seconds: now().Sub(start).Seconds()}
		if first == nil {
			first = find
		}
		a.reportFind(find, out, o.asJSON)
		return !o.first
	})
	a.reportExplore(o, stats, now().Sub(start), first)
	if stats.Found > 0 {
		return exitUnexpected
	}
	return exitOK
}

func exploreMode(uniform bool) string {
	if uniform {
		return "uniform"
	}
	return "guided"
}

// exploreFind is a line of `explore -json` for an unexpected run: the run's Result as sweep
// -json prints it, what was drawn, and when in the exploration it came.
type exploreFind struct {
	*scenarios.Result
	Drawn   string  `json:"drawn"`
	Run     int     `json:"run"`     // its place in run order, from 1
	Seconds float64 `json:"seconds"` // wall time from the start of the exploration
}

// reportFind prints one unexpected run.
func (a *app) reportFind(f *exploreFind, out *explore.Outcome, asJSON bool) {
	r := out.Result
	if asJSON {
		writeJSON(a.stdout, f)
		if r.Artifact != "" {
			fmt.Fprintf(a.stderr, "simrun: unexpected %s on run %d; replay with: %s\n", r.Verdict, f.Run, a.replayCommand(r.Artifact))
		}
		return
	}
	a.printUnexpected(r)
	fmt.Fprintf(a.stdout, "  run %d at %.1fs, drawn: %s\n", f.Run, f.Seconds, f.Drawn)
}

// exploreSummary is the last line of `explore -json`, under the key "explore".
type exploreSummary struct {
	Mode          string   `json:"mode"`
	Seed          uint64   `json:"seed"`
	BudgetSeconds float64  `json:"budget_seconds"`
	Seconds       float64  `json:"seconds"`
	Workers       int      `json:"workers"`
	FirstRun      int      `json:"first_run,omitempty"` // the first find's run, from 1
	FirstSeconds  float64  `json:"first_seconds,omitempty"`
	FirstVerdict  string   `json:"first_verdict,omitempty"`
	Build         string   `json:"build"`
	StoppedEarly  bool     `json:"stopped_early,omitempty"`
	Properties    []string `json:"first_properties,omitempty"`
	explore.Stats
}

// reportExplore prints the end of an exploration: its summary line (JSON) or lines.
func (a *app) reportExplore(o exploreOptions, s explore.Stats, took time.Duration, first *exploreFind) {
	sum := exploreSummary{Mode: exploreMode(o.uniform), Seed: o.seed, BudgetSeconds: o.budget.Seconds(), Seconds: took.Seconds(),
		Workers: o.workers, Build: a.build(), StoppedEarly: o.first && first != nil, Stats: s}
	if first != nil {
		sum.FirstRun, sum.FirstSeconds, sum.FirstVerdict = first.Run, first.Seconds, first.Verdict
		for _, p := range first.ViolatedProperties() {
			sum.Properties = append(sum.Properties, string(p))
		}
	}
	if o.asJSON {
		writeJSON(a.stdout, map[string]exploreSummary{"explore": sum})
		return
	}
	fmt.Fprintf(a.stdout, "explored %d runs in %.1fs: %d unexpected; corpus %d inputs, %d features\n",
		s.Runs, took.Seconds(), s.Found, s.Corpus, s.Features)
	if s.Discarded+s.Duplicates > 0 {
		fmt.Fprintf(a.stdout, "mutants discarded: %d refused, %d duplicates\n", s.Discarded, s.Duplicates)
	}
	for _, r := range s.Refusals {
		fmt.Fprintln(a.stdout, "  refused: "+r)
	}
	if len(s.Rarest) > 0 {
		fmt.Fprintln(a.stdout, "rarest features (runs): "+strings.Join(s.Rarest, ", "))
	}
	if sum.StoppedEarly {
		fmt.Fprintln(a.stdout, "stopped at the first unexpected result (-first)")
	}
}
