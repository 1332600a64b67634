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
	trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort)

func noTriggerInFailover(ix *traceIndex) Result {
	events := ix.events
	var early []earlyTrigger
	tasks := map[string]bool{}   // job tasks: seen to restore
	waiting := map[string]bool{} // tasks still to restore in the current failover
	var failover *trace.Event
	failovers, judged := 0, 0
	for i := range ix.only(failoverKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindJobFailover:
			failovers++
			if len(tasks) > 0 {
				judged++
				failover = e
				maps.Copy(waiting, tasks)
			}
		case trace.KindTaskRestore:
			tasks[e.Task] = true
			delete(waiting, e.Task)
			if len(waiting) == 0 {
				failover = nil
			}
		case trace.KindCoordinatorCrash:
			failover = nil
			clear(waiting)
		case trace.KindCheckpointTrigger:
			if failover != nil {
				early = append(early, earlyTrigger{index: i, failover: failover, waiting: slices.Sorted(maps.Keys(waiting))})
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
	index    int
	failover *trace.Event
	waiting  []string
}

// judgeEarlyTriggers tells, for each early trigger, which of the tasks it came before are
// missing from the trace rather than late: a task whose next event is work, not a
// task.restore, restored without tracing it, so when is unknown. A trigger is a violation
// when some task it came before traced its restore later; one that came only before
// untraced restores is not judged, and the second result says so.
func judgeEarlyTriggers(ix *traceIndex, early []earlyTrigger) (violations []Violation, untraced []string) {
	if len(early) == 0 {
		return nil, nil
	}
	next := nextLifeOrWork(ix)
	for _, t := range early {
		e := &ix.events[t.index]
		var late, unseen []string
		for _, task := range t.waiting {
			if k, ok := next(task, t.index); ok && ix.events[k].Kind != trace.KindTaskRestore {
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
		untraced = append(untraced, fmt.Sprintf("checkpoint %d triggered at seq %d, before %s acted again after the failover of seq %d with no task.restore traced",
			e.CP, e.Seq, listSome(unseen), t.failover.Seq))
	}
	return violations, untraced
}

// nextLifeOrWork returns a function that finds a task's first task.restore, task.crash,
// task.finish or event at work after index i.
func nextLifeOrWork(ix *traceIndex) func(task string, i int) (int, bool) {
	byTask := map[string][]int{}
	for k := range ix.only(workKinds | kindsOf(trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish)) {
		task := ix.events[k].Task
		byTask[task] = append(byTask[task], k)
	}
	return func(task string, i int) (int, bool) {
		list := byTask[task]
		at, _ := slices.BinarySearch(list, i+1)
		if at == len(list) {
			return 0, false
		}
		return list[at], true
	}
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
