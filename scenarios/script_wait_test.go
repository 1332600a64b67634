package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// scriptScenario parses a chandy-lamport scenario on a ring of three processes with the
// given checkpoint settings, limits and script.
func scriptScenario(t *testing.T, checkpoint, limits, script string) *Scenario {
	t.Helper()
	s, err := Parse([]byte(`{"name": "x", "mode": "chandy-lamport", "topology": {"kind": "cycle", "processes": 3},
		"workload": {"kind": "tokens", "initial_tokens": 100}, "checkpoint": ` + checkpoint + `, "limits": ` + limits + `,
		"expect": {"verdict": "pass"}, "script": ` + script + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// firstAt returns the time of the first event of kind (for task, if not empty) after index
// from, and its index; -1 if there is none.
func firstAt(events []trace.Event, from int, kind, task string) (int64, int) {
	for i := from + 1; i < len(events); i++ {
		if e := events[i]; e.Kind == kind && (task == "" || e.Task == task) {
			return e.T, i
		}
	}
	return -1, -1
}

// TestScriptedSnapshotsStartAtTheirTime: a scenario's scripted snapshots start in the
// instant the script says (they used to wait about 5ms each for a write of the id counter,
// one at a time, so that three asked for together started 0, 5 and 10ms late and never
// overlapped), a snapshot and a send of the same instant included, and snapshots asked for
// together are in progress together.
func TestScriptedSnapshotsStartAtTheirTime(t *testing.T) {
	s := scriptScenario(t, `{"max_concurrent": 3}`, `{}`, `[
		{"op": "send", "from": "p-0", "to": "p-1", "tokens": 10},
		{"op": "snapshot", "process": "p-0"},
		{"op": "advance", "by": "30ms"},
		{"op": "send", "from": "p-1", "to": "p-2", "tokens": 5},
		{"op": "snapshot", "process": "p-0"},
		{"op": "snapshot", "process": "p-1"},
		{"op": "snapshot", "process": "p-2"},
		{"op": "advance", "by": "30ms"}]`)
	want := []int64{0, int64(30 * time.Millisecond), int64(30 * time.Millisecond), int64(30 * time.Millisecond)}
	for seed := uint64(1); seed <= 5; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		var triggers []int64
		open, most := map[uint64]bool{}, 0
		for _, e := range events {
			switch e.Kind {
			case trace.KindCheckpointTrigger:
				triggers = append(triggers, e.T)
				open[e.CP] = true
				most = max(most, len(open))
			case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
				delete(open, e.CP)
			}
		}
		if len(triggers) < len(want) {
			t.Fatalf("seed %d: %d snapshots started, want at least %d", seed, len(triggers), len(want))
		}
		for i, at := range want {
			if triggers[i] != at {
				t.Errorf("seed %d: scripted snapshot %d started at %v, want %v", seed, i, time.Duration(triggers[i]), time.Duration(at))
			}
		}
		if most < 3 {
			t.Errorf("seed %d: at most %d snapshots in progress at once, want the 3 asked for at 30ms", seed, most)
		}
	}
}

// TestWaitSnapshotsStep: after a wait-snapshots step, the script goes on only once every
// snapshot asked for has completed or aborted, and then at once: the snapshot right after
// the wait starts in the instant the last one before it ends, and the crash a millisecond
// later comes a millisecond after that. A second wait ends with the abort of the snapshot
// the crash interrupts.
func TestWaitSnapshotsStep(t *testing.T) {
	s := scriptScenario(t, `{"max_concurrent": 3}`, `{}`, `[
		{"op": "send", "from": "p-0", "to": "p-1", "tokens": 10},
		{"op": "snapshot", "process": "p-0"},
		{"op": "snapshot", "process": "p-1"},
		{"op": "snapshot", "process": "p-2"},
		{"op": "wait-snapshots"},
		{"op": "send", "from": "p-1", "to": "p-2", "tokens": 5},
		{"op": "snapshot", "process": "p-2"},
		{"op": "advance", "by": "1ms"},
		{"op": "crash", "process": "p-1"},
		{"op": "advance", "by": "10ms"},
		{"op": "restart", "process": "p-1"},
		{"op": "wait-snapshots"},
		{"op": "send", "from": "p-2", "to": "p-0", "tokens": 7},
		{"op": "advance", "by": "5ms"}]`)
	final, _ := referenceBalances(t, s)
	for seed := uint64(1); seed <= 5; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Fatalf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		// The first three snapshots end; the fourth starts when the last of them ends.
		ended := map[uint64]bool{}
		var lastEnd int64
		fourth := -1
		triggers := 0
		for i, e := range events {
			switch e.Kind {
			case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
				if len(ended) < 3 {
					ended[e.CP] = true
					lastEnd = e.T
				}
			case trace.KindCheckpointTrigger:
				triggers++
				if triggers == 4 {
					fourth = i
				}
			}
			if fourth >= 0 {
				break
			}
		}
		if fourth < 0 || len(ended) != 3 {
			t.Fatalf("seed %d: the fourth snapshot started after %d of the first three ended", seed, len(ended))
		}
		if events[fourth].T != lastEnd {
			t.Errorf("seed %d: the snapshot after the wait started at %v, the wait ended at %v", seed, time.Duration(events[fourth].T), time.Duration(lastEnd))
		}
		if crash, _ := firstAt(events, fourth, trace.KindTaskCrash, "p-1"); crash != lastEnd+int64(time.Millisecond) {
			t.Errorf("seed %d: p-1 crashed at %v, want a millisecond after the wait ended at %v", seed, time.Duration(crash), time.Duration(lastEnd))
		}
		if abort, _ := firstAt(events, fourth, trace.KindCheckpointAbort, ""); abort < 0 {
			t.Errorf("seed %d: the crash aborted no snapshot", seed)
		}
		snaps := globalSnapshots(t, events)
		if last := snaps[len(snaps)-1]; !equalBalances(last.balances, final) {
			t.Errorf("seed %d: the last snapshot shows %v, want %v", seed, last.balances, final)
		}
	}
}

func equalBalances(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestWaitSnapshotsGivesUp: a wait for a snapshot that can never start (its job cannot be
// redeployed while a crashed process stays down) gives up when the rest of the script (1ms)
// would no longer fit in the fault phase (300ms): the run stops there with the verdict
// limit, and the reason names the step and the snapshot.
func TestWaitSnapshotsGivesUp(t *testing.T) {
	s := scriptScenario(t, `{}`, `{"fault_phase": "300ms"}`, `[
		{"op": "crash", "process": "p-1"},
		{"op": "advance", "by": "50ms"},
		{"op": "snapshot", "process": "p-0"},
		{"op": "wait-snapshots"},
		{"op": "send", "from": "p-0", "to": "p-1", "tokens": 1},
		{"op": "advance", "by": "1ms"}]`)
	res, events := runScenario(t, s, 1)
	if res.Verdict != VerdictLimit {
		t.Fatalf("verdict %s (%s), want limit", res.Verdict, res.Why)
	}
	for _, want := range []string{"script[3] (wait-snapshots) gave up at 299ms", "[3]"} {
		if !strings.Contains(res.LimitReason, want) {
			t.Errorf("limit reason %q does not say %q", res.LimitReason, want)
		}
	}
	if last := events[len(events)-1]; last.T > int64(299*time.Millisecond) {
		t.Errorf("the run went on to %v, past the wait's bound", time.Duration(last.T))
	}
}

// TestWaitSnapshotsTakesNoSettings: wait-snapshots has no fields of its own.
func TestWaitSnapshotsTakesNoSettings(t *testing.T) {
	_, err := Parse([]byte(`{"name": "x", "mode": "chandy-lamport", "topology": {"kind": "cycle", "processes": 3},
		"workload": {"kind": "tokens"}, "expect": {"verdict": "pass"}, "script": [{"op": "wait-snapshots", "by": "1ms"}]}`))
	if err == nil || !strings.Contains(err.Error(), "scenario.script[0].by") {
		t.Errorf("error %v, want one about scenario.script[0].by", err)
	}
}
