package generate

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// TestDrawnShrinksByStructure: a property that fails on every scenario with a coordinator
// crash shrinks, under rapid, to a scenario of one coordinator crash, no swarm, and at most
// the crash after a checkpoint the generator adds to a schedule half the time (its first
// choice): rapid minimises the draw's choices, not a seed.
func TestDrawnShrinksByStructure(t *testing.T) {
	var last *scenarios.Scenario
	failing := func(s *scenarios.Scenario) bool {
		return slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == faults.CrashCoordinator })
	}
	rec := &recordingTB{TB: t}
	rapid.Check(rec, func(t *rapid.T) {
		s := Drawn().Draw(t, "scenario")
		if failing(s) {
			last = s
			t.Fatalf("a coordinator crash")
		}
	})
	if !rec.failed || last == nil {
		t.Fatal("rapid found no scenario with a coordinator crash")
	}
	crashes := 0
	for _, e := range last.Faults {
		if e.Fault.Kind == faults.CrashCoordinator {
			crashes++
		}
	}
	if crashes != 1 || len(last.Faults) > 2 || last.Swarm != nil {
		t.Errorf("shrunk to %d faults, %d coordinator crashes (swarm %v), want one crash:\n%s", len(last.Faults), crashes, last.Swarm != nil, scenarios.Marshal(last))
	}
}

// TestDrawnScenariosAreValidAndVaried: rapid's draws give complete scenarios across modes.
func TestDrawnScenariosAreValidAndVaried(t *testing.T) {
	modes := map[string]bool{}
	rapid.Check(t, func(t *rapid.T) {
		s := Drawn().Draw(t, "scenario")
		if err := s.Clone().Complete("drawn"); err != nil {
			t.Fatalf("drawn scenario invalid: %v", err)
		}
		modes[s.Mode] = true
	})
	if len(modes) < 3 {
		t.Errorf("rapid's draws reached modes %v only", modes)
	}
}

// recordingTB passes rapid's logs to the test but keeps its failure, so a test can look at
// what rapid shrank to instead of failing.
type recordingTB struct {
	rapid.TB
	failed bool
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = true
	r.Logf("%s", fmt.Sprintf(format, args...))
}
func (r *recordingTB) Fatal(args ...any) { r.failed = true; r.Log(args...) }
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failed = true
	r.Logf("%s", fmt.Sprintf(format, args...))
}
func (r *recordingTB) Error(args ...any) { r.failed = true; r.Log(args...) }
func (r *recordingTB) FailNow()          { r.failed = true }
func (r *recordingTB) Fail()             { r.failed = true }
func (r *recordingTB) Failed() bool      { return r.failed }
