package main

import (
	"fmt"
	"runtime"

	"github.com/ckptsim/ckptsim/scenarios"
)

// show is `simrun show NAME|FILE`: what a scenario is for, in its own words, then the whole
// scenario as a file would hold it (every default filled in), ready to copy and change.
func (a *app) show(args []string) int {
	fs := newFlags("show")
	positional, status := a.parseCommand(fs, usageShow, args)
	if status >= 0 {
		return status
	}
	if len(positional) != 1 {
		return a.fail("show: want one scenario name or file, got %d arguments (usage: simrun %s)", len(positional), usageShow)
	}
	s, err := a.loadScenario(positional[0])
	if err != nil {
		return a.fail("show: %v", err)
	}
	// Only the file on standard output, so that show NAME > FILE writes a scenario file;
	// its description is in it.
	a.stdout.Write(scenarios.Marshal(s))
	return exitOK
}

// version is `simrun version` (and `simrun -version`): the build this simrun is, which every
// artifact and trace header records, and the Go that built it.
func (a *app) version(args []string) int {
	fs := newFlags("version")
	positional, status := a.parseCommand(fs, usageVersion, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("version: unexpected argument %q (usage: simrun %s)", positional[0], usageVersion)
	}
	fmt.Fprintf(a.stdout, "simrun %s (%s)\n", a.build(), runtime.Version())
	return exitOK
}

// extract is `simrun extract ARTIFACT`: the artifact's scenario as a scenario file, renamed
// (NAME-extracted) and described as extracted from it, with its seed as the file's seeds, so
// that the case can be edited and run again without the artifact (jq used to be the way).
func (a *app) extract(args []string) int {
	fs := newFlags("extract")
	positional, status := a.parseCommand(fs, usageExtract, args)
	if status >= 0 {
		return status
	}
	if len(positional) != 1 {
		return a.fail("extract: want one artifact file, got %d arguments (usage: simrun %s)", len(positional), usageExtract)
	}
	path := positional[0]
	art, err := loadArtifact(path)
	if err != nil {
		return a.fail("extract: %v", err)
	}
	s := art.Scenario.Clone()
	s.Name = art.Scenario.Name + "-extracted"
	s.Description = fmt.Sprintf("Extracted from artifact %s (scenario %s, seed %d, build %s, verdict %s). %s",
		path, art.Scenario.Name, art.Seed, art.Build, art.Verdict, art.Scenario.Description)
	s.Seeds = &scenarios.SeedRange{First: art.Seed, Last: art.Seed}
	if err := s.Complete("extracted"); err != nil {
		return a.fail("extract: %s: %s", path, trimPackage(err))
	}
	a.stdout.Write(scenarios.Marshal(s))
	return exitOK
}
