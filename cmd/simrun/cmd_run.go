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
	fs := newFlags("run")
	scenarioArg := fs.String("scenario", "", "built-in scenario name or scenario file")
	var seed seedFlag
	fs.Var(&seed, "seed", "the seed")
	tracePath := fs.String("trace", "", "write the trace (JSON Lines) to this file")
	referenceOut := fs.String("reference-out", "", "write the run's reference (with its trace hash) to this file, for simrun check")
	artifactDir := fs.String("artifacts", "", "save an artifact of a failing run in this directory")
	asJSON := fs.Bool("json", false, "print one JSON object")
	htmlPath := fs.String("html", "", "write the run's space-time diagram (an HTML page) to this file")
	perfettoPath := fs.String("perfetto", "", "write the run as trace-event JSON for ui.perfetto.dev to this file")
	positional, status := a.parseCommand(fs, usageRun, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("run: unexpected argument %q (usage: simrun %s)", positional[0], usageRun)
	}
	if !seed.set {
		return a.fail("run: -seed is required (usage: simrun %s)", usageRun)
	}
	s, err := a.loadScenario(*scenarioArg)
	if err != nil {
		return a.fail("run: %v", err)
	}
	policy, err := a.artifactPolicy(*artifactDir)
	if err != nil {
		return a.fail("run: %v", err)
	}
	plan, err := a.runner.Plan(s, seed.value)
	if err != nil {
		return a.fail("run: %s: %s", s.Name, trimPackage(err))
	}
	// The reference is derived before anything is written, so that a scenario without one is
	// bad input that leaves every file alone.
	var ref checker.Reference
	if *referenceOut != "" {
		if ref, err = scenarios.ReferenceFor(s); err != nil {
			return a.fail("run: -reference-out: %s", trimPackage(err))
		}
		if info, err := os.Stat(filepath.Dir(*referenceOut)); err != nil || !info.IsDir() {
			return a.fail("run: -reference-out %s: no directory %s", *referenceOut, filepath.Dir(*referenceOut))
		}
	}
	draw, err := reserveDrawings(*htmlPath, *perfettoPath)
	if err != nil {
		return a.fail("run: %v", err)
	}
	if *tracePath == "-" && *asJSON {
		return a.fail("run: -trace - and -json both write standard output: send the trace to a file")
	}
	traceFile, err := a.traceOutput(*tracePath)
	if err != nil {
		return a.fail("run: -trace: %v", err)
	}
	if *tracePath == "-" {
		// The trace owns standard output; the report goes to standard error.
		a.stdout = a.stderr
	}
	// Created with the trace file, before the run, so that a path it cannot write is bad
	// input before any work; written once the run has given its trace hash.
	refFile, err := openTrace(*referenceOut)
	if err != nil {
		if traceFile != nil {
			traceFile.Close()
		}
		return a.fail("run: -reference-out: %v", err)
	}
	if !*asJSON {
		printPlan(a.stdout, plan)
		fmt.Fprintln(a.stdout)
	}
	stopProgress := a.watchRun(plan)
	res, err := a.runPlan(plan, traceFile, draw)
	stopProgress()
	if readerGone(err) {
		// The trace's reader stopped reading (-trace /dev/stdout | head -1): it wants no more.
		if refFile != nil {
			refFile.Close()
		}
		return exitOK
	}
	var pictures drawn
	if err == nil && draw != nil {
		pictures, err = draw.write(fmt.Sprintf("%s seed %d", s.Name, seed.value), res)
	}
	if err != nil {
		if refFile != nil {
			refFile.Close()
		}
		return a.fail("run: %s seed %d: %s", s.Name, seed.value, trimPackage(err))
	}
	if refFile != nil {
		ref.TraceHash = res.TraceHash
		if err := writeAndClose(refFile, checker.MarshalReference(ref)); err != nil {
			return a.fail("run: -reference-out: %v", err)
		}
	}
	path := a.save(policy, plan, res)

	if *asJSON {
		out := runJSON{Result: forJSON(res), drawn: pictures}
		out.Reference = *referenceOut
		writeJSON(a.stdout, out)
	} else {
		printResult(a.stdout, res)
		if *tracePath != "" {
			where := *tracePath
			if where == "-" {
				where = "standard output"
			}
			fmt.Fprintf(a.stdout, "%-12s %s\n", "trace file:", where)
		}
		if *referenceOut != "" {
			fmt.Fprintf(a.stdout, "%-12s %s\n", "reference:", *referenceOut)
		}
		pictures.print(a.stdout)
		if path != "" {
			fmt.Fprintf(a.stdout, "%-12s %s\n%-12s %s\n", "artifact:", path, "replay:", a.replayCommand(path))
		}
	}
	if path != "" && *asJSON && res.Unexpected {
		fmt.Fprintf(a.stderr, "simrun: unexpected %s; replay with: %s\n", res.Verdict, a.replayCommand(path))
	}
	if res.Unexpected {
		return exitUnexpected
	}
	return exitOK
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
