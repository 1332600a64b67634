package checker

import "github.com/ckptsim/ckptsim/trace"

// NoTriggerAfterFinish checks that no checkpoint is triggered once the job has finished:
// every job task (one the trace saw in its lifecycle) has task.finish as its last lifecycle
// event, so the final checkpoint is behind it and there is nothing left to snapshot. A
// restore after that (a failover of the finished job) makes the job run again. Without a
// finished job the verdict is unexercised.
func NoTriggerAfterFinish(events []trace.Event) Result {
	var violations []Violation
	last := map[string]string{} // task -> its last lifecycle event kind
	running := 0                // tasks whose last lifecycle event is not task.finish
	var finishedAt *trace.Event
	finished := false
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish:
			before, seen := last[e.Task]
			if seen && before != trace.KindTaskFinish {
				running--
			}
			last[e.Task] = e.Kind
			if e.Kind != trace.KindTaskFinish {
				running++
				finishedAt = nil
			} else if running == 0 {
				finishedAt, finished = e, true
			}
		case trace.KindCheckpointTrigger:
			if finishedAt != nil {
				violations = append(violations, violationAt(PropNoTriggerAfterFinish, e,
					"checkpoint %d triggered after the job finished (every task traced task.finish, the last at seq %d)", e.CP, finishedAt.Seq))
			}
		}
	}
	if !finished {
		return unexercisedResult(PropNoTriggerAfterFinish, "the job never finished in the trace")
	}
	return newResult(PropNoTriggerAfterFinish, violations)
}
