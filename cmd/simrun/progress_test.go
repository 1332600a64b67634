package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// TestProgressOffATerminal: where stderr is not a terminal (a CI log), a sweep still reports
// its progress, one line every progressEvery of wall time, with runs done of the total,
// unexpected so far, runs per second and the time left; the clock is a fake that advances a
// second each time it is read, so the test does not depend on the machine's speed.
func TestProgressOffATerminal(t *testing.T) {
	inTempDir(t)
	a := testApp(t, &scenariotest.Fake{})
	var now time.Time
	a.clock = func() time.Time { now = now.Add(time.Second); return now }
	r := a.invoke("sweep", "-scenario", "standard", "-seeds", "1-12", "-j", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stderr has %d lines, want one every 5 of the 12 clock seconds:\n%s", len(lines), r.stderr)
	}
	if want := "simrun: 5/12 runs, 0 unexpected, 1.0 runs/s, about 7s left"; lines[0] != want {
		t.Errorf("first progress line %q, want %q", lines[0], want)
	}
	if strings.Contains(r.stdout, "runs/s") {
		t.Error("progress reached standard output")
	}
}

// TestProgressCountsTheUnexpected: the unexpected runs so far are in the line.
func TestProgressCountsTheUnexpected(t *testing.T) {
	a := testApp(t, nil)
	var now time.Time
	a.clock = func() time.Time { now = now.Add(3 * time.Second); return now }
	var stderr strings.Builder
	a.stderr = &stderr
	p := newProgress(a, 4)
	p.update(job{scenario: &scenarios.Scenario{Name: "x"}, seed: 1}, true)
	p.update(job{scenario: &scenarios.Scenario{Name: "x"}, seed: 2}, false)
	if got := stderr.String(); got != "simrun: 2/4 runs, 1 unexpected, 0.3 runs/s, about 6s left\n" {
		t.Errorf("got %q", got)
	}
}
