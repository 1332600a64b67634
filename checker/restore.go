package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleRestoreFromCompleted is restore-fidelity's rule for every restore.
const ruleRestoreFromCompleted = "restore.from-completed"

// taskCheckpoint keys per-task, per-checkpoint facts.
type taskCheckpoint struct {
	task string
	cp   uint64
}

// RestoreFidelity checks that recovery restores exactly what was checkpointed. A task.restore
// (or job.failover) with cp n > 0 must name a checkpoint that had completed before it and is
// not a savepoint (savepoints are never used for automatic recovery), and the state digest
// the restore carries (attr state: operator state and source offsets) must equal the digest
// of the same task's snapshot.taken for n (or of the snapshot a snapshot.carried names for
// it). Each violation is pinned to the restore. A trace without a restore from a checkpoint
// leaves the property unexercised; restores whose state cannot be compared (no digest on
// the restore, or none on its snapshot) leave it unknown.
func RestoreFidelity(events []trace.Event) Result {
	return restoreFidelity(newTraceIndex(events))
}

// restoreKinds are the kinds RestoreFidelity reacts to (ledgerKinds among them).
var restoreKinds = ledgerKinds | kindsOf(trace.KindSnapshotTaken, trace.KindSnapshotCarried, trace.KindJobFailover, trace.KindTaskRestore)

func restoreFidelity(ix *traceIndex) Result {
	events := ix.events
	snapshotAt := make(map[taskCheckpoint]int) // index of the latest snapshot.taken
	checkpoints := newLedger()
	var violations []Violation
	var restores, undigested int // restores from a checkpoint, and those without digests
	for i := range ix.only(restoreKinds) {
		e := &events[i]
		checkpoints.observe(e)
		switch e.Kind {
		case trace.KindSnapshotTaken:
			snapshotAt[taskCheckpoint{e.Task, e.CP}] = i
		case trace.KindSnapshotCarried:
			// The checkpoint holds the final snapshot the task took for an earlier one.
			taken, _ := intAttr(e, trace.AttrTaken)
			if index, ok := snapshotAt[taskCheckpoint{e.Task, uint64(taken)}]; ok {
				snapshotAt[taskCheckpoint{e.Task, e.CP}] = index
			}
		case trace.KindJobFailover:
			violations = append(violations, judgeRestoreSource(e, checkpoints)...)
		case trace.KindTaskRestore:
			if e.CP == 0 {
				continue // a fresh start restores nothing
			}
			restores++
			found := judgeRestoreSource(e, checkpoints)
			if from, ok := rescaledFrom(e); ok {
				found = append(found, judgeRescaledSources(e, from, snapshotAt)...)
				violations = append(violations, found...)
				continue
			}
			if len(found) == 0 {
				var ok bool
				found, ok = judgeRestoredState(events, e, snapshotAt)
				if !ok {
					undigested++
				}
			}
			violations = append(violations, found...)
		}
	}
	for k := range violations {
		violations[k].Rule = ruleRestoreFromCompleted
	}
	rounds, loose := rescaledRounds(ix)
	violations = append(violations, keyGroupsRestoredOnce(ix, rounds)...)
	replayed, unreplayed := channelStateReplayedOnce(ix, rounds)
	violations = append(violations, replayed...)
	union, unkept := unionStateEverywhere(ix, rounds)
	violations = append(violations, union...)
	res := newResult(PropRestoreFidelity, violations)
	switch {
	case res.Verdict == VerdictFail:
	case restores == 0:
		return unexercisedResult(PropRestoreFidelity, "no task.restore from a checkpoint: nothing was restored")
	case undigested > 0:
		return unknownResult(PropRestoreFidelity, fmt.Sprintf(
			"%d of %d restores from a checkpoint lack a state digest on the restore or on its snapshot, so their state cannot be compared", undigested, restores))
	case len(rounds) == 0 && loose > 0:
		return unknownResult(PropRestoreFidelity, fmt.Sprintf(
			"%d rescaled restores, but in no whole round after a failover of every task the rescale listed (job.resubmit tasks), so what the rescale redistributed cannot be judged", loose))
	case unkept > 0:
		return unknownResult(PropRestoreFidelity, fmt.Sprintf(
			"%d union states of whole rounds of rescaled restores are held by the restored checkpoint's snapshots, but no restore says which entries it kept (union.<state>), so whether each reached every task cannot be judged", unkept))
	case unreplayed > 0:
		return unknownResult(PropRestoreFidelity, fmt.Sprintf(
			"%d rounds of rescaled restores from checkpoints with channel state lack replayed on some task.restore, or replayed the records of a snapshot that counted none (chan.*, out.*), so whether the records in flight were replayed once cannot be judged", unreplayed))
	}
	return res
}

// judgeRestoreSource checks that a restore or failover names a completed checkpoint that is
// not a savepoint.
func judgeRestoreSource(e *trace.Event, checkpoints *ledger) []Violation {
	switch {
	case e.CP == 0:
		return nil
	case checkpoints.savepoints[e.CP]:
		return []Violation{violationAt(PropRestoreFidelity, e,
			"%s from savepoint %d: savepoints are never used for automatic recovery", e.Kind, e.CP)}
	case !checkpoints.completed[e.CP]:
		return []Violation{violationAt(PropRestoreFidelity, e,
			"%s from checkpoint %d, which had not completed", e.Kind, e.CP)}
	}
	return nil
}

// judgeRescaledSources checks that every snapshot a rescaled restore read was taken for
// the checkpoint it restores; the key groups it took are judged by round
// (keyGroupsRestoredOnce).
func judgeRescaledSources(e *trace.Event, from []string, snapshotAt map[taskCheckpoint]int) []Violation {
	var out []Violation
	for _, old := range from {
		if _, ok := snapshotAt[taskCheckpoint{old, e.CP}]; !ok {
			out = append(out, violationAt(PropRestoreFidelity, e,
				"%s restored from checkpoint %d, rescaled from %s, which took no snapshot for it", e.Task, e.CP, old))
		}
	}
	return out
}

// judgeRestoredState compares the state digest of a restore with the task's snapshot, and
// reports false when either side carries no digest, so there was nothing to compare: an
// engine may trace digests on one side only, and that is missing evidence, not a wrong
// restore.
func judgeRestoredState(events []trace.Event, e *trace.Event, snapshotAt map[taskCheckpoint]int) ([]Violation, bool) {
	restored, restoredOK := e.Attr(trace.AttrState)
	index, snapshotOK := snapshotAt[taskCheckpoint{e.Task, e.CP}]
	if !snapshotOK {
		if !restoredOK {
			return nil, false // nothing to compare: the engine emits no digests
		}
		return []Violation{violationAt(PropRestoreFidelity, e,
			"%s restored from checkpoint %d, but took no snapshot for it", e.Task, e.CP)}, true
	}
	saved, savedOK := events[index].Attr(trace.AttrState)
	switch {
	case !restoredOK || !savedOK:
		return nil, false
	case restored != saved:
		return []Violation{violationAt(PropRestoreFidelity, e,
			"%s restored state %q from checkpoint %d, but its snapshot (seq %d) saved %q",
			e.Task, restored, e.CP, events[index].Seq, saved)}, true
	}
	return nil, true
}
