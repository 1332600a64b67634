package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
)

// replay is `simrun replay`: rerun an artifact's case, compare the trace hash with the
// recorded one, and judge the verdict as the scenario expects. On the build that wrote the
// artifact a different hash is nondeterminism (exit 1); on another build it only says the
// code changed.
func (a *app) replay(args []string) int {
	fs := newFlags("replay")
	asJSON := fs.Bool("json", false, "print one JSON object")
	tracePath := fs.String("trace", "", "write the trace (JSON Lines) to this file")
	htmlPath := fs.String("html", "", "write the run's space-time diagram (an HTML page) to this file")
	perfettoPath := fs.String("perfetto", "", "write the run as trace-event JSON for ui.perfetto.dev to this file")
	positional, status := a.parseCommand(fs, usageReplay, args)
	if status >= 0 {
		return status
	}
	if len(positional) != 1 {
		return a.fail("replay: want exactly one artifact file, got %d arguments (usage: simrun %s)", len(positional), usageReplay)
	}
	path := positional[0]
	art, err := loadArtifact(path)
	if err != nil {
		return a.fail("replay: %v", err)
	}
	plan, err := a.runner.Plan(art.Scenario, art.Seed)
	if err != nil && recordedRefusal(art) && !errors.Is(err, scenarios.ErrUnsupported) {
		return a.replayRefusal(path, art, err, *asJSON)
	}
	if err != nil {
		return a.fail("replay: %s: %s", path, trimPackage(err))
	}
	draw, err := reserveDrawings(*htmlPath, *perfettoPath, namedFile{"-trace", *tracePath}, namedFile{"the artifact", path})
	if err != nil {
		return a.fail("replay: %v", err)
	}
	traceFile, err := a.openRunTrace(*tracePath, *asJSON)
	if err != nil {
		return a.fail("replay: %v", err)
	}
	if !*asJSON {
		fmt.Fprintf(a.stdout, "%-12s %s (recorded by build %s: %s)\n", "replaying:", path, art.Build, describeRecorded(art))
		printPlan(a.stdout, plan)
		fmt.Fprintln(a.stdout)
	}
	res, err := a.runPlan(plan, traceFile, draw)
	if readerGone(err) {
		return exitOK // the trace's reader stopped reading: it wants no more
	}
	var pictures drawn
	if err == nil && draw != nil {
		pictures, err = draw.write(fmt.Sprintf("%s seed %d, replayed from %s", art.Scenario.Name, art.Seed, path), res)
	}
	if err != nil {
		return a.fail("replay: %s: %s", path, trimPackage(err))
	}

	check := a.compareReplay(path, art, plan, res)
	if *asJSON {
		writeJSON(a.stdout, replayJSON{Result: forJSON(res), Replay: check, drawn: pictures})
	} else {
		printResult(a.stdout, res)
		a.printReplayCheck(check, res)
		pictures.print(a.stdout)
	}
	if check.Nondeterministic {
		return exitNondeterminism
	}
	return resultStatus(res)
}

// recordedRefusal reports whether art records a job of ckptsim's own that its build refused
// (scenarios.PropertyJobAccepted): replaying it is refusing it again.
func recordedRefusal(art *scenarios.Artifact) bool {
	return slices.ContainsFunc(art.Violations, func(v checker.Violation) bool { return v.Property == scenarios.PropertyJobAccepted })
}

// replayRefusal replays an artifact of a refused job that this build refuses too (err): the
// same verdict, with no run to trace or draw.
func (a *app) replayRefusal(path string, art *scenarios.Artifact, err error, asJSON bool) int {
	plan, res := scenarios.Refused(art.Scenario, art.Seed, err)
	check := a.compareReplay(path, art, plan, res)
	if asJSON {
		writeJSON(a.stdout, replayJSON{Result: forJSON(res), Replay: check})
	} else {
		fmt.Fprintf(a.stdout, "%-12s %s (recorded by build %s: %s)\n", "replaying:", path, art.Build, describeRecorded(art))
		printResult(a.stdout, res)
		a.printReplayCheck(check, res)
	}
	if check.Nondeterministic {
		return exitNondeterminism
	}
	return resultStatus(res)
}

// compareReplay compares res, the replay of art (read from path) by plan, with what art
// recorded. A replay by the same build that traced otherwise is nondeterminism.
func (a *app) compareReplay(path string, art *scenarios.Artifact, plan *scenarios.Plan, res *scenarios.Result) replayCheck {
	check := replayCheck{
		RecordedHash:     art.TraceHash,
		HashMatches:      res.TraceHash == art.TraceHash,
		ScheduleMatches:  plan.Faults.String() == art.Schedule.String(),
		RecordedBuild:    art.Build,
		SameBuild:        art.Build == a.build(),
		RecordedVerdict:  art.Verdict,
		SameViolations:   sameProperties(art.Violations, res.Violations),
		ArtifactFilePath: path,
	}
	check.Nondeterministic = check.SameBuild && !(check.HashMatches && check.ScheduleMatches)
	return check
}

// replayCheck compares a replay with its artifact.
type replayCheck struct {
	ArtifactFilePath string `json:"artifact"`
	RecordedHash     string `json:"recorded_trace_hash"`
	HashMatches      bool   `json:"hash_matches"`
	ScheduleMatches  bool   `json:"schedule_matches"`
	RecordedBuild    string `json:"recorded_build"`
	SameBuild        bool   `json:"same_build"`
	RecordedVerdict  string `json:"recorded_verdict"`
	SameViolations   bool   `json:"same_violations"`
	Nondeterministic bool   `json:"nondeterministic"`
}

type replayJSON struct {
	*scenarios.Result
	Replay replayCheck `json:"replay"`
	drawn
}

func (a *app) printReplayCheck(c replayCheck, res *scenarios.Result) {
	row := func(name, value string) { fmt.Fprintf(a.stdout, "%-12s %s\n", name+":", value) }
	// The artifact is sealed (see scenarios.ParseArtifact), so its schedule is the one the run
	// injected; only a swarm draws it again, and a different draw is a finding of its own.
	switch {
	case c.HashMatches && c.ScheduleMatches:
		row("replay", "trace hash matches the artifact: the run reproduced exactly")
	case !c.SameBuild:
		what := "trace differs from the artifact's"
		if c.HashMatches {
			what = "swarm drew a different fault schedule from the seed than the artifact records"
		}
		row("replay", fmt.Sprintf("%s; it was recorded by build %s, this is %s, so the code changed", what, c.RecordedBuild, a.build()))
	case !c.HashMatches:
		row("replay", fmt.Sprintf("NONDETERMINISM: same build %s, but the trace hash differs (recorded %s)", c.RecordedBuild, c.RecordedHash))
		if !c.ScheduleMatches {
			row("", "and the swarm drew a different fault schedule from the seed than the artifact records")
		}
	default:
		row("replay", fmt.Sprintf("NONDETERMINISM: same build %s and the same trace hash, but the swarm drew a different fault schedule from the seed than the artifact records", c.RecordedBuild))
	}
	if c.RecordedVerdict != res.Verdict || !c.SameViolations {
		row("recorded", fmt.Sprintf("%s; now %s", c.RecordedVerdict, res.Verdict))
	} else if res.Verdict != scenarios.VerdictPass {
		row("recorded", "the same verdict and violated properties")
	}
}

func describeRecorded(art *scenarios.Artifact) string {
	if art.Verdict == scenarios.VerdictFail {
		var props []checker.Property
		for _, v := range art.Violations {
			if !slices.Contains(props, v.Property) {
				props = append(props, v.Property)
			}
		}
		return fmt.Sprintf("fail %v", props)
	}
	return art.Verdict
}

// sameProperties reports whether two violation lists name the same properties.
func sameProperties(a, b []checker.Violation) bool {
	set := func(vs []checker.Violation) []checker.Property {
		var names []checker.Property
		for _, v := range vs {
			names = append(names, v.Property)
		}
		slices.Sort(names)
		return slices.Compact(names)
	}
	return slices.Equal(set(a), set(b))
}
