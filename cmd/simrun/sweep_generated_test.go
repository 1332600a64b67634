package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// TestSweepGenerated: each seed of `sweep -generated` runs the scenario generate.Seed
// draws from it, on that seed; each JSON line names what was drawn; a failing run's
// artifact carries its scenario inline and replays.
func TestSweepGenerated(t *testing.T) {
	dir := t.TempDir()
	failing := uint64(5)
	fake := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		if p.Seed == failing {
			return []checker.Property{checker.PropConsistentCut}
		}
		return nil
	}}
	a := testApp(t, fake)
	r := a.invoke("sweep", "-generated", "-seeds", "3-7", "-json", "-artifacts", dir)
	if r.code != exitUnexpected {
		t.Fatalf("exit %d, want %d: %s", r.code, exitUnexpected, r.stderr)
	}
	lines := jsonLines(t, r.stdout)
	if len(lines) != 6 || lines[5]["summary"] != true || lines[5]["unexpected"] != float64(1) {
		t.Fatalf("want 5 runs and a summary with one unexpected result:\n%s", r.stdout)
	}
	for i, line := range lines[:5] {
		seed := uint64(3 + i)
		if line["seed"] != float64(seed) || line["scenario"] != generate.Name || line["drawn"] != generate.Summary(generate.Seed(seed)) {
			t.Errorf("line %d: seed %v scenario %v drawn %v", i, line["seed"], line["scenario"], line["drawn"])
		}
	}

	path := filepath.Join(dir, "generated-seed5-fail.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var art struct {
		Scenario json.RawMessage `json:"scenario"`
	}
	if err := json.Unmarshal(data, &art); err != nil {
		t.Fatal(err)
	}
	if want := scenarios.Marshal(generate.Seed(failing)); !jsonEqual(t, art.Scenario, want) {
		t.Errorf("the artifact's scenario is not the one seed %d draws:\n%s", failing, art.Scenario)
	}
	r = a.invoke("replay", path)
	if r.code != exitUnexpected || !strings.Contains(r.stdout, "trace hash matches the artifact") {
		t.Errorf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	text := a.invoke("sweep", "-generated", "-seeds", "5", "-artifacts", t.TempDir())
	if !strings.Contains(text.stdout, "UNEXPECTED generated seed 5") || !strings.Contains(text.stdout, "  drawn: "+generate.Summary(generate.Seed(5))) {
		t.Errorf("the text output does not say what seed 5 drew:\n%s", text.stdout)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func TestSweepGeneratedRefusesWhatItCannotUse(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "-generated", "-seeds", "1-3", "-scenario", "standard"}, "simrun: sweep: -generated"},
		{[]string{"sweep", "-generic", "1-3", "-scenario", "standard"}, "simrun: sweep: -generic"},
		{[]string{"sweep", "-generic", "1-3", "-scenario", "all"}, "simrun: sweep: -generic"},
		{[]string{"-generic", "3-1"}, "simrun: sweep: invalid value"},
	} {
		if r := a.invoke(tc.args...); r.code != exitUsage || !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line starting %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestRealGeneratedRunReplays: the artifact of a generated run on the real simulation
// replays to the same trace, whatever its verdict.
func TestRealGeneratedRunReplays(t *testing.T) {
	dir := t.TempDir()
	const seed = 11
	p, res, err := scenarios.Execute(scenarios.NewSimulation(), generate.Seed(seed), seed, scenarios.RunOptions{Build: "test"})
	if err != nil {
		t.Fatal(err)
	}
	path, err := scenarios.SaveArtifact(dir, scenarios.NewArtifact(p, res, "test"))
	if err != nil {
		t.Fatal(err)
	}
	r := realRun("replay", "-json", path)
	var got struct {
		Replay replayCheck `json:"replay"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("replay: exit %d: %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if !got.Replay.HashMatches || !got.Replay.ScheduleMatches {
		t.Errorf("replay of generated seed %d: %+v", seed, got.Replay)
	}
}
