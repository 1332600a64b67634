package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
)

// TestCatalogueCoverage checks the promises the catalogue makes (issue 7): every mode,
// topology shape, workload, sink and fault style, a wide job and a cycle, an expected verdict
// on each, and negative controls that make at least six properties fail.
func TestCatalogueCoverage(t *testing.T) {
	all := Builtins()
	if len(all) < 12 {
		t.Errorf("%d built-in scenarios, want at least 12", len(all))
	}
	seen := map[string]bool{}
	mark := func(what string) { seen[what] = true }
	names := map[string]bool{}
	for _, s := range all {
		if names[s.Name] {
			t.Errorf("two built-ins are called %s", s.Name)
		}
		names[s.Name] = true
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
		if s.Seeds == nil || s.Seeds.Count() == 0 {
			t.Errorf("%s has no default seeds", s.Name)
		}
		mark("mode " + s.Mode)
		mark("topology " + s.Topology.Kind)
		mark("workload " + s.Workload.Kind)
		if s.Sink != nil {
			mark("sink " + s.Sink.Kind)
		}
		g := s.Graph()
		for _, n := range g.Nodes {
			if n.Parallelism >= 32 {
				mark("parallelism >= 32")
			}
		}
		if g.HasCycle() {
			mark("cycle")
		}
		switch {
		case s.Swarm != nil:
			mark("faults swarm")
		case len(s.Faults) == 0:
			mark("faults none")
		}
		for _, e := range s.Faults {
			if e.Trigger.Type == faults.OnNth {
				mark("faults event-targeted")
			}
		}
	}
	var want []string
	for _, m := range Modes {
		want = append(want, "mode "+m)
	}
	for _, k := range TopologyKinds {
		want = append(want, "topology "+k)
	}
	for _, w := range WorkloadKinds {
		want = append(want, "workload "+w)
	}
	for _, k := range SinkKinds {
		want = append(want, "sink "+k)
	}
	want = append(want, "parallelism >= 32", "cycle", "faults swarm", "faults none", "faults event-targeted")
	for _, w := range want {
		if !seen[w] {
			t.Errorf("no built-in covers %s", w)
		}
	}
}

func TestNegativeControls(t *testing.T) {
	failing := map[checker.Property]bool{}
	var controls []*Scenario
	for _, s := range Builtins() {
		if s.IsNegativeControl() {
			controls = append(controls, s)
			failing[s.Expect.Property] = true
			if !slices.Contains(PropertiesToCheck(s), s.Expect.Property) {
				t.Errorf("%s expects %s to fail but does not check it", s.Name, s.Expect.Property)
			}
		}
	}
	if len(failing) < 6 {
		t.Errorf("negative controls make %d properties fail, want at least 6: %v", len(failing), failing)
	}
	// The four controls the issue names, by what they do.
	has := func(what string, ok func(*Scenario) bool) {
		if !slices.ContainsFunc(controls, ok) {
			t.Errorf("no negative control with %s", what)
		}
	}
	has("an at-least-once sink under crashes", func(s *Scenario) bool {
		return s.Sink != nil && s.Sink.Kind == SinkAtLeastOnce && hasFault(s, faults.CrashTask)
	})
	has("a reorder fault under aligned mode", func(s *Scenario) bool {
		return s.Mode == ModeAligned && hasFault(s, faults.DataReorder)
	})
	has("a transaction timeout that is too short", func(s *Scenario) bool {
		return s.Sink != nil && s.Sink.TransactionTimeout > 0
	})
	has("a lost-after-ack storage fault", func(s *Scenario) bool { return hasFault(s, faults.StorageLost) })
}

func hasFault(s *Scenario, kind faults.Kind) bool {
	return slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == kind })
}

func TestBuiltinsReturnsFreshCopies(t *testing.T) {
	first := Builtins()
	first[0].Workload.Records = 1
	first[0].Faults = append(first[0].Faults, faults.Entry{})
	if again := Builtins(); again[0].Workload.Records == 1 || len(again[0].Faults) != len(Builtins()[0].Faults) {
		t.Error("changing a returned scenario changed the catalogue")
	}
}

func TestLookup(t *testing.T) {
	s, err := Lookup(StandardName)
	if err != nil || s.Name != StandardName {
		t.Fatalf("Lookup(%q) = %v, %v", StandardName, s, err)
	}
	_, err = Lookup("no-such-scenario")
	if err == nil || !strings.Contains(err.Error(), `unknown scenario "no-such-scenario"`) || !strings.Contains(err.Error(), StandardName) {
		t.Errorf("Lookup of an unknown name: %v", err)
	}
}

func TestPropertiesToCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []checker.Property
	}{
		{StandardName, []checker.Property{checker.PropWellFormed, checker.PropContract, checker.PropExactlyOnce, checker.PropAtLeastOnce, checker.PropConsistentCut, checker.PropRestoreFidelity, checker.PropListenerContract, checker.PropCheckpointOutcome, checker.PropFailureAccounting, checker.PropNoTriggerInFailover, checker.PropNoPendingAcrossFailover, checker.PropNoTriggerAfterFinish, checker.PropTriggerPacing, checker.PropCheckpointTiming, checker.PropRecoveryBound, checker.PropAbortReach, checker.PropBarrierHandling, checker.PropFailureCause, checker.PropFailoverCause, checker.PropStateRelease, checker.PropDurableVisible, checker.PropSinkVisibility, checker.PropLiveness}},
		{"at-least-once-fan-in", []checker.Property{checker.PropWellFormed, checker.PropContract, checker.PropAtLeastOnce, checker.PropRestoreFidelity, checker.PropListenerContract, checker.PropCheckpointOutcome, checker.PropFailureAccounting, checker.PropNoTriggerInFailover, checker.PropNoPendingAcrossFailover, checker.PropNoTriggerAfterFinish, checker.PropTriggerPacing, checker.PropCheckpointTiming, checker.PropRecoveryBound, checker.PropAbortReach, checker.PropBarrierHandling, checker.PropFailureCause, checker.PropFailoverCause, checker.PropStateRelease, checker.PropDurableVisible, checker.PropLiveness}},
		{"chandy-lamport-ring", []checker.Property{checker.PropWellFormed, checker.PropContract, checker.PropConsistentCut, checker.PropRestoreFidelity, checker.PropCheckpointOutcome, checker.PropFailureCause, checker.PropFailoverCause, checker.PropLiveness}},
		// Exactly-once is not what an at-least-once sink promises, but the control asks for it.
		{"control-at-least-once-sink", []checker.Property{checker.PropWellFormed, checker.PropContract, checker.PropExactlyOnce, checker.PropAtLeastOnce, checker.PropConsistentCut, checker.PropRestoreFidelity, checker.PropListenerContract, checker.PropCheckpointOutcome, checker.PropFailureAccounting, checker.PropNoTriggerInFailover, checker.PropNoPendingAcrossFailover, checker.PropNoTriggerAfterFinish, checker.PropTriggerPacing, checker.PropCheckpointTiming, checker.PropRecoveryBound, checker.PropAbortReach, checker.PropBarrierHandling, checker.PropFailureCause, checker.PropFailoverCause, checker.PropStateRelease, checker.PropDurableVisible, checker.PropLiveness}},
	} {
		s, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := PropertiesToCheck(s); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
