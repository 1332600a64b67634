package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// A negative control that passes is a failure of its checker: with -artifacts it leaves an
// artifact like any other unexpected result, though its verdict is pass.
func TestArtifactsFlagKeepsAnUnexpectedPass(t *testing.T) {
	dir := t.TempDir()
	fixed := &scenariotest.Fake{Fails: func(*scenarios.Plan) []checker.Property { return nil }}
	r := testApp(t, fixed).invoke("run", "-scenario", "control-lost-state", "-seed", "2", "-artifacts", dir)
	if r.code != exitUnexpected {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stdout)
	}
	path := filepath.Join(dir, "control-lost-state-seed2-pass.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no artifact of the unexpected pass: %v", err)
	}
	if !strings.Contains(r.stdout, "replay:      simrun replay "+path) {
		t.Errorf("no replay command:\n%s", r.stdout)
	}
}

// -artifacts is checked before anything runs but created only when an artifact is saved, so
// input found bad later leaves no directory behind.
func TestArtifactsDirectoryIsNotCreatedForBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "arts")
	a := testApp(t, &scenariotest.Fake{PlanErr: os.ErrInvalid})
	for _, args := range [][]string{
		{"run", "-scenario", "pipeline-calm", "-seed", "1", "-artifacts", dir},
		{"sweep", "-scenario", "pipeline-calm", "-seeds", "1-2", "-artifacts", dir},
	} {
		if r := a.invoke(args...); r.code != exitUsage {
			t.Fatalf("%v: exit %d, want 2", args, r.code)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("%v: bad input created %s (stat: %v)", args, dir, err)
		}
	}
	// A passing run has nothing to save either; a failing one creates it.
	a = testApp(t, &scenariotest.Fake{})
	a.invoke("run", "-scenario", "pipeline-calm", "-seed", "1", "-artifacts", dir)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a passing run created %s (stat: %v)", dir, err)
	}
	a.invoke("run", "-scenario", "control-lost-state", "-seed", "1", "-artifacts", dir)
	if _, err := os.Stat(filepath.Join(dir, "control-lost-state-seed1-fail.json")); err != nil {
		t.Fatalf("the failing run's artifact: %v", err)
	}
}

// shrink checks that it can write -o before it runs anything: a shrink can take hundreds of
// runs, and finding out afterwards wastes them.
func TestShrinkChecksItsOutputFirst(t *testing.T) {
	dir := t.TempDir()
	path := goodArtifact(t, dir)
	fake := &scenariotest.Fake{}
	r := testApp(t, fake).invoke("shrink", path, "-o", filepath.Join(dir, "missing", "x.json"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "no directory") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if fake.Runs() != 0 {
		t.Errorf("shrink ran %d times before finding -o unusable", fake.Runs())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the check left files behind: %v", entries)
	}
}
