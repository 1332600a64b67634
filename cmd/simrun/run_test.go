package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
	"github.com/ckptsim/ckptsim/trace"
)

func TestRunJSONHasTheContractFields(t *testing.T) {
	inTempDir(t)
	r := testApp(t, &scenariotest.Fake{}).invoke("run", "-json", "-scenario", "control-reorder-aligned", "-seed", "3")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := jsonLines(t, r.stdout)
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one object", len(lines))
	}
	got := lines[0]
	for _, key := range []string{"scenario", "seed", "verdict", "expected", "violations", "trace_hash", "events", "virtual_ns", "wall_ns", "checkpoints_completed", "checkpoints_aborted", "faults"} {
		if _, ok := got[key]; !ok {
			t.Errorf("no %q in %v", key, got)
		}
	}
	if got["scenario"] != "control-reorder-aligned" || got["seed"] != 3.0 || got["verdict"] != "fail" || got["expected"] != "fail" {
		t.Errorf("wrong values: %v", got)
	}
	violations, _ := got["violations"].([]any)
	if len(violations) == 0 {
		t.Fatal("no violations")
	}
	for _, key := range []string{"property", "message", "seq", "t", "task", "cp"} {
		if _, ok := violations[0].(map[string]any)[key]; !ok {
			t.Errorf("violation has no %q: %v", key, violations[0])
		}
	}
	if _, err := os.Stat(defaultArtifactDir); !os.IsNotExist(err) {
		t.Errorf("an expected failure without -artifacts wrote artifacts: %v", err)
	}
}

func TestRunTextPrintsTheSeedFirst(t *testing.T) {
	r := testApp(t, &scenariotest.Fake{}).invoke("run", "-scenario", scenarios.StandardName, "-seed", "12")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	if lines[0] != "seed:        12" || !strings.HasPrefix(lines[1], "scenario:    standard") {
		t.Errorf("output does not start with the seed and the scenario:\n%s", r.stdout)
	}
	for _, want := range []string{"swarm:", "faults:", "checks:", "verdict:     pass, as expected", "trace:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Index(r.stdout, "faults:") > strings.Index(r.stdout, "verdict:") {
		t.Error("derived options come after the verdict")
	}
}

func TestRunWritesTheTrace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	writeFile(t, path, "old content\n")
	a := testApp(t, &scenariotest.Fake{})
	r := a.invoke("run", "-scenario", "pipeline-calm", "-seed", "2", "-trace", path, "-json")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header, events, err := trace.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var res scenarios.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if header.Scenario != "pipeline-calm" || header.Seed != 2 || header.Build != "test-build" {
		t.Errorf("header %+v", header)
	}
	if trace.HashEvents(events) != res.TraceHash || uint64(len(events)) != res.Events {
		t.Errorf("trace file does not match the reported hash and count")
	}
}

// TestUnexpectedFailureLeavesAnArtifactAndItsReplay follows a real bug through the tool: the
// run fails where a pass was expected, so it exits 1, writes an artifact into
// ./simrun-artifacts and prints the command that replays it; the replay reproduces the trace
// exactly and still exits 1.
func TestUnexpectedFailureLeavesAnArtifactAndItsReplay(t *testing.T) {
	dir := inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	a := testApp(t, &scenariotest.Fake{})
	r := a.invoke("run", "-scenario", "buggy.json", "-seed", "4")
	if r.code != exitUnexpected {
		t.Fatalf("exit %d, want 1: %s %s", r.code, r.stdout, r.stderr)
	}
	path := filepath.Join(defaultArtifactDir, "buggy-seed4-fail.json")
	if !strings.Contains(r.stdout, "replay:      simrun replay "+path) {
		t.Errorf("no replay command in:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "UNEXPECTED: violated exactly-once") {
		t.Errorf("the verdict line does not say what was unexpected:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, path)); err != nil {
		t.Fatal(err)
	}
	// A second failing run of the same case does not overwrite the first artifact.
	a.invoke("run", "-scenario", "buggy.json", "-seed", "4")
	if _, err := os.Stat(filepath.Join(defaultArtifactDir, "buggy-seed4-fail-2.json")); err != nil {
		t.Errorf("second artifact: %v", err)
	}

	r = a.invoke("replay", path)
	if r.code != exitUnexpected {
		t.Errorf("replay of a bug exited %d, want 1", r.code)
	}
	for _, want := range []string{"trace hash matches", "exactly-once seq=19 t=20000000 task=sum-0 cp=2: fake violation", "recorded:    the same verdict"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestArtifactsFlagKeepsEveryFailure(t *testing.T) {
	dir := t.TempDir()
	a := testApp(t, &scenariotest.Fake{})
	r := a.invoke("run", "-scenario", "control-lost-state", "-seed", "2", "-artifacts", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "control-lost-state-seed2-fail.json")); err != nil {
		t.Errorf("an expected failure with -artifacts left no artifact: %v", err)
	}
	r = a.invoke("run", "-scenario", "pipeline-calm", "-seed", "2", "-artifacts", dir)
	entries, _ := os.ReadDir(dir)
	if r.code != exitOK || len(entries) != 1 {
		t.Errorf("a pass wrote an artifact (exit %d, %d files)", r.code, len(entries))
	}
}

// TestReplayOfANegativeControl is the contract's example: replaying a negative control's
// artifact exits 0 and shows the same violation.
func TestReplayOfANegativeControl(t *testing.T) {
	dir := t.TempDir()
	a := testApp(t, &scenariotest.Fake{})
	if r := a.invoke("run", "-scenario", "control-reorder-aligned", "-seed", "5", "-artifacts", dir); r.code != exitOK {
		t.Fatalf("run exit %d: %s", r.code, r.stderr)
	}
	path := filepath.Join(dir, "control-reorder-aligned-seed5-fail.json")
	r := a.invoke("replay", "-json", path)
	if r.code != exitOK {
		t.Fatalf("replay exit %d: %s", r.code, r.stderr)
	}
	var got struct {
		scenarios.Result
		Replay replayCheck `json:"replay"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Replay.HashMatches || !got.Replay.SameViolations || got.Replay.Nondeterministic || got.Violations[0].Property != checker.PropConsistentCut {
		t.Errorf("replay %+v, violations %v", got.Replay, got.Violations)
	}
	// Flags may follow the argument.
	if r := a.invoke("replay", path, "-json"); r.code != exitOK || len(jsonLines(t, r.stdout)) != 1 {
		t.Errorf("replay ARTIFACT -json: exit %d, %q", r.code, r.stdout)
	}
}

func TestReplayDetectsNondeterminism(t *testing.T) {
	dir := t.TempDir()
	if r := testApp(t, &scenariotest.Fake{Salt: "first"}).invoke("run", "-scenario", "control-reorder-aligned", "-seed", "5", "-artifacts", dir); r.code != exitOK {
		t.Fatalf("run exit %d", r.code)
	}
	path := filepath.Join(dir, "control-reorder-aligned-seed5-fail.json")

	// Same build, different trace: nondeterminism.
	r := testApp(t, &scenariotest.Fake{Salt: "second"}).invoke("replay", path)
	if r.code != exitNondeterminism || !strings.Contains(r.stdout, "NONDETERMINISM") {
		t.Errorf("exit %d, want 4 with NONDETERMINISM:\n%s", r.code, r.stdout)
	}
	// Another build: the code changed, which is no error by itself.
	other := testApp(t, &scenariotest.Fake{Salt: "second"})
	other.build = func() string { return "other-build" }
	r = other.invoke("replay", path)
	if r.code != exitOK || !strings.Contains(r.stdout, "the code changed") {
		t.Errorf("exit %d, want 0 with a note:\n%s", r.code, r.stdout)
	}
}

func TestPanicInARunIsAnUnexpectedFailure(t *testing.T) {
	dir := t.TempDir()
	a := testApp(t, &scenariotest.Fake{Panic: func(*scenarios.Plan) bool { return true }})
	r := a.invoke("run", "-scenario", "pipeline-calm", "-seed", "1", "-artifacts", dir)
	if r.code != exitUnexpected || !strings.Contains(r.stdout, "panic seq=0 t=0: panic: fake invariant broken") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "goroutine ") {
		t.Error("the stack went to stdout instead of the artifact")
	}
}

func TestPlanErrorIsBadInput(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{PlanErr: os.ErrInvalid})
	r := a.invoke("run", "-scenario", "pipeline-calm", "-seed", "1")
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, "simrun: run: pipeline-calm:") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = a.invoke("sweep", "-scenario", "pipeline-calm", "-seeds", "1-3")
	if r.code != exitUsage || !strings.Contains(r.stderr, "seed 1:") {
		t.Errorf("sweep: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRefusedOwnJobIsAFinding: a build that refuses the jobs of its own catalogue and
// generator fails those runs (job-accepted) with artifacts, rather than blame an input
// nobody gave; replaying such an artifact refuses again, the same verdict.
func TestRefusedOwnJobIsAFinding(t *testing.T) {
	dir := t.TempDir()
	a := testApp(t, &scenariotest.Fake{PlanErr: os.ErrInvalid})
	r := a.invoke("sweep", "-seeds", "1-1", "-artifacts", dir)
	if r.code != exitUnexpected || !strings.Contains(r.stdout, "job-accepted seq=0 t=0: this build refuses a job of ckptsim's own: invalid argument") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	art := filepath.Join(dir, "generated-seed1-fail.json")
	r = a.invoke("replay", art)
	if r.code != exitUnexpected || !strings.Contains(r.stdout, "the same verdict and violated properties") {
		t.Errorf("replay: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestExitStatusTellsALimitFromAViolation: a run that hit a limit exits 3, not 1, so that a
// script tells a job too long to judge from a violation; 1 keeps its meaning.
func TestExitStatusTellsALimitFromAViolation(t *testing.T) {
	inTempDir(t)
	limited := &scenariotest.Fake{Limit: func(*scenarios.Plan) bool { return true }}
	if r := testApp(t, limited).invoke("run", "-scenario", "pipeline-calm", "-seed", "5"); r.code != exitLimit {
		t.Errorf("a run that hit a limit: exit %d, want %d", r.code, exitLimit)
	}
	fails := &scenariotest.Fake{Fails: func(*scenarios.Plan) []checker.Property { return []checker.Property{checker.PropExactlyOnce} }}
	if r := testApp(t, fails).invoke("run", "-scenario", "pipeline-calm", "-seed", "5"); r.code != exitUnexpected {
		t.Errorf("a violation: exit %d, want %d", r.code, exitUnexpected)
	}
}
