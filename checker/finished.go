package checker

import "github.com/ckptsim/ckptsim/trace"

// NoTriggerAfterFinish checks that no checkpoint is triggered once the job has finished:
// every job task (one the trace shows at work or in its lifecycle) has task.finish as its
// last lifecycle event, so the final checkpoint is behind it and there is nothing left to snapshot. A
// restore after that (a failover of the finished job) makes the job run again. Without a
// finished job the verdict is unexercised; without a checkpoint.trigger in the trace, unknown
// or unexercised (withoutTriggers).
func NoTriggerAfterFinish(events []trace.Event) Result {
	return noTriggerAfterFinish(newTraceIndex(events))
}

func noTriggerAfterFinish(ix *traceIndex) Result {
	events := ix.events
	var violations []Violation
	jobs := newJobLifecycle(ix)
	var finishedAt *trace.Event
	// The lifecycle's kinds are those it judges too (task.finish, checkpoint.trigger).
	for i := range ix.only(lifecycleKinds) {
		e := &events[i]
		jobs.observe(e)
		switch {
		case e.Kind == trace.KindTaskFinish && jobs.allFinished():
			finishedAt = e
		case e.Kind == trace.KindCheckpointTrigger && jobs.allFinished():
			violations = append(violations, violationAt(PropNoTriggerAfterFinish, e,
				"checkpoint %d triggered after the job finished (every task traced task.finish, the last at seq %d)", e.CP, finishedAt.Seq))
		}
	}
	if finishedAt == nil {
		return unexercisedResult(PropNoTriggerAfterFinish, "the job never finished in the trace")
	}
	if res, none := withoutTriggers(ix, PropNoTriggerAfterFinish); none {
		return res
	}
	return newResult(PropNoTriggerAfterFinish, violations)
}
