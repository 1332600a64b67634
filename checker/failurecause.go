package checker

import (
	"cmp"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// FailureCause checks that a task fails by itself only for a cause. A task.crash with a reason
// is a failure the task reported of itself (a restore it could not read, a commit the
// external system refused), unlike an injected crash, which has none. It must follow, earlier
// in the trace, something that can make a healthy task fail:
//
//   - a fault of an external-system kind (external.*), or any fault acting on the external
//     system's host or its links (a fault event naming "ext" or "extstore"): reads and
//     writes fail, commits time out;
//   - a job.failover or a coordinator.crash: a restarted job meets what the old one left
//     behind (a fenced writer, a transaction of an older attempt);
//   - a storage fault (storage.*), for a task that has not restored yet in its incarnation
//     (no task.restore since the job last failed over, or since it last crashed): reading
//     its state back fails. Once a task runs, a storage fault reaches it only through its
//     uploads, and a failed upload declines the checkpoint (failover-cause judges that), so
//     the fault is no cause for the task to fail.
//
// A coordinator.crash with a reason is the coordinator failing by itself, which nothing in
// the model causes. Anything else is a failure without a cause (FLINK-10377: a sink that failed on a late
// notification it should have ignored), pinned to the task.crash; the failover that follows
// is a needless one. A trace with no task.crash carrying a reason gives the property nothing
// to judge: unexercised.
func FailureCause(events []trace.Event) Result {
	return failureCause(newTraceIndex(events))
}

// failureCauseKinds are the kinds FailureCause reacts to.
var failureCauseKinds = kindsOf(trace.KindFault, trace.KindJobFailover, trace.KindCoordinatorCrash, trace.KindTaskCrash, trace.KindTaskRestore)

func failureCause(ix *traceIndex) Result {
	events := ix.events
	var violations []Violation
	var cause *trace.Event   // the first thing that can make a running task fail
	var storage *trace.Event // the first storage fault: it can fail a task that restores
	restored := map[string]bool{}
	judged := 0
	for i := range ix.only(failureCauseKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindFault:
			switch {
			case isFaultEnd(e):
			case strings.HasPrefix(e.Fault, "storage."):
				storage = cmp.Or(storage, e)
			case canFailTasks(e):
				cause = cmp.Or(cause, e)
			}
		case trace.KindJobFailover, trace.KindCoordinatorCrash:
			if e.Kind == trace.KindCoordinatorCrash && e.Reason != "" {
				// Nothing in the model makes a healthy coordinator fail by itself: its
				// storage failing fails checkpoints, not the coordinator.
				judged++
				violations = append(violations, violationAt(PropFailureCause, e, "the coordinator failed by itself (%s)", e.Reason))
			}
			cause = cmp.Or(cause, e)
			if e.Kind == trace.KindJobFailover {
				clear(restored)
			}
		case trace.KindTaskRestore:
			restored[e.Task] = true
		case trace.KindTaskCrash:
			restoring := !restored[e.Task]
			restored[e.Task] = false
			if e.Reason == "" {
				continue
			}
			judged++
			if cause == nil && (storage == nil || !restoring) {
				violations = append(violations, violationAt(PropFailureCause, e,
					"%s failed by itself (%s) with no external-system fault, failover or coordinator crash before it, nor a storage fault while it restored", e.Task, e.Reason))
			}
		}
	}
	if judged == 0 {
		return unexercisedResult(PropFailureCause, "no task.crash with a reason: no task failed by itself")
	}
	return newResult(PropFailureCause, violations)
}

// canFailTasks reports whether a fault event can make a healthy task fail by itself.
func canFailTasks(e *trace.Event) bool {
	if end, _ := e.Attr("end"); end == "true" {
		return false
	}
	if strings.HasPrefix(e.Fault, "storage.") || strings.HasPrefix(e.Fault, "external.") {
		return true
	}
	host, _ := e.Attr("host")
	for _, name := range []string{host, e.From, e.To, e.Task} {
		if name == "ext" || name == "extstore" {
			return true
		}
	}
	return false
}
