package checker

import (
	"github.com/ckptsim/ckptsim/trace"
)

// pendingReleaseKinds are the kinds releasedWhilePending reacts to.
var pendingReleaseKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort,
	trace.KindCoordinatorCrash, trace.KindJobFailover, trace.KindSnapshotTaken, trace.KindSnapshotDecline,
	trace.KindNotifyAbort, trace.KindNotifyComplete, trace.KindSnapshotAck, trace.KindSnapshotCarried,
	trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish, trace.KindStateRelease)

// releasedWhilePending judges the half of state.kept that concerns checkpoints still
// pending: a task releases the state of its snapshot for checkpoint or savepoint n, while
// n is pending, only once it gave n up (it declined n, or was told n aborted) or, for a
// checkpoint, was told a newer one completed, which subsumes n. A savepoint is never
// subsumed: a task that drops its upload on a newer completion leaves the savepoint to
// expire. A snapshot n does not need, since n carries the task's final snapshot instead
// (snapshot.carried, or a final snapshot acknowledged for an older checkpoint, whose acks
// may come in any order), may go at any time. What an ended incarnation took, and what a
// crashed coordinator had pending, is not judged.
func releasedWhilePending(ix *traceIndex) []Violation {
	savepoint := map[uint64]bool{}          // pending checkpoints and savepoints -> whether a savepoint
	type taken struct{ mayGo bool }         // mayGo: the task gave it up, or its checkpoint does not need it
	tasks := map[string]map[uint64]*taken{} // per task incarnation, the snapshots it took
	newest := map[string]uint64{}           // per task incarnation, the newest completion it was told of
	final := map[string]uint64{}            // per task incarnation, the checkpoint of its final snapshot
	var violations []Violation
	for i := range ix.only(pendingReleaseKinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			savepoint[e.CP] = isSavepointTrigger(e)
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			delete(savepoint, e.CP)
		case trace.KindCoordinatorCrash, trace.KindJobFailover:
			clear(savepoint)
			if e.Kind == trace.KindJobFailover {
				clear(tasks)
				clear(newest)
				clear(final)
			}
		case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
			delete(tasks, e.Task)
			delete(newest, e.Task)
			delete(final, e.Task)
		case trace.KindSnapshotTaken:
			if tasks[e.Task] == nil {
				tasks[e.Task] = map[uint64]*taken{}
			}
			tasks[e.Task][e.CP] = &taken{}
		case trace.KindSnapshotDecline, trace.KindNotifyAbort, trace.KindSnapshotCarried:
			if s := tasks[e.Task][e.CP]; s != nil {
				s.mayGo = true
			}
		case trace.KindNotifyComplete:
			newest[e.Task] = max(newest[e.Task], e.CP)
		case trace.KindSnapshotAck:
			if v, _ := e.Attr(trace.AttrFinal); v == "true" && (final[e.Task] == 0 || e.CP < final[e.Task]) {
				final[e.Task] = e.CP
			}
		case trace.KindStateRelease:
			isSavepoint, pending := savepoint[e.CP]
			s := tasks[e.Task][e.CP]
			carried := final[e.Task] != 0 && final[e.Task] < e.CP
			if !pending || s == nil || s.mayGo || carried || (!isSavepoint && newest[e.Task] > e.CP) {
				continue
			}
			kind := "checkpoint"
			if isSavepoint {
				kind = "savepoint"
			}
			violations = append(violations, forRule(ruleStateKept, violationAt(PropStateRelease, e,
				"%s's snapshot for %s %d was released while %d was pending, and %s had neither declined it nor been told it aborted",
				e.Task, kind, e.CP, e.CP, e.Task)))
		}
	}
	return violations
}
