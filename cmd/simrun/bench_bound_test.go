package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// TestBenchRefusesTooManySeeds: -seeds beyond maxBenchSeeds is bad input, refused in one
// line before anything runs.
func TestBenchRefusesTooManySeeds(t *testing.T) {
	fake := &scenariotest.Fake{}
	r := testApp(t, fake).invoke("bench", "-seeds", "10001")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "bench: -seeds 10001 is more than 10000") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if fake.Runs() != 0 {
		t.Errorf("%d runs before the refusal", fake.Runs())
	}
}

// TestBenchSweepReportsProgress: a timed sweep of bench reports its progress on stderr as a
// sweep does, a line every progressEvery off a terminal (the clock is a fake that advances
// a second each time it is read), and never on stdout.
func TestBenchSweepReportsProgress(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	var now time.Time
	a.clock = func() time.Time { now = now.Add(time.Second); return now }
	var stdout, stderr strings.Builder
	a.stdout, a.stderr = &stdout, &stderr
	standard, err := scenarios.Lookup(scenarios.StandardName)
	if err != nil {
		t.Fatal(err)
	}
	spec := sweepSpec{scenarios: []*scenarios.Scenario{standard}, seeds: &scenarios.SeedRange{First: 1, Last: 12}}
	if _, err := a.benchSweep(spec, 1); err != nil {
		t.Fatal(err)
	}
	if want := "simrun: 5/12 runs, 0 unexpected"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q, want it to start %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q", stdout.String())
	}
}
