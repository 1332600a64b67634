package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// neverFires is a small pipeline whose second fault waits for the 500th snapshot.ack of
// map1-0, which 150 records and a 3s fault phase never produce, and whose first fires at
// 500ms.
const neverFires = `{
  "name": "never-fires",
  "mode": "aligned",
  "topology": {"kind": "pipeline", "parallelism": 2, "stages": 2},
  "workload": {"kind": "pass-through", "records": 150, "record_interval": "10ms"},
  "sink": {"kind": "idempotent"},
  "faults": [
    {"trigger": {"type": "at", "at_ns": 500000000}, "fault": {"kind": "crash.task", "task": "map1-1"}},
    {"trigger": {"type": "nth", "nth": 500, "kind": "snapshot.ack", "task": "map1-0"}, "fault": {"kind": "crash.task", "task": "map1-0"}}
  ],
  "expect": {"verdict": "pass"EXTRA}
}`

func parseNeverFires(t *testing.T, extra string) *Scenario {
	t.Helper()
	s, err := Parse([]byte(strings.Replace(neverFires, "EXTRA", extra, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A run lists the fault whose nth event never came in Result.FaultsUnfired, and the fault
// that fired is not there; without every_fault_fires the pass stays expected.
func TestResultListsTheFaultsThatNeverFired(t *testing.T) {
	_, res, err := Execute(NewSimulation(), parseNeverFires(t, ""), 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != VerdictPass || res.Unexpected {
		t.Fatalf("verdict %s, unexpected %v (%s); want an expected pass", res.Verdict, res.Unexpected, res.Why)
	}
	if !slices.Equal(res.FaultsUnfired, []int{1}) || res.FaultsInjected != 1 {
		t.Errorf("FaultsUnfired = %v with %d injected, want [1] with 1", res.FaultsUnfired, res.FaultsInjected)
	}
	want := []string{"faults[1] crash.task task=map1-0 when nth=500 on=snapshot.ack task=map1-0"}
	if got := res.UnfiredFaults(); !slices.Equal(got, want) {
		t.Errorf("UnfiredFaults() = %q, want %q", got, want)
	}
}

// With expect.every_fault_fires, the same run is unexpected, and says which fault never
// fired; its verdict is still the checkers' pass.
func TestEveryFaultFiresMakesAnUnfiredRunUnexpected(t *testing.T) {
	_, res, err := Execute(NewSimulation(), parseNeverFires(t, `, "every_fault_fires": true`), 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "never fired (expect.every_fault_fires): faults[1] crash.task task=map1-0 when nth=500"
	if res.Verdict != VerdictPass || !res.Unexpected || !strings.Contains(res.Why, want) {
		t.Errorf("verdict %s, unexpected %v, why %q; want an unexpected pass saying %q", res.Verdict, res.Unexpected, res.Why, want)
	}
}

// Judge adds the unfired faults to another surprise rather than hide either, and leaves a
// run that hit a limit to its limit.
func TestJudgeOfUnfiredFaults(t *testing.T) {
	s := parseNeverFires(t, `, "every_fault_fires": true`)
	require := s.Expect
	fails := &Result{Verdict: VerdictFail, Faults: s.Faults, FaultsUnfired: []int{0}}
	fails.Violations = []checker.Violation{{Property: checker.PropExactlyOnce}}
	fails.Judge(require)
	if !fails.Unexpected || !strings.HasPrefix(fails.Why, "violated exactly-once; and never fired") {
		t.Errorf("fail: unexpected %v, why %q", fails.Unexpected, fails.Why)
	}
	limit := &Result{Verdict: VerdictLimit, LimitReason: "max_events", Faults: s.Faults, FaultsUnfired: []int{1}}
	limit.Judge(require)
	if limit.Why != "hit a limit: max_events" {
		t.Errorf("limit: why %q", limit.Why)
	}
	fired := &Result{Verdict: VerdictPass, Faults: s.Faults}
	fired.Judge(require)
	if fired.Unexpected {
		t.Errorf("every fault fired, yet unexpected: %s", fired.Why)
	}
}

// Every built-in with a fixed fault list requires its faults to fire, except the ones
// faultsMayMiss names, which must exist and have faults (so the list cannot rot); no swarm
// built-in requires it.
func TestBuiltinsRequireTheirFaultsToFire(t *testing.T) {
	excused := 0
	for _, s := range Builtins() {
		_, mayMiss := faultsMayMiss[s.Name]
		if mayMiss {
			excused++
		}
		want := len(s.Faults) > 0 && !mayMiss
		if s.Expect.EveryFaultFires != want {
			t.Errorf("%s (%d faults, swarm %v, excused %v): every_fault_fires %v, want %v",
				s.Name, len(s.Faults), s.Swarm != nil, mayMiss, s.Expect.EveryFaultFires, want)
		}
		if mayMiss && len(s.Faults) == 0 {
			t.Errorf("%s is excused from firing its faults but has none", s.Name)
		}
	}
	if excused != len(faultsMayMiss) {
		t.Errorf("faultsMayMiss names %d scenarios, %d of them built-ins", len(faultsMayMiss), excused)
	}
}
