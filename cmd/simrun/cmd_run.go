package main

import "fmt"

// runOne is `simrun run`: one scenario, one seed, the plan printed first.
func (a *app) runOne(args []string) int {
	fs := newFlags("run")
	scenarioArg := fs.String("scenario", "", "built-in scenario name or scenario file")
	var seed seedFlag
	fs.Var(&seed, "seed", "the seed")
	tracePath := fs.String("trace", "", "write the trace (JSON Lines) to this file")
	artifactDir := fs.String("artifacts", "", "save an artifact of a failing run in this directory")
	asJSON := fs.Bool("json", false, "print one JSON object")
	var html notSupported
	fs.Var(&html, "html", "not yet supported")
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
	traceFile, err := openTrace(*tracePath)
	if err != nil {
		return a.fail("run: -trace: %v", err)
	}
	if !*asJSON {
		printPlan(a.stdout, plan)
		fmt.Fprintln(a.stdout)
	}
	res, err := a.runPlan(plan, traceFile)
	if err != nil {
		return a.fail("run: %s seed %d: %s", s.Name, seed.value, trimPackage(err))
	}
	path := a.save(policy, plan, res)

	if *asJSON {
		writeJSON(a.stdout, forJSON(res))
	} else {
		printResult(a.stdout, res)
		if *tracePath != "" {
			fmt.Fprintf(a.stdout, "%-12s %s\n", "trace file:", *tracePath)
		}
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
