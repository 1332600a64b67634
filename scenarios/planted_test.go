package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
)

// catchers is, per planted bug, the property that must catch it: the one whose contract the
// bug breaks first. It repeats plantedBugCatchers on purpose, so that a change there must
// be made here too.
var catchers = map[string]checker.Property{
	string(engine.BugSourceOffsetAhead):  checker.PropExactlyOnce,
	string(engine.BugForgetChannelState): checker.PropConsistentCut,
	string(engine.BugCommitOnAbort):      checker.PropDurableVisible,
	string(engine.BugSkipStateRestore):   checker.PropRestoreFidelity,
}

// TestPlantedBugsAreCaught runs every planted bug on the first seeds of its hunting ground:
// its own checker must catch it, and the same seed without the bug must pass, so that the
// catch is the bug's doing.
func TestPlantedBugsAreCaught(t *testing.T) {
	sim := NewSimulation()
	planted := PlantedBugScenarios()
	if len(planted) != len(engine.PlantedBugs()) {
		t.Fatalf("%d planted-bug scenarios for %d planted bugs", len(planted), len(engine.PlantedBugs()))
	}
	for _, s := range planted {
		t.Run(s.PlantedBug, func(t *testing.T) {
			hunt := NewBugHunt(s)
			for seed := uint64(1); seed <= 3 && hunt.Caught == 0; seed++ {
				_, res, err := Execute(sim, s, seed, RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				hunt.Add(res)
			}
			want := catchers[s.PlantedBug]
			if hunt.Caught == 0 || hunt.Properties[want] == 0 {
				t.Fatalf("%s: %+v, want a run that violates %s", s.Name, hunt, want)
			}
			base, err := Lookup(hunt.Scenario)
			if err != nil {
				t.Fatal(err)
			}
			if _, res, err := Execute(sim, base, hunt.FirstSeed, RunOptions{}); err != nil || res.Verdict != VerdictPass {
				t.Errorf("%s on seed %d without the bug: %v %v", base.Name, hunt.FirstSeed, res, err)
			}
		})
	}
}

func TestBugHuntTallies(t *testing.T) {
	h := NewBugHunt(PlantedBugScenarios()[0])
	h.Add(&Result{Seed: 4, Verdict: VerdictPass})
	h.Add(&Result{Seed: 5, Verdict: VerdictLimit})
	h.Add(&Result{Seed: 6, Verdict: VerdictFail, Violations: []checker.Violation{{Property: "b"}, {Property: "a"}, {Property: "b"}}})
	h.Add(&Result{Seed: 7, Verdict: VerdictFail, Violations: []checker.Violation{{Property: "b"}}})
	if h.Seeds != 4 || h.Caught != 2 || h.FirstSeed != 6 || h.Properties["a"] != 1 || h.Properties["b"] != 2 {
		t.Errorf("tally %+v: want 2 of 4 caught, first on seed 6, b in 2 runs and a in 1", h)
	}
	if got := fmt.Sprint(h.PropertyNames()); got != "[b a]" {
		t.Errorf("PropertyNames = %q, want most runs first: \"b a\"", got)
	}
}

func TestPlantedBugMustHaveItsCodePath(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"unknown", withField("planted_bug", `"off-by-two"`), `scenario.planted_bug: "off-by-two" is not one of source-offset-ahead, forget-channel-state`},
		{"channel state when aligned", withField("planted_bug", `"forget-channel-state"`), "scenario.planted_bug: forget-channel-state needs mode unaligned or aligned-with-timeout"},
		{"commit without two-phase commit", withFields("planted_bug", `"commit-on-abort"`, "sink", `{"kind": "idempotent"}`), "scenario.planted_bug: commit-on-abort needs a two-phase-commit sink"},
		{"restore without state", withFields("planted_bug", `"skip-state-restore"`, "workload", `{"kind": "pass-through"}`), "scenario.planted_bug: skip-state-restore needs workload keyed-sum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	ring, err := Lookup("chandy-lamport-ring")
	if err != nil {
		t.Fatal(err)
	}
	ring = ring.Clone()
	ring.PlantedBug = string(engine.BugSourceOffsetAhead)
	if err := ring.Validate("scenario"); err == nil || !strings.Contains(err.Error(), "scenario.planted_bug: not used by mode chandy-lamport") {
		t.Errorf("a chandy-lamport scenario with a planted bug: %v", err)
	}
	s, err := Parse([]byte(withFields("mode", `"unaligned"`, "planted_bug", `"forget-channel-state"`)))
	if err != nil || s.PlantedBug != string(engine.BugForgetChannelState) {
		t.Errorf("an unaligned job with forget-channel-state: %v, %v", s, err)
	}
}

// TestPlantExpectsWhatTheJobPromises: lost records break exactly-once where the job
// promises it, and at-least-once where it promises only that (checking exactly-once there
// would fail without any bug).
func TestPlantExpectsWhatTheJobPromises(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		want     checker.Property
	}{
		{StandardName, checker.PropExactlyOnce},
		{"at-least-once-fan-in", checker.PropAtLeastOnce},
	} {
		s, err := Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Plant(s, string(engine.BugSourceOffsetAhead))
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != tc.scenario+".source-offset-ahead" || p.Expect != (Expect{Verdict: VerdictFail, Property: tc.want}) {
			t.Errorf("%s: planted as %s expecting %+v, want %s to fail", tc.scenario, p.Name, p.Expect, tc.want)
		}
	}
}
