package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
)

// runOne is `simrun run`: one scenario, one seed, the plan printed first.
func (a *app) runOne(args []string) int {
	f, status := a.parseRunFlags(args)
	if status >= 0 {
		return status
	}
	s, err := a.loadScenario(f.scenario)
	if err != nil {
		return a.fail("run: %v", err)
	}
	policy, err := a.artifactPolicy(f.artifacts)
	if err != nil {
		return a.fail("run: %v", err)
	}
	plan, err := a.runner.Plan(s, f.seed.value)
	if err != nil {
		return a.fail("run: %s: %s", s.Name, trimPackage(err))
	}
	ref, err := runReference(s, f.referenceOut)
	if err != nil {
		return a.fail("run: %v", err)
	}
	draw, err := reserveRunOutputs(f)
	if err != nil {
		return a.fail("run: %v", err)
	}
	traceFile, err := a.openRunTrace(f.trace, f.asJSON)
	if err != nil {
		return a.fail("run: %v", err)
	}
	// Created with the trace file, before the run, so that a path it cannot write is bad
	// input before any work; written once the run has given its trace hash.
	refFile, err := openTrace(f.referenceOut)
	if err != nil {
		if traceFile != nil {
			traceFile.Close()
		}
		return a.fail("run: -reference-out: %v", err)
	}
	if refFile != nil {
		defer refFile.Close() // a second close, once the reference is written, does nothing
	}
	if !f.asJSON {
		printPlan(a.stdout, plan)
		fmt.Fprintln(a.stdout)
	}
	stopProgress := a.watchRun(plan)
	res, err := a.runPlan(plan, traceFile, draw)
	stopProgress()
	if readerGone(err) {
		return exitOK // the trace's reader stopped reading (-trace - | head -1): it wants no more
	}
	var pictures drawn
	if err == nil && draw != nil {
		pictures, err = draw.write(fmt.Sprintf("%s seed %d", s.Name, f.seed.value), res)
	}
	if err != nil {
		return a.fail("run: %s seed %d: %s", s.Name, f.seed.value, trimPackage(err))
	}
	if refFile != nil {
		ref.TraceHash = res.TraceHash
		if err := writeAndClose(refFile, checker.MarshalReference(ref)); err != nil {
			return a.fail("run: -reference-out: %v", err)
		}
	}
	a.printRun(f, res, pictures, a.save(policy, plan, res))
	return resultStatus(res)
}

// resultStatus is the exit status of one run's result (verdictStatus).
func resultStatus(res *scenarios.Result) int {
	if !res.Unexpected {
		return exitOK
	}
	if res.Verdict == scenarios.VerdictLimit {
		return exitLimit
	}
	return exitUnexpected
}

// runReference derives s's reference for -reference-out before anything is written, so
// that a scenario without one, or a folder that is not there, is bad input that leaves every
// file alone. No path asks for none.
func runReference(s *scenarios.Scenario, path string) (checker.Reference, error) {
	if path == "" {
		return checker.Reference{}, nil
	}
	ref, err := scenarios.ReferenceFor(s)
	if err != nil {
		return ref, fmt.Errorf("-reference-out: %s", trimPackage(err))
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return ref, fmt.Errorf("-reference-out %s: no directory %s", path, filepath.Dir(path))
	}
	return ref, nil
}

// runFlags are simrun run's flags.
type runFlags struct {
	scenario, trace, referenceOut, artifacts, html, perfetto string
	seed                                                     seedFlag
	asJSON                                                   bool
}

// parseRunFlags reads simrun run's flags; a status of 0 or more ends the command with it.
func (a *app) parseRunFlags(args []string) (*runFlags, int) {
	f := &runFlags{}
	fs := newFlags("run")
	fs.StringVar(&f.scenario, "scenario", "", "built-in scenario name or scenario file")
	fs.Var(&f.seed, "seed", "the seed")
	fs.StringVar(&f.trace, "trace", "", "write the trace (JSON Lines) to this file")
	fs.StringVar(&f.referenceOut, "reference-out", "", "write the run's reference (with its trace hash) to this file, for simrun check")
	fs.StringVar(&f.artifacts, "artifacts", "", "save an artifact of a failing run in this directory")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&f.html, "html", "", "write the run's space-time diagram (an HTML page) to this file")
	fs.StringVar(&f.perfetto, "perfetto", "", "write the run as trace-event JSON for ui.perfetto.dev to this file")
	positional, status := a.parseCommand(fs, usageRun, args)
	switch {
	case status >= 0:
		return nil, status
	case len(positional) > 0:
		return nil, a.fail("run: unexpected argument %q (usage: simrun %s)", positional[0], usageRun)
	case !f.seed.set:
		return nil, a.fail("run: -seed is required (usage: simrun %s)", usageRun)
	}
	return f, -1
}

// printRun prints what a run gave: one JSON object (and, on standard error, how to replay
// an unexpected verdict's artifact at path), or the result with where its trace,
// reference, pictures and artifact went.
func (a *app) printRun(f *runFlags, res *scenarios.Result, pictures drawn, path string) {
	if f.asJSON {
		out := runJSON{Result: forJSON(res), drawn: pictures}
		out.Reference = f.referenceOut
		writeJSON(a.stdout, out)
		if path != "" && res.Unexpected {
			fmt.Fprintf(a.stderr, "simrun: unexpected %s; replay with: %s\n", res.Verdict, a.replayCommand(path))
		}
		return
	}
	printResult(a.stdout, res)
	if f.trace != "" {
		where := f.trace
		if where == "-" {
			where = "standard output"
		}
		fmt.Fprintf(a.stdout, "%-12s %s\n", "trace file:", where)
	}
	if f.referenceOut != "" {
		fmt.Fprintf(a.stdout, "%-12s %s\n", "reference:", f.referenceOut)
	}
	pictures.print(a.stdout)
	if path != "" {
		fmt.Fprintf(a.stdout, "%-12s %s\n%-12s %s\n", "artifact:", path, "replay:", a.replayCommand(path))
	}
}

// writeAndClose writes data to f and closes it; either failing is the error.
func writeAndClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// runJSON is `run -json`'s object: the result, and the pictures -html and -perfetto wrote.
type runJSON struct {
	*scenarios.Result
	drawn
	Reference string `json:"reference,omitempty"`
}

// reserveRunOutputs refuses output files of run that would overwrite one another, and
// reserves its pictures (reserveDrawings).
func reserveRunOutputs(f *runFlags) (*drawings, error) {
	if f.trace != "" && f.trace != "-" && f.referenceOut != "" && samePath(f.trace, f.referenceOut) {
		return nil, fmt.Errorf("-trace and -reference-out both name %s: give each its own file", f.trace)
	}
	return reserveDrawings(f.html, f.perfetto, namedFile{"-trace", f.trace}, namedFile{"-reference-out", f.referenceOut})
}
