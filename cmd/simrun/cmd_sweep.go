package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// sweep is `simrun sweep`, and with no arguments the default job: every built-in scenario
// over its default seeds, then the generic part (generic.go).
func (a *app) sweep(args []string) int {
	fs := newFlags("sweep")
	scenarioArg := fs.String("scenario", "", "built-in scenario name, scenario file, or all (the catalogue alone); default: the catalogue, then the generic part")
	var seeds seedRangeFlag
	fs.Var(&seeds, "seeds", "seed range A-B of every part (default: each scenario's own seeds, and 1-"+fmt.Sprint(genericSeedCount)+" for the generic part)")
	var generic seedRangeFlag
	fs.Var(&generic, "generic", "seed range A-B of the generic part only (default: -seeds, else 1-"+fmt.Sprint(genericSeedCount)+")")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel, one per CPU unless given")
	var shard shardFlag
	fs.Var(&shard, "shard", "run only shard I of N (seeds congruent to I-1 mod N); without it, the shard comes from "+envJobCompletionIndex+" or "+envSlurmTaskID+" when set")
	var shards positiveInt
	fs.Var(&shards, "shards", "the number of shards, for an index from "+envJobCompletionIndex+" (or set "+envSimrunShards+")")
	artifactDir := fs.String("artifacts", "", "save an artifact of every failing run in this directory")
	failFast := fs.Bool("failfast", false, "stop at the first unexpected result")
	asJSON := fs.Bool("json", false, "print one JSON line per run, then a summary line")
	generated := fs.Bool("generated", false, generatedUsage)
	outPath := fs.String("o", "", "write the output to FILE, put in place whole when the sweep ends, instead of to stdout")
	positional, status := a.parseCommand(fs, usageSweep, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("sweep: unexpected argument %q (usage: simrun %s)", positional[0], usageSweep)
	}
	choice, err := chooseShard(shard, uint64(shards.value), a.getenv)
	if err != nil {
		return a.fail("sweep: %v", err)
	}
	parts, err := chooseParts(fs, *scenarioArg, seeds.value, generic.value, *generated)
	if err != nil {
		return a.fail("sweep: %v", err)
	}
	spec := sweepSpec{seeds: seeds.value, shard: choice.shard, generic: parts.generic, builtin: parts.catalogue}
	var skipped []skippedScenario
	switch {
	case parts.catalogue:
		spec.scenarios, skipped = a.runnableBuiltins(spec.seeds)
		for _, s := range skipped {
			fmt.Fprintf(a.stderr, "simrun: skipping %s: %s\n", s.Scenario, s.Reason)
		}
	case parts.generic == nil:
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
	var out *pendingOutput
	stdout := a.stdout
	if *outPath != "" {
		if out, err = createPendingOutput(*outPath); err != nil {
			return a.fail("sweep: -o %s: %v", *outPath, err)
		}
		defer out.abandon()
		a.stdout = out
		defer func() { a.stdout = stdout }()
	}

	if choice.shard.count != 0 {
		// Say first which shard this is, and why: a shard taken from the environment is
		// otherwise invisible in a log.
		if *asJSON {
			if choice.fromEnvironment {
				fmt.Fprintln(a.stderr, "simrun: "+choice.describe())
			}
		} else {
			fmt.Fprintln(a.stdout, choice.describe())
		}
	}
	st := &sweepState{a: a, sum: summary{labels: genericLabels(spec.plan())}, total: spec.total(),
		policy: policy, asJSON: *asJSON, failFast: *failFast}
	st.progress = newProgress(a, st.total)
	interrupted, stop := a.watchInterrupt()
	defer stop()
	st.stopOn, st.release = interrupted, stop
	execute(a.runner, spec.jobs(), jobs.value, a.build(), st.emit)
	st.progress.clear()
	if st.jobErr != nil {
		return a.fail("sweep: %v", st.jobErr)
	}
	if st.interrupted {
		// -o's file never exists unless whole: its .partial goes, and the summary of the
		// runs that ended goes to standard output instead.
		a.stdout = stdout
		fmt.Fprintf(a.stderr, "simrun: sweep: interrupted after %d of %d runs\n", st.ran, st.total)
	}
	all := st.sum.total()
	if *asJSON {
		writeJSON(a.stdout, sweepSummaryJSON{Summary: true, tally: all, Scenarios: st.sum.tallies, Skipped: skipped, StoppedEarly: st.stoppedEarly,
			Interrupted: st.interrupted, Build: a.build(), Plan: spec.plan(), Shard: choice.forJSON()})
	} else {
		a.printSweepEnd(&st.sum, all, skipped, st.stoppedEarly, st.saved, policy.dir)
	}
	if st.interrupted {
		return exitInterrupted
	}
	if out != nil {
		if err := out.commit(); err != nil {
			return a.fail("sweep: -o %s: %v", *outPath, err)
		}
	}
	return verdictStatus(all.Unexpected, all.Limit)
}

// pendingOutput is sweep -o FILE: the output goes to a hidden file beside FILE, renamed to
// FILE when the sweep ends, so that FILE only ever exists whole. A batch engine that runs a
// shard's process again replaces it, and a process killed midway leaves no FILE behind for
// merge to trip on (and a hidden .FILE.*.partial that no shard-*.jsonl matches).
type pendingOutput struct {
	path string
	file *os.File
	err  error // the first write error: a full disk is not a finished sweep
}

func createPendingOutput(path string) (*pendingOutput, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return nil, errors.New("is a directory")
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &pendingOutput{path: path, file: f}, nil
}

func (p *pendingOutput) Write(data []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.file.Write(data)
	p.err = err
	return n, err
}

// commit puts the output in place.
func (p *pendingOutput) commit() error {
	if p.err != nil {
		return p.err
	}
	if err := p.file.Sync(); err != nil {
		return err
	}
	if err := p.file.Close(); err != nil {
		return err
	}
	return os.Rename(p.file.Name(), p.path)
}

// abandon removes the hidden file of an output never committed (after commit it is gone,
// and this does nothing).
func (p *pendingOutput) abandon() {
	p.file.Close()
	os.Remove(p.file.Name())
}

// sweepState is what a sweep gathers as its runs end, in job order.
type sweepState struct {
	a            *app
	sum          summary
	progress     *progress
	policy       artifactPolicy
	asJSON       bool
	failFast     bool
	total, ran   uint64
	saved        int
	jobErr       error
	stoppedEarly bool
	interrupted  bool
	stopOn       func() bool // SIGINT came
	release      func()      // gives a further SIGINT its default, killing, effect
}

// emit takes the next run's outcome; false stops the sweep: a scenario that cannot be
// assembled, -failfast's first unexpected result, or an interrupt (SIGINT), after which the
// runs already under way end and nothing more starts.
func (st *sweepState) emit(o outcome) bool {
	a := st.a
	if st.stopOn() {
		st.release()
		st.interrupted = true
		return false
	}
	st.progress.update(o.job, o.err == nil && o.result.Unexpected)
	if o.err != nil {
		st.jobErr = fmt.Errorf("%s seed %d: %s", o.scenario.Name, o.seed, trimPackage(o.err))
		return false
	}
	st.ran++
	r := o.result
	st.sum.add(r)
	if path := a.save(st.policy, o.plan, r); path != "" {
		st.saved++
	}
	a.reportRun(o, st.asJSON, st.progress)
	if r.Unexpected && st.failFast {
		st.stoppedEarly = true
		return false
	}
	return true
}

// printSweepEnd writes what a text sweep (or merge) prints after its runs: the summary table
// (all is sum's total), the scenarios skipped, whether it stopped early, and where the
// artifacts went.
func (a *app) printSweepEnd(sum *summary, all *tally, skipped []skippedScenario, stoppedEarly bool, saved int, artifactDir string) {
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
		fmt.Fprintf(a.stdout, "%d artifacts in %s\n", saved, artifactDir)
	}
}

// generatedUsage is the -generated flag's help.
const generatedUsage = "run the generic part alone: draw each seed's scenario with generate.Seed (the scenario space, not the catalogue) and run it on that seed"

// generatedRunJSON is a line of a generic run in `sweep -json`: the run, and what its seed
// drew.
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

// sweepSummaryJSON is the last line of `sweep -json` (and of `merge -json`).
type sweepSummaryJSON struct {
	Summary bool `json:"summary"`
	*tally
	Scenarios    []*tally          `json:"scenarios"`
	Skipped      []skippedScenario `json:"skipped,omitempty"`
	StoppedEarly bool              `json:"stopped_early,omitempty"`
	// Interrupted: SIGINT stopped the sweep; the summary counts the runs that ended.
	Interrupted bool `json:"interrupted,omitempty"`
	// What simrun merge needs to tell the shards of one sweep from anything else: the build
	// that ran them (runs of different builds are different experiments), the whole sweep's
	// plan whatever the shard, and the shard.
	Build string            `json:"build"`
	Plan  []plannedScenario `json:"plan"`
	Shard *shardJSON        `json:"shard,omitempty"` // none: the whole sweep
}

// shardJSON is the part of a sweep an output holds: one shard for a sweep, any set of
// shards of one count for a merge of some of them (merge -partial).
type shardJSON struct {
	Count   uint64   `json:"count"`
	Indexes []uint64 `json:"indexes"` // from 1, ascending
	// Source is where a sweep took its shard from: "-shard 2/3",
	// "JOB_COMPLETION_INDEX=1, SIMRUN_SHARDS=3", ...
	Source string `json:"source,omitempty"`
}

// forJSON is the shard of a sweep's summary line, nil for the whole sweep.
func (c shardChoice) forJSON() *shardJSON {
	if c.shard.count == 0 {
		return nil
	}
	return &shardJSON{Count: c.shard.count, Indexes: []uint64{c.shard.index}, Source: c.source}
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

// reportRun prints one finished run of a sweep: its JSON line (a generated run's with what
// was drawn, and the replay command of an unexpected one on stderr), or, in text, the
// details of an unexpected run.
func (a *app) reportRun(o outcome, asJSON bool, progress *progress) {
	r := o.result
	switch {
	case asJSON:
		if o.generated {
			writeJSON(a.stdout, generatedRunJSON{Result: forJSON(r), Drawn: generate.Summary(o.scenario)})
		} else {
			writeJSON(a.stdout, forJSON(r))
		}
		if r.Unexpected && r.Artifact != "" {
			progress.clear()
			fmt.Fprintf(a.stderr, "simrun: unexpected %s on %s seed %d; replay with: %s\n", r.Verdict, r.Scenario, r.Seed, a.replayCommand(r.Artifact))
		}
	case r.Unexpected:
		progress.clear()
		a.printUnexpected(r)
		if o.generated {
			fmt.Fprintln(a.stdout, "  drawn: "+generate.Summary(o.scenario))
		}
	}
}
