package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine/live"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// liveCommand is `simrun live`: one scenario's job run in real time (package engine/live),
// its trace judged by the same checkers and its verdict reported as `simrun run` reports
// one, with the same exit statuses.
//
// What a live run judges: every property the scenario promises (scenarios.PropertiesToCheck),
// over a trace whose times are wall-clock nanoseconds since the start. The scenario's
// faults, swarm and script are the simulator's (links, hosts, storage, virtual time) and are
// not injected; the only faults are the task crashes of -crash-every, made during the first
// half of -for and announced by fault and phase events as the fault injector announces its
// own, so that liveness is judged after the last crash. A negative control fails only under
// its faults and a scripted scenario needs its script, so both are refused as bad input. A
// bounded job that has not finished when -for runs out was cut short: the properties that
// need its end (needFinishedJob: exactly-once, at-least-once, liveness) are not judged, the
// others are, and if none fails the verdict is limit, never pass; it is judged in full only
// when its liveness window (from the start, or from the heal) reached the bound the
// simulator gives it. A live run is not replayable, so no artifact is saved.
func (a *app) liveCommand(args []string) int {
	fs := newFlags("live")
	scenarioArg := fs.String("scenario", "", "built-in scenario name or scenario file")
	runFor := fs.Duration("for", 0, "how long the run may last on the wall clock (a bounded job that finishes earlier ends it)")
	crashEvery := fs.Duration("crash-every", 0, "crash a task picked at random every DURATION during the first half of -for (0: no crashes)")
	seed := seedFlag{value: 1}
	fs.Var(&seed, "seed", "seeds the engine's random streams and the choice of crashed tasks (default 1; a live run does not replay)")
	tracePath := fs.String("trace", "", "write the trace (JSON Lines) to this file")
	asJSON := fs.Bool("json", false, "print one JSON object")
	htmlPath := fs.String("html", "", "write the run's space-time diagram and verdict (an HTML page) to this file")
	perfettoPath := fs.String("perfetto", "", "write the run as trace-event JSON for ui.perfetto.dev to this file")
	positional, status := a.parseCommand(fs, usageLive, args)
	if status >= 0 {
		return status
	}
	s, status := a.liveScenario(positional, *scenarioArg, *runFor, *crashEvery)
	if status >= 0 {
		return status
	}
	cfg, ref, err := scenarios.LiveJob(s)
	if err != nil {
		return a.fail("live: %s", trimPackage(err))
	}
	if *tracePath == "-" && *asJSON {
		return a.fail("live: -trace - and -json both write standard output: send the trace to a file")
	}
	draw, err := reserveDrawings(*htmlPath, *perfettoPath, namedFile{"-trace", *tracePath})
	if err != nil {
		return a.fail("live: %v", err)
	}
	traceFile, err := a.traceOutput(*tracePath)
	if err != nil {
		return a.fail("live: -trace: %v", err)
	}
	if *tracePath == "-" {
		a.stdout = a.stderr // the trace owns standard output
	}
	plan := &scenarios.Plan{Scenario: s, Seed: seed.value, Properties: scenarios.PropertiesToCheck(s)}
	opts := live.Options{Seed: seed.value, For: *runFor, CrashEvery: *crashEvery}
	if !*asJSON {
		printLivePlan(a.stdout, plan, opts)
		fmt.Fprintln(a.stdout)
	}

	start := time.Now()
	rec, outcome, err := recordLive(traceFile, trace.Header{Scenario: s.Name, Seed: seed.value, Build: a.build()},
		func(rec *trace.Recorder) (live.Outcome, error) { return live.Run(cfg, rec, opts) })
	if readerGone(err) {
		return exitOK
	}
	if err != nil {
		return a.fail("live: %s: %s", s.Name, trimPackage(err))
	}
	res := judgeLive(plan, ref, rec, outcome, draw)
	res.WallNanos = time.Since(start).Nanoseconds()
	res.Judge(s.Expect)
	pictures, err := draw.drawJudged(fmt.Sprintf("%s seed %d (simrun live)", s.Name, seed.value), liveNotes(res, opts), rec.Events(), res.Violations)
	if err != nil {
		return a.fail("live: %s: %v", s.Name, err)
	}
	if *asJSON {
		writeJSON(a.stdout, liveJSON{Result: forJSON(res), For: runFor.String(), CrashEvery: crashEvery.String(), Finished: outcome.Finished, drawn: pictures})
	} else {
		printLiveResult(a.stdout, res, *tracePath, pictures)
	}
	if res.Unexpected {
		return exitUnexpected
	}
	return exitOK
}

// recordLive runs a live job, recording its trace (kept in memory too) into traceFile,
// which it closes; traceFile may be nil.
func recordLive(traceFile io.WriteCloser, header trace.Header, run func(*trace.Recorder) (live.Outcome, error)) (*trace.Recorder, live.Outcome, error) {
	var out io.Writer
	if traceFile != nil {
		out = traceFile
	}
	rec := trace.NewRecorder(out, header)
	rec.KeepEvents()
	outcome, err := run(rec)
	if err == nil {
		err = rec.Flush()
	}
	if traceFile != nil {
		if cerr := traceFile.Close(); err == nil {
			err = cerr
		}
	}
	return rec, outcome, err
}

// liveScenario loads the scenario of a live run, refusing first what a live run cannot do.
// The status is -1 when the run may go ahead.
func (a *app) liveScenario(positional []string, scenarioArg string, runFor, crashEvery time.Duration) (*scenarios.Scenario, int) {
	switch {
	case len(positional) > 0:
		return nil, a.fail("live: unexpected argument %q (usage: simrun %s)", positional[0], usageLive)
	case runFor <= 0:
		return nil, a.fail("live: -for must be a positive duration such as 3s (usage: simrun %s)", usageLive)
	case crashEvery < 0:
		return nil, a.fail("live: -crash-every must not be negative")
	case crashEvery > 0 && crashEvery >= runFor/2:
		return nil, a.fail("live: -crash-every %s crashes nothing: crashes come during the first half of -for (%s)", crashEvery, runFor/2)
	}
	s, err := a.loadScenario(scenarioArg)
	if err != nil {
		return nil, a.fail("live: %v", err)
	}
	switch {
	case s.IsNegativeControl():
		return nil, a.fail("live: %s is a negative control: it fails only under its faults, which a live run does not inject", s.Name)
	case len(s.Script) > 0:
		return nil, a.fail("live: %s has a script, whose steps run on the simulator's clock: a live run cannot follow it", s.Name)
	}
	return s, -1
}

// printLiveResult prints a live run's text report: the result, with trace times that are
// wall-clock times (the last event's and the whole run's), where the trace went, the
// pictures and a panic's stack. printResult would say the stack is in the artifact, and a
// live run has none, so the stack is printed here.
func printLiveResult(w io.Writer, res *scenarios.Result, tracePath string, pictures drawn) {
	stack := res.Panic
	res.Panic = ""
	printResultTimed(w, res, fmt.Sprintf("%s traced, %s wall", formatNanos(float64(res.VirtualNanos)), formatNanos(float64(res.WallNanos))))
	res.Panic = stack
	if tracePath != "" {
		where := tracePath
		if where == "-" {
			where = "standard output"
		}
		fmt.Fprintf(w, "%-12s %s\n", "trace file:", where)
	}
	pictures.print(w)
	if stack != "" {
		fmt.Fprintf(w, "%-12s\n", "panic:")
		for _, line := range strings.Split(strings.TrimRight(stack, "\n"), "\n") {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

// liveJSON is `live -json`'s object: the result as `run -json` gives it, and the run's
// live settings.
type liveJSON struct {
	*scenarios.Result
	For        string `json:"for"`
	CrashEvery string `json:"crash_every"`
	// Finished says the bounded job finished before -for ran out.
	Finished bool `json:"finished"`
	drawn
}

// printLivePlan writes what the run will do before it starts, as printPlan does for a
// simulated run, saying which of the scenario's faults it leaves out.
func printLivePlan(w io.Writer, p *scenarios.Plan, opts live.Options) {
	s := p.Scenario
	row := func(name, value string) { fmt.Fprintf(w, "%-12s %s\n", name+":", value) }
	row("seed", fmt.Sprint(p.Seed))
	row("scenario", s.Name)
	row("mode", s.Mode)
	row("topology", describeTopology(s))
	row("workload", describeWorkload(s))
	if s.Sink != nil {
		row("sink", s.Sink.Kind)
	}
	row("checkpoint", describeCheckpoint(s))
	crashes := "no crashes"
	if opts.CrashEvery > 0 {
		crashes = fmt.Sprintf("a task crash every %s until %s, then the liveness phase", opts.CrashEvery, opts.For/2)
	}
	row("live", fmt.Sprintf("for=%s on the wall clock, %s", opts.For, crashes))
	row("checks", joinProperties(p.Properties))
	switch {
	case s.Swarm != nil:
		row("faults", "the scenario's swarm is the simulator's: not drawn live")
	case len(s.Faults) > 0:
		row("faults", fmt.Sprintf("the scenario's %d scheduled are the simulator's: not injected live", len(s.Faults)))
	}
}

// judgeLive turns a live run's trace and outcome into a result, as the simulation's judge
// does: a panic fails the run; a bounded job cut before it finished and before its liveness
// bound is judged for safety only and is at best limit; otherwise every property is judged.
func judgeLive(p *scenarios.Plan, ref checker.Reference, rec *trace.Recorder, out live.Outcome, draw *drawings) *scenarios.Result {
	s := p.Scenario
	events := rec.Events()
	res := &scenarios.Result{
		Scenario:     s.Name,
		Seed:         p.Seed,
		Verdict:      scenarios.VerdictPass,
		TraceHash:    rec.Hash(),
		Events:       rec.Len(),
		VirtualNanos: out.EndNanos,
	}
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointComplete:
			res.CheckpointsCompleted++
		case trace.KindCheckpointAbort:
			res.CheckpointsAborted++
		}
	}
	for _, c := range out.Crashes {
		res.Faults = append(res.Faults, faults.Entry{Trigger: faults.At(faults.Duration(c.Nanos)), Fault: faults.Fault{Kind: faults.CrashTask, Task: c.Task}})
	}
	res.FaultsInjected = len(out.Crashes)
	if out.Panic != nil {
		livePanic(res, out.Panic, events)
		return res
	}
	props := p.Properties
	bound := s.Limits.LivenessBound.Nanos() * 5 / 4 // the simulator's liveness phase
	cut := len(ref.Liveness.FinishTasks) > 0 && !out.Finished && out.EndNanos-out.LivenessStartNanos < bound
	if cut {
		var judged []checker.Property
		for _, prop := range props {
			if !slices.Contains(needFinishedJob, prop) {
				judged = append(judged, prop)
			}
		}
		props = judged
	}
	res.Record(checker.Check(events, ref, draw.checkerOptions(checker.Options{Properties: props, MaxViolations: scenarios.MaxViolations})))
	if cut && res.Verdict != scenarios.VerdictFail {
		res.Verdict, res.Undecided = scenarios.VerdictLimit, nil
		res.LimitReason = fmt.Sprintf("the job had not finished when -for ran out, %s after progress became owed; "+
			"%s are judged only on a finished job or after %s (a longer -for)",
			formatNanos(float64(out.EndNanos-out.LivenessStartNanos)), joinProperties(needFinishedJob), formatNanos(float64(bound)))
	}
	return res
}

// needFinishedJob are the properties a bounded job's trace can be judged by only when the
// job has finished or its liveness bound has passed: each flags what has not happened yet
// (a record not yet committed is "lost", a task not yet finished is stuck), which on a
// trace cut short is no evidence of anything.
var needFinishedJob = []checker.Property{checker.PropExactlyOnce, checker.PropAtLeastOnce, checker.PropLiveness}

// livePanic fails res with the panic that ended the run, pinned to the last event traced
// before it.
func livePanic(res *scenarios.Result, p *live.Panic, events []trace.Event) {
	v := checker.Violation{Property: scenarios.PropertyPanic, T: p.Nanos}
	if p.Invariant {
		v.Property = scenarios.PropertyInvariant
	}
	where := " (before any event)"
	if len(events) > 0 {
		last := events[len(events)-1]
		v.Seq, v.T, v.Task, v.CP = last.Seq, last.T, last.Task, last.CP
		where = " (after " + last.Kind + ")"
	}
	v.Message = fmt.Sprintf("panic in %s%s: %v", processName(p.Process), where, p.Value)
	res.Verdict = scenarios.VerdictFail
	res.Violations = []checker.Violation{v}
	res.Panic = fmt.Sprint(p.Value) + "\n" + string(p.Stack)
}

func processName(name string) string {
	if name == "" {
		return "a call from outside the processes"
	}
	return name
}
