package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
)

// sweep is `simrun sweep`, and with no arguments the default job: every built-in scenario
// over its default seeds.
func (a *app) sweep(args []string) int {
	fs := newFlags("sweep")
	scenarioArg := fs.String("scenario", "all", "built-in scenario name, scenario file, or all")
	var seeds seedRangeFlag
	fs.Var(&seeds, "seeds", "seed range A-B (default: each scenario's own seeds)")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel, one per CPU unless given")
	var shard shardFlag
	fs.Var(&shard, "shard", "run only shard I of N (seeds congruent to I-1 mod N)")
	artifactDir := fs.String("artifacts", "", "save an artifact of every failing run in this directory")
	failFast := fs.Bool("failfast", false, "stop at the first unexpected result")
	asJSON := fs.Bool("json", false, "print one JSON line per run, then a summary line")
	generated := fs.Bool("generated", false, generatedUsage)
	positional, status := a.parseCommand(fs, usageSweep, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("sweep: unexpected argument %q (usage: simrun %s)", positional[0], usageSweep)
	}
	spec := sweepSpec{seeds: seeds.value, shard: shard, generated: *generated}
	var skipped []skippedScenario
	switch {
	case *generated && given(fs, "scenario"):
		return a.fail("sweep: -generated draws each seed's scenario; give no -scenario")
	case *generated && seeds.value == nil:
		return a.fail("sweep: -generated needs -seeds A-B: each seed draws its own scenario")
	case *generated:
		// The jobs draw the scenarios, one per seed.
	case *scenarioArg == "all":
		spec.scenarios, skipped = a.runnableBuiltins(spec.seeds)
		for _, s := range skipped {
			fmt.Fprintf(a.stderr, "simrun: skipping %s: %s\n", s.Scenario, s.Reason)
		}
	default:
		s, err := a.loadScenario(*scenarioArg)
		if err != nil {
			return a.fail("sweep: %v", err)
		}
		spec.scenarios = []*scenarios.Scenario{s}
	}
	policy, err := a.artifactPolicy(*artifactDir)
	if err != nil {
		return a.fail("sweep: %v", err)
	}

	var sum summary
	total := spec.total()
	progress := newProgress(a, total)
	var jobErr error
	var stoppedEarly bool
	saved := 0
	execute(a.runner, spec.jobs(), jobs.value, a.build(), func(o outcome) bool {
		progress.update(o.job, o.err == nil && o.result.Unexpected)
		if o.err != nil {
			jobErr = fmt.Errorf("%s seed %d: %s", o.scenario.Name, o.seed, trimPackage(o.err))
			return false
		}
		r := o.result
		sum.add(r)
		if path := a.save(policy, o.plan, r); path != "" {
			saved++
		}
		if *asJSON && spec.generated {
			writeJSON(a.stdout, generatedRunJSON{Result: forJSON(r), Drawn: scenarios.Summary(o.scenario)})
		} else if *asJSON {
			writeJSON(a.stdout, forJSON(r))
			if r.Unexpected && r.Artifact != "" {
				progress.clear()
				fmt.Fprintf(a.stderr, "simrun: unexpected %s on %s seed %d; replay with: %s\n", r.Verdict, r.Scenario, r.Seed, a.replayCommand(r.Artifact))
			}
		} else if r.Unexpected {
			progress.clear()
			a.printUnexpected(r)
			if spec.generated {
				fmt.Fprintln(a.stdout, "  drawn: "+scenarios.Summary(o.scenario))
			}
		}
		if r.Unexpected && *failFast {
			stoppedEarly = true
			return false
		}
		return true
	})
	progress.clear()
	if jobErr != nil {
		return a.fail("sweep: %v", jobErr)
	}

	all := sum.total()
	if *asJSON {
		writeJSON(a.stdout, sweepSummaryJSON{Summary: true, tally: all, Scenarios: sum.tallies, Skipped: skipped, StoppedEarly: stoppedEarly})
	} else {
		if all.Unexpected > 0 {
			fmt.Fprintln(a.stdout)
		}
		sum.print(a.stdout)
		for _, s := range skipped {
			fmt.Fprintf(a.stdout, "skipped %s: %s\n", s.Scenario, s.Reason)
		}
		if stoppedEarly {
			fmt.Fprintln(a.stdout, "stopped at the first unexpected result (-failfast)")
		}
		if saved > 0 {
			fmt.Fprintf(a.stdout, "%d artifacts in %s\n", saved, policy.dir)
		}
	}
	if all.Unexpected > 0 {
		return exitUnexpected
	}
	return exitOK
}

// generatedUsage is the -generated flag's help.
const generatedUsage = "draw each seed's scenario with scenarios.Generate (the scenario space, not the catalogue) and run it on that seed; needs -seeds"

// generatedRunJSON is a line of `sweep -generated -json`: the run, and what its seed drew.
type generatedRunJSON struct {
	*scenarios.Result
	Drawn string `json:"drawn"`
}

// given reports whether the flag called name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// sweepSummaryJSON is the last line of `sweep -json`.
type sweepSummaryJSON struct {
	Summary bool `json:"summary"`
	*tally
	Scenarios    []*tally          `json:"scenarios"`
	Skipped      []skippedScenario `json:"skipped,omitempty"`
	StoppedEarly bool              `json:"stopped_early,omitempty"`
}

// skippedScenario is a built-in the sweep left out because this build cannot run it.
type skippedScenario struct {
	Scenario string `json:"scenario"`
	Reason   string `json:"reason"`
}

// runnableBuiltins returns the built-ins this build can run, and the others with the
// reason, judged by planning each on the first seed of its range.
func (a *app) runnableBuiltins(seeds *scenarios.SeedRange) ([]*scenarios.Scenario, []skippedScenario) {
	var run []*scenarios.Scenario
	var skipped []skippedScenario
	for _, s := range a.builtins() {
		first := s.Seeds.First
		if seeds != nil {
			first = seeds.First
		}
		if _, err := a.runner.Plan(s, first); errors.Is(err, scenarios.ErrUnsupported) {
			reason := strings.TrimPrefix(trimPackage(err), s.Name+": ")
			skipped = append(skipped, skippedScenario{Scenario: s.Name, Reason: reason})
			continue
		}
		run = append(run, s)
	}
	return run, skipped
}

// printUnexpected reports one unexpected run of a sweep: what happened, its first
// violation, and the one command that replays it.
func (a *app) printUnexpected(r *scenarios.Result) {
	fmt.Fprintf(a.stdout, "UNEXPECTED %s seed %d: %s: %s\n", r.Scenario, r.Seed, r.Verdict, r.Why)
	for i, v := range r.Violations {
		if i == 3 {
			fmt.Fprintf(a.stdout, "  ... and %d more violations\n", len(r.Violations)-i)
			break
		}
		fmt.Fprintln(a.stdout, "  "+v.String())
	}
	if r.Artifact != "" {
		fmt.Fprintln(a.stdout, "  replay: "+a.replayCommand(r.Artifact))
	}
}

// progress reports a sweep's progress on stderr, never on the output a script reads: runs
// done of the total, unexpected so far, runs per second and the time left. On a terminal it
// is one line redrawn in place (at most ten times a second); elsewhere (a CI log, a file) it
// is a line every progressEvery, so that a long sweep is never silent until it ends.
type progress struct {
	a          *app
	total      uint64
	done       uint64
	unexpected uint64
	start      time.Time
	last       time.Time
	shown      bool
}

// progressEvery is how often progress writes a line where stderr is not a terminal.
const progressEvery = 5 * time.Second

func newProgress(a *app, total uint64) *progress {
	p := &progress{a: a, total: total}
	if a.clock != nil {
		p.start = a.clock()
		p.last = p.start
	}
	return p
}

func (p *progress) update(j job, unexpected bool) {
	p.done++
	if unexpected {
		p.unexpected++
	}
	if p.a.clock == nil {
		return
	}
	now := p.a.clock()
	if p.a.progress {
		if now.Sub(p.last) < 100*time.Millisecond {
			return
		}
		p.last = now
		p.shown = true
		fmt.Fprintf(p.a.stderr, "\r\x1b[K%s  %s seed %d", p.status(now), j.scenario.Name, j.seed)
		return
	}
	if now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	fmt.Fprintf(p.a.stderr, "simrun: %s\n", p.status(now))
}

// status is "120/400 runs, 0 unexpected, 85.3 runs/s, about 3s left".
func (p *progress) status(now time.Time) string {
	s := fmt.Sprintf("%d/%d runs, %d unexpected", p.done, p.total, p.unexpected)
	elapsed := now.Sub(p.start).Seconds()
	if elapsed <= 0 {
		return s
	}
	rate := float64(p.done) / elapsed
	s += fmt.Sprintf(", %.1f runs/s", rate)
	if rate > 0 && p.total >= p.done {
		left := time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second)
		s += fmt.Sprintf(", about %s left", left)
	}
	return s
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.a.stderr, "\r\x1b[K")
		p.shown = false
	}
}
