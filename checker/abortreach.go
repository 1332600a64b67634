package checker

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// AbortReach checks that an abort reaches the tasks: when the coordinator aborts checkpoint n
// (checkpoint.abort, for any reason but a failover, whose tasks are replaced anyway), every
// live task that took part in n (it traced a barrier, a snapshot, an ack or a decline for n)
// hears of it within Reference.Liveness.AbortReachMaxNanos: notify.abort for n, or a
// completion notification of a newer checkpoint, which supersedes it. A task that crashes,
// restores or finishes meanwhile, a job.failover and a coordinator.crash end what it owes.
// A task left waiting for a barrier that will never come, or holding state for a checkpoint
// that is gone, is what the rule exists against: Flink's tasks rely on the abort (and on the
// cancel markers it starts) to stop aligning.
//
// Some notices never need to come, and the rule does not wait for them. An abort of n is
// moot for a task already told of a newer completion, or restored from one: the listener
// contract drops it, and the task holds nothing for n. Only the incarnation that took part
// is owed: one that crashed or restored before the abort owes nothing.
//
// A fault may lose the notice, so an abort with a fault in force before its deadline is
// judged from the first stretch of the bound without one after it: the coordinator keeps
// re-sending the notice, as it does a completion (listener-contract wants that reach once
// faults stop). It keeps only its newest aborts, though, so an abort followed by another
// before that stretch begins is not judged, and one whose fault never ends is not either.
// Without the bound the verdict is unknown; with no abort judged, unexercised.
func AbortReach(events []trace.Event, ref Reference) Result {
	return abortReach(newTraceIndex(events), ref)
}

// abortReachKinds are the kinds AbortReach reacts to (lifecycleKinds among them).
var abortReachKinds = lifecycleKinds | kindsOf(
	trace.KindBarrierRecv, trace.KindBarrierSend, trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline,
	trace.KindCheckpointAbort, trace.KindNotifyAbort, trace.KindNotifyComplete,
	trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish, trace.KindJobFailover, trace.KindCoordinatorCrash)

func abortReach(ix *traceIndex, ref Reference) Result {
	bound := ref.Liveness.AbortReachMaxNanos
	if bound <= 0 {
		return unknownResult(PropAbortReach, "the reference gives no bound on abort notifications (liveness.abort_reach_max_ns)")
	}
	events := ix.events
	r := &abortJudge{bound: bound, faults: ix.faults(), jobs: newLifecycle(), participants: newAbortParticipants(ix)}
	relevant := ix.of(abortReachKinds)
	for i := 0; i < len(events); i++ {
		if len(r.open) == 0 {
			// No deadline runs, so only the events of abortReachKinds change anything.
			if i = relevant.next(i); i == len(events) {
				break
			}
		}
		e := &events[i]
		if e.Kind == trace.KindCheckpointAbort {
			r.supersede(e)
		}
		r.overdue(e)
		r.jobs.observe(e)
		r.participants.observe(e)
		r.observe(e)
		r.open = slices.DeleteFunc(r.open, func(o *owedAbort) bool { return len(o.tasks) == 0 })
	}
	return r.result()
}

// owedAbort is an abort being judged and the tasks it has yet to reach by deadline. One that
// a fault excused is judged from quietFrom, the start of the first stretch without faults.
type owedAbort struct {
	abort     *trace.Event
	tasks     map[string]bool
	quietFrom int64
	deadline  int64
}

// abortJudge follows the aborts AbortReach judges.
type abortJudge struct {
	bound        int64
	faults       *faultSpans
	jobs         *lifecycle
	participants *abortParticipants
	open         []*owedAbort
	violations   []Violation
	judged       int
	excused      int
}

// overdue flags every task that an abort has not reached by its deadline, which e passed.
func (r *abortJudge) overdue(e *trace.Event) {
	r.open = slices.DeleteFunc(r.open, func(o *owedAbort) bool {
		if e.T <= o.deadline {
			return false
		}
		for _, task := range slices.Sorted(maps.Keys(o.tasks)) {
			r.violations = append(r.violations, Violation{
				Property: PropAbortReach,
				Message: oneLine(fmt.Sprintf("%s, which took part in checkpoint %d, was not told of its abort at seq %d (%s) within %dns",
					task, o.abort.CP, o.abort.Seq, o.abort.Reason, o.deadline-o.abort.T)),
				Seq: e.Seq, T: e.T, Task: task, CP: o.abort.CP,
			})
		}
		return true
	})
}

// observe takes the next event: an abort to judge, or news that ends what one owes.
func (r *abortJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointAbort:
		r.begin(e)
	case trace.KindNotifyAbort:
		for _, o := range r.open {
			if o.abort.CP == e.CP {
				delete(o.tasks, e.Task)
			}
		}
	case trace.KindNotifyComplete:
		for _, o := range r.open {
			if e.CP > o.abort.CP {
				delete(o.tasks, e.Task)
			}
		}
	case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
		for _, o := range r.open {
			delete(o.tasks, e.Task)
		}
	case trace.KindJobFailover, trace.KindCoordinatorCrash:
		r.open = nil
	}
}

// supersede stops judging the aborts a fault excused whose stretch without faults has not
// begun by e, a newer abort: the coordinator may have let their notices go.
func (r *abortJudge) supersede(e *trace.Event) {
	r.open = slices.DeleteFunc(r.open, func(o *owedAbort) bool {
		if o.quietFrom > o.abort.T && e.T < o.quietFrom {
			r.judged--
			r.excused++
			return true
		}
		return false
	})
}

// begin starts judging an abort, if any live task took part and a stretch without faults
// follows it.
func (r *abortJudge) begin(e *trace.Event) {
	if e.Reason == reasonFailover || len(r.participants.took[e.CP]) == 0 {
		return
	}
	from, ok := r.faults.quietStretch(e.T, r.bound)
	if !ok {
		r.excused++
		return
	}
	if live := r.participants.owed(e.CP, r.jobs.live); len(live) > 0 {
		r.judged++
		r.open = append(r.open, &owedAbort{abort: e, tasks: live, quietFrom: from, deadline: from + r.bound})
	}
}

// result is the verdict once the trace is read.
func (r *abortJudge) result() Result {
	return deadlineResult(PropAbortReach, r.violations, r.judged, r.excused, len(r.open), "abort",
		"no checkpoint that tasks took part in was aborted")
}
