package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Late faults and long runs. A fault triggered early in a run meets a store of one or two
// checkpoints with one-digit ids, so a recovery that orders ids by their text, or takes the
// last key of a map, picks right by luck. A long run with short intervals reaches ids 10 and
// 100 inside its fault phase, and a fault after the k-th completion, k anywhere from 1 to
// 300, meets the store at every size.

// maxLateCompletions is the highest completion count a late fault waits for.
const maxLateCompletions = 300

// digitEdges are completion counts and ids around the points where an id gains a digit.
var digitEdges = []int{9, 10, 11, 99, 100, 101}

// lateRun draws, for one draw in five, a long run: short intervals, and a fault phase long
// enough for lateCompletions checkpoints to complete in it (twice the time they need at
// the drawn pace, which faults slow down). It runs before anything else is drawn against
// the interval and the phases, and returns the completion count (0: an ordinary run).
func (g *generator) lateRun(s *scenarios.Scenario) int {
	if g.r.IntN(5) != 0 {
		return 0
	}
	// Each power of two of the range as likely as any other, as spread draws durations:
	// counts in the hundreds cost the most to reach, and are drawn no less than the rest.
	k := int(g.spread(1, maxLateCompletions))
	if g.r.IntN(3) == 0 {
		k = pick(g, digitEdges)
	}
	// Below 25ms from a hundred completions up, so that 300 take at most 15s.
	s.Checkpoint.Interval = scenarios.Millis(g.between(20, 40))
	if k > 100 {
		s.Checkpoint.Interval = scenarios.Millis(g.between(20, 25))
	}
	// A cycle is the interval and at most half of it in pause (see checkpoint).
	need := scenarios.Duration(k) * 2 * (s.Checkpoint.Interval * 3 / 2)
	s.Limits.FaultPhase = max(s.Limits.FaultPhase, roundUp(need+scenarios.Seconds(1), scenarios.Millis(100)))
	return k
}

// roundUp rounds d up to a multiple of unit.
func roundUp(d, unit scenarios.Duration) scenarios.Duration { return (d + unit - 1) / unit * unit }

// lateFaults draws one to three faults that fire once k checkpoints completed (or once the
// checkpoint with an id at a digit edge completes): mostly coordinator crashes, whose
// recovery reads the store; task crashes, whose restore reads the state; a read failure or
// a corrupted write on one copy of the completed-checkpoint store, so that recovery must
// take the other; and savepoints.
func (g *generator) lateFaults(s *scenarios.Scenario, k int) []faults.Entry {
	var out []faults.Entry
	for range g.between(1, 3) {
		m := faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}
		trigger := faults.Nth(k+int(g.between(0, 5)), m)
		if g.r.IntN(3) == 0 {
			m.CP = uint64(pick(g, digitEdges))
			trigger = faults.Nth(1, m)
		}
		window := scenarios.Millis(g.between(50, 500)).Nanos()
		var f faults.Fault
		switch g.r.IntN(8) {
		case 0, 1, 2, 3:
			f = faults.Fault{Kind: faults.CrashCoordinator}
		case 4:
			f = faults.Fault{Kind: faults.CrashTask, Task: pick(g, s.Graph().Tasks())}
		case 5:
			f = faults.Fault{Kind: faults.StorageReadFail, Store: scenarios.StoreMetadata, Key: pick(g, metadataCopies),
				Probability: 1, Window: faults.Duration(window)}
		case 6:
			f = faults.Fault{Kind: faults.StorageCorrupt, Store: scenarios.StoreMetadata, Key: pick(g, metadataCopies),
				Probability: 1, Window: faults.Duration(window)}
		default:
			f = faults.Fault{Kind: faults.TriggerSavepoint}
		}
		out = append(out, faults.Entry{Trigger: trigger, Fault: f})
	}
	// A crash comes right after the read failure or corruption, so that recovery meets it.
	if last := out[len(out)-1]; last.Fault.Kind == faults.StorageReadFail || last.Fault.Kind == faults.StorageCorrupt {
		t := last.Trigger
		if t.CP != 0 {
			t.CP++
		} else {
			t.Nth++
		}
		out = append(out, faults.Entry{Trigger: t, Fault: faults.Fault{Kind: faults.CrashCoordinator}})
	}
	return out
}

// metadataCopies are the keys of the metadata store, as storage faults name them: each
// copy of the completed-checkpoint store and of the id counter, and each value whole.
var metadataCopies = []string{"completed", "completed.0", "completed.1", "counter", "counter.0", "counter.1"}

// stateCheckpoints are key prefixes of the state store as storage faults name them: a
// checkpoint id's first digits, which pick checkpoints 1, 10 to 19 and 100 to 199, and so
// on, on either side of a digit edge.
var stateCheckpoints = []string{"1", "9", "10", "99", "100"}

// storeKey draws, half the time, a key prefix for a storage fault on store ("" for every
// store): one copy or one value of the metadata store, or some checkpoints' state.
func (g *generator) storeKey(store string) string {
	if g.r.IntN(2) == 0 {
		return ""
	}
	switch store {
	case scenarios.StoreMetadata:
		return pick(g, metadataCopies)
	case scenarios.StoreState:
		return pick(g, stateCheckpoints)
	}
	if g.r.IntN(2) == 0 {
		return scenarios.StoreKeyPrefix(scenarios.StoreMetadata) + pick(g, metadataCopies)
	}
	return scenarios.StoreKeyPrefix(scenarios.StoreState) + pick(g, stateCheckpoints)
}
