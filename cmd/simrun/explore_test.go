package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
)

func TestExploreBadUsage(t *testing.T) {
	a := testApp(t, scenarios.NewSimulation())
	for _, args := range [][]string{
		{"explore"},
		{"explore", "-for", "0s"},
		{"explore", "-for", "soon"},
		{"explore", "-for", "1s", "-j", "0"},
		{"explore", "-for", "1s", "-seed", "-1"},
		{"explore", "-for", "1s", "-fr"},
		{"explore", "-for", "1s", "extra"},
		{"explore", "-for", "1s", "-bug", "skip-state-restore"},
		{"explore", "-for", "1s", "-zoo", "-uniform"},
		{"explore", "-for", "1s", "-zoo", "-bug", "no-such-bug"},
	} {
		r := a.invoke(args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "simrun: explore") || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line", args, r.code, r.stderr, r.stdout)
		}
	}
}

// steppingClock is a wall clock that advances a second each time it is read, so that a
// budget of N seconds lets a fixed number of runs start, on any machine.
func steppingClock() func() time.Time {
	now := time.Unix(0, 0)
	return func() time.Time {
		now = now.Add(time.Second)
		return now
	}
}

// TestExploreCorrectBuildPasses: a short guided exploration on the real simulation finds
// nothing and exits 0, with its summary line last.
func TestExploreCorrectBuildPasses(t *testing.T) {
	inTempDir(t)
	a := testApp(t, scenarios.NewSimulation())
	a.clock = steppingClock()
	r := a.invoke("explore", "-for", "20s", "-j", "2", "-json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %s\n%s", r.code, r.stderr, r.stdout)
	}
	var sum map[string]exploreSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("output %q is not one summary line: %v", r.stdout, err)
	}
	s := sum["explore"]
	if s.Mode != "guided" || s.Runs < 10 || s.Found != 0 || s.Features == 0 {
		t.Errorf("summary %+v", s)
	}
}

// failingAligned is the simulation, with a violation added to every run of an aligned
// scenario: a find the explorer must report, whose artifact replays through it.
type failingAligned struct{ scenarios.Simulation }

func (f *failingAligned) Run(p *scenarios.Plan, opts scenarios.RunOptions) (*scenarios.Result, error) {
	res, err := f.Simulation.Run(p, opts)
	if err == nil && p.Scenario.Mode == scenarios.ModeAligned {
		res.Verdict = scenarios.VerdictFail
		res.Violations = append(res.Violations, checker.Violation{Property: checker.PropExactlyOnce, Message: "planted by the test"})
	}
	return res, err
}

// TestExploreReportsAFind: the first find is one JSON line, its artifact replays to the
// same trace hash, the summary names it, and the exit status is 1.
func TestExploreReportsAFind(t *testing.T) {
	dir := inTempDir(t)
	for _, mode := range []string{"-uniform", "-seed=4"} {
		a := testApp(t, &failingAligned{})
		a.clock = steppingClock()
		artifacts := filepath.Join(dir, strings.TrimLeft(mode, "-="))
		r := a.invoke("explore", "-for", "100s", "-j", "2", "-first", "-json", "-artifacts", artifacts, mode)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if r.code != exitUnexpected || len(lines) != 2 {
			t.Fatalf("%s: exit %d, %d lines; want 1 and a find and a summary\n%s%s", mode, r.code, len(lines), r.stdout, r.stderr)
		}
		var find exploreFind
		if err := json.Unmarshal([]byte(lines[0]), &find); err != nil || find.Verdict != scenarios.VerdictFail || find.Artifact == "" || find.Run < 1 {
			t.Fatalf("%s: find line %s (%v)", mode, lines[0], err)
		}
		var sum map[string]exploreSummary
		if err := json.Unmarshal([]byte(lines[1]), &sum); err != nil || sum["explore"].FirstRun != find.Run || !sum["explore"].StoppedEarly {
			t.Errorf("%s: summary %s (%v)", mode, lines[1], err)
		}
		replay := a.invoke("replay", "-json", find.Artifact)
		var check replayJSON
		if err := json.Unmarshal([]byte(replay.stdout), &check); err != nil || !check.Replay.HashMatches {
			t.Errorf("%s: replay of %s: %s%s", mode, find.Artifact, replay.stdout, replay.stderr)
		}
	}
}
