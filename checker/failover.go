package checker

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// A failover runs from job.failover until every task of the job has restored again: the job
// tasks are those the trace saw restore before it (each incarnation of a task starts with
// task.restore). Two rules hold the coordinator to it, as Flink's does (FLINK-13969 and
// FLINK-13256 are about breaking them).

// NoTriggerInFailover checks that no checkpoint is triggered while the job fails over: a
// checkpoint.trigger after a job.failover and before every job task traced task.restore again
// is a violation, since the tasks it asks for a snapshot are being replaced. A
// coordinator.crash ends the failover early (its successor fails the job over anew), and a
// trace that ends mid-failover leaves it open. A task that acts again after the failover
// with no task.restore traced restored unseen, so a trigger before it is not judged
// (unknown). Without a failover the verdict is unexercised;
// with failovers but no task ever seen to restore (nothing to tell when one ends), unknown;
// without a checkpoint.trigger in the trace, unknown or unexercised (withoutTriggers).
func NoTriggerInFailover(events []trace.Event) Result {
	return noTriggerInFailover(newTraceIndex(events))
}

// failoverKinds are the kinds the two failover properties react to.
var failoverKinds = kindsOf(trace.KindJobFailover, trace.KindTaskRestore, trace.KindCoordinatorCrash,
	trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort, trace.KindJobResubmit)

func noTriggerInFailover(ix *traceIndex) Result {
	events := ix.events
	var early []earlyTrigger
	tasks := map[string]bool{}   // job tasks: seen to restore
	var rescaled map[string]bool // the tasks of the last rescale so far, nil before one
	waiting := map[string]bool{} // tasks still to restore in the current failover
	var failover *trace.Event
	failoverAt := 0 // its index
	failovers, judged := 0, 0
	for i := range ix.only(failoverKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindJobFailover:
			failovers++
			if len(tasks) > 0 {
				judged++
				failover, failoverAt = e, i
				maps.Copy(waiting, tasks)
			}
		case trace.KindTaskRestore:
			if rescaled == nil || rescaled[e.Task] { // a gone task may finish a restore late
				tasks[e.Task] = true
			}
			delete(waiting, e.Task)
			if len(waiting) == 0 {
				failover = nil
			}
		case trace.KindCoordinatorCrash:
			failover = nil
			clear(waiting)
		case trace.KindJobResubmit:
			if list, ok := rescaleTasks(e); ok {
				rescaled, tasks = list, maps.Clone(list) // which its failover waits for
			}
		case trace.KindCheckpointTrigger:
			if failover != nil {
				early = append(early, earlyTrigger{index: i, failover: failover, failoverAt: failoverAt, waiting: slices.Sorted(maps.Keys(waiting))})
			}
		}
	}
	violations, untraced := judgeEarlyTriggers(ix, early)
	switch {
	case failovers == 0:
		return unexercisedResult(PropNoTriggerInFailover, "no job.failover in the trace")
	case judged == 0:
		return unknownResult(PropNoTriggerInFailover, "no task.restore before any job.failover: nothing tells when a failover ends")
	}
	if res, none := withoutTriggers(ix, PropNoTriggerInFailover); none {
		return res
	}
	res := newResult(PropNoTriggerInFailover, violations)
	if len(untraced) > 0 {
		res.Note = "not judged: " + summarise(untraced)
		if res.Verdict == VerdictPass {
			res.Verdict = VerdictUnknown
		}
	}
	return res
}

// earlyTrigger is a checkpoint.trigger that came while tasks of a failover had not restored.
type earlyTrigger struct {
	index      int
	failover   *trace.Event
	failoverAt int // the failover's index
	waiting    []string
}

// judgeEarlyTriggers tells, for each early trigger, which of the tasks it came before
// restored late and which restored unseen. A task that traces its task.restore after the
// trigger (before the next failover) restored late: the trigger is a violation. One that
// traces none, but acts again after the failover, restored without tracing it, so when is
// unknown: a trigger that came only before such tasks is not judged, and the second result
// says so. A commit invoked before the failover (its start) is the replaced incarnation's,
// not a sign of the new one.
func judgeEarlyTriggers(ix *traceIndex, early []earlyTrigger) (violations []Violation, untraced []string) {
	if len(early) == 0 {
		return nil, nil
	}
	seen := newRestartEvidence(ix)
	for _, t := range early {
		e := &ix.events[t.index]
		until := seen.windowEnd(t.index)
		var late, unseen []string
		for _, task := range t.waiting {
			if !seen.restoredIn(task, t.index, until) && seen.workedIn(task, t.failover, t.failoverAt, until) {
				unseen = append(unseen, task)
			} else {
				late = append(late, task)
			}
		}
		if len(late) > 0 {
			violations = append(violations, violationAt(PropNoTriggerInFailover, e,
				"checkpoint %d triggered during the failover of seq %d, before %s restored", e.CP, t.failover.Seq, listSome(late)))
			continue
		}
		untraced = append(untraced, fmt.Sprintf("checkpoint %d triggered at seq %d, before %s acted again after the failover of seq %d with no task.restore traced for it",
			e.CP, e.Seq, listSome(unseen), t.failover.Seq))
	}
	return violations, untraced
}

// restartEvidence indexes, per task, its task.restore events and its events at work, and
// the failovers and coordinator crashes that end a restart's window.
type restartEvidence struct {
	ix       *traceIndex
	restores map[string][]int
	work     map[string][]int
	restarts []int
}

func newRestartEvidence(ix *traceIndex) *restartEvidence {
	r := &restartEvidence{ix: ix, restores: map[string][]int{}, work: map[string][]int{}}
	for k := range ix.only(workKinds | kindsOf(trace.KindTaskRestore, trace.KindJobFailover, trace.KindCoordinatorCrash)) {
		e := &ix.events[k]
		switch e.Kind {
		case trace.KindTaskRestore:
			r.restores[e.Task] = append(r.restores[e.Task], k)
		case trace.KindJobFailover, trace.KindCoordinatorCrash:
			r.restarts = append(r.restarts, k)
		default:
			r.work[e.Task] = append(r.work[e.Task], k)
		}
	}
	return r
}

// windowEnd is the index of the first failover or coordinator crash after i, or the end.
func (r *restartEvidence) windowEnd(i int) int {
	at, _ := slices.BinarySearch(r.restarts, i+1)
	if at == len(r.restarts) {
		return len(r.ix.events)
	}
	return r.restarts[at]
}

// restoredIn reports whether task traced a task.restore in (from, until).
func (r *restartEvidence) restoredIn(task string, from, until int) bool {
	list := r.restores[task]
	at, _ := slices.BinarySearch(list, from+1)
	return at < len(list) && list[at] < until
}

// workedIn reports whether task acted after the failover and before until, other than by
// answering a commit it invoked before the failover.
func (r *restartEvidence) workedIn(task string, failover *trace.Event, failoverAt, until int) bool {
	list := r.work[task]
	at, _ := slices.BinarySearch(list, failoverAt+1)
	for ; at < len(list) && list[at] < until; at++ {
		e := &r.ix.events[list[at]]
		if start, ok := intAttr(e, trace.AttrStart); ok && e.Kind == trace.KindSinkCommit && start < failover.T {
			continue
		}
		return true
	}
	return false
}

// withoutTriggers is the verdict of a property that judges when checkpoints are triggered,
// over a trace without a checkpoint.trigger, and true; or false when the trace has one.
// Without triggers such a property cannot fail, so it never passes: unknown when checkpoints
// ended all the same (their triggers are missing from the trace), unexercised when the job
// triggered none.
func withoutTriggers(ix *traceIndex, p Property) (Result, bool) {
	if ix.any(kindsOf(trace.KindCheckpointTrigger)) {
		return Result{}, false
	}
	if ix.any(kindsOf(trace.KindCheckpointComplete, trace.KindCheckpointAbort)) {
		return unknownResult(p, "checkpoints completed or aborted, but the trace has no checkpoint.trigger"), true
	}
	return unexercisedResult(p, "no checkpoint triggered in the trace"), true
}

// NoPendingAcrossFailover checks that a failover leaves no checkpoint pending: every
// checkpoint triggered by the coordinator incarnation that fails the job over has completed
// or aborted by its job.failover, since the tasks that would acknowledge it are being
// replaced and a checkpoint that lived on would complete, or expire, out of a dead job's
// snapshots. A coordinator.crash drops what its incarnation had pending (checkpoint-outcome
// says so). Without a failover the verdict is unexercised; without a checkpoint.trigger in
// the trace, unknown or unexercised (withoutTriggers).
func NoPendingAcrossFailover(events []trace.Event) Result {
	return noPendingAcrossFailover(newTraceIndex(events))
}

func noPendingAcrossFailover(ix *traceIndex) Result {
	events := ix.events
	var violations []Violation
	pending := map[uint64]*trace.Event{}
	failovers := 0
	for i := range ix.only(failoverKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			pending[e.CP] = e
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			delete(pending, e.CP)
		case trace.KindCoordinatorCrash:
			clear(pending)
		case trace.KindJobFailover:
			failovers++
			for _, cp := range slices.Sorted(maps.Keys(pending)) {
				v := violationAt(PropNoPendingAcrossFailover, e,
					"checkpoint %d, triggered at seq %d, neither completed nor aborted when the job failed over", cp, pending[cp].Seq)
				v.CP = cp
				violations = append(violations, v)
			}
			clear(pending)
		}
	}
	if failovers == 0 {
		return unexercisedResult(PropNoPendingAcrossFailover, "no job.failover in the trace")
	}
	if res, none := withoutTriggers(ix, PropNoPendingAcrossFailover); none {
		return res
	}
	return newResult(PropNoPendingAcrossFailover, violations)
}

// listSome names up to three items and how many more.
func listSome(items []string) string {
	if len(items) <= 3 {
		return fmt.Sprint(items)
	}
	return fmt.Sprintf("%v and %d more", items[:3], len(items)-3)
}
