package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// swarmArtifact writes the artifact of a run of the standard (swarm) scenario on seed 3,
// which the fake passes as expected, into dir, with the artifact passed through change and
// sealed again, and returns its path.
func swarmArtifact(t *testing.T, dir string, change func(*scenarios.Artifact)) string {
	t.Helper()
	s, err := scenarios.Lookup(scenarios.StandardName)
	if err != nil {
		t.Fatal(err)
	}
	p, res, err := scenarios.Execute(&scenariotest.Fake{}, s, 3, scenarios.RunOptions{Build: "test-build"})
	if err != nil {
		t.Fatal(err)
	}
	a := scenarios.NewArtifact(p, res, "test-build")
	if len(a.Schedule.Entries) < 2 {
		t.Fatalf("seed 3 of %s draws %d faults; the test needs two", s.Name, len(a.Schedule.Entries))
	}
	change(a)
	path := filepath.Join(dir, "swarm.json")
	if err := os.WriteFile(path, scenarios.MarshalArtifact(a), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A swarm draws its schedule again on replay. On the same build a different draw is
// nondeterminism (exit 4, though the run passed as expected) even when the trace hash
// matches, and replay must say that, not that the hash differs.
func TestReplayFlagsASwarmThatDrawsADifferentSchedule(t *testing.T) {
	dir := t.TempDir()
	path := swarmArtifact(t, dir, func(a *scenarios.Artifact) {
		a.Schedule.Entries = a.Schedule.Entries[1:] // as if the swarm had drawn one fault fewer
	})
	fake := &scenariotest.Fake{}
	r := testApp(t, fake).invoke("replay", path)
	if r.code != exitNondeterminism {
		t.Fatalf("exit %d, want 4:\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := "NONDETERMINISM: same build test-build and the same trace hash, but the swarm drew a different fault schedule"
	if !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "hash differs") {
		t.Errorf("replay output should say only the schedule differs:\n%s", r.stdout)
	}

	// On another build the same difference only says that the code changed.
	other := testApp(t, fake)
	other.build = func() string { return "other-build" }
	r = other.invoke("replay", path)
	if r.code != exitOK || !strings.Contains(r.stdout, "swarm drew a different fault schedule from the seed than the artifact records; it was recorded by build test-build") {
		t.Errorf("exit %d, want 0 with a note:\n%s", r.code, r.stdout)
	}

	// The artifact as drawn replays exactly.
	exact := swarmArtifact(t, t.TempDir(), func(*scenarios.Artifact) {})
	if r := testApp(t, fake).invoke("replay", exact); r.code != exitOK || !strings.Contains(r.stdout, "the run reproduced exactly") {
		t.Errorf("the unchanged artifact: exit %d\n%s", r.code, r.stdout)
	}
}
