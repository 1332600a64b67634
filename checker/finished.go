package checker

import (
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// NoTriggerAfterFinish checks that no checkpoint is triggered once the job has finished, which
// the trace shows in two ways: every job task (one the trace shows at work or in its
// lifecycle) has task.finish as its last lifecycle event; or, sooner, a checkpoint (not a
// savepoint) completed holding every job task's final snapshot (snapshot.ack final=true or
// snapshot.carried), which makes them all fully finished while their exits may still be on
// their way. Either way the final checkpoint is behind the job and there is nothing left to
// snapshot. A restore after that (a failover of the finished job) makes the job run again.
// Without a finished job the verdict is unexercised; without a checkpoint.trigger in the
// trace, unknown or unexercised (withoutTriggers).
func NoTriggerAfterFinish(events []trace.Event) Result {
	return noTriggerAfterFinish(newTraceIndex(events))
}

// finishKinds are the kinds noTriggerAfterFinish reacts to beyond the lifecycle's.
var finishKinds = lifecycleKinds | kindsOf(trace.KindSnapshotAck, trace.KindSnapshotCarried,
	trace.KindCheckpointComplete, trace.KindJobFailover)

func noTriggerAfterFinish(ix *traceIndex) Result {
	events := ix.events
	var violations []Violation
	jobs := newJobLifecycle(ix)
	finals := newJobFinals(ix)
	var finishedAt *trace.Event
	for i := range ix.only(finishKinds) {
		e := &events[i]
		jobs.observe(e)
		finals.observe(e, jobs)
		switch {
		case e.Kind == trace.KindTaskFinish && jobs.allFinished():
			finishedAt = e
		case e.Kind == trace.KindCheckpointComplete && finals.finishedBy == e:
			finishedAt = e
		case e.Kind != trace.KindCheckpointTrigger:
		case jobs.allFinished():
			violations = append(violations, violationAt(PropNoTriggerAfterFinish, e,
				"checkpoint %d triggered after the job finished (every task traced task.finish, the last at seq %d)", e.CP, finishedAt.Seq))
		case finals.finishedBy != nil:
			violations = append(violations, violationAt(PropNoTriggerAfterFinish, e,
				"checkpoint %d triggered after the job finished (checkpoint %d completed at seq %d with every task's final snapshot)",
				e.CP, finals.finishedBy.CP, finals.finishedBy.Seq))
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

// jobFinals follows which checkpoints hold which job tasks' final snapshots, to see the
// completion that leaves every job task fully finished.
type jobFinals struct {
	tasks []string                   // the job tasks
	final map[uint64]map[string]bool // checkpoint -> tasks whose final snapshot it holds
	// finishedBy is the checkpoint.complete that held every job task's final snapshot,
	// since the last restore; nil before one.
	finishedBy *trace.Event
}

func newJobFinals(ix *traceIndex) *jobFinals {
	f := &jobFinals{final: map[uint64]map[string]bool{}}
	for _, w := range ix.workers() {
		f.tasks = append(f.tasks, w.task)
	}
	return f
}

func (f *jobFinals) observe(e *trace.Event, jobs *lifecycle) {
	switch e.Kind {
	case trace.KindSnapshotAck, trace.KindSnapshotCarried:
		if v, _ := e.Attr(trace.AttrFinal); e.Kind == trace.KindSnapshotCarried || v == "true" {
			if f.final[e.CP] == nil {
				f.final[e.CP] = map[string]bool{}
			}
			f.final[e.CP][e.Task] = true
		}
	case trace.KindCheckpointComplete:
		if f.finishedBy == nil && !jobs.savepoint(e.CP) && len(f.tasks) > 0 && f.holdsEvery(e.CP) {
			f.finishedBy = e
		}
	case trace.KindJobFailover, trace.KindTaskRestore:
		f.finishedBy = nil // the job runs again
	case trace.KindJobResubmit:
		if tasks, ok := rescaleTasks(e); ok {
			f.tasks = slices.Sorted(maps.Keys(tasks))
		}
	}
}

func (f *jobFinals) holdsEvery(cp uint64) bool {
	for _, t := range f.tasks {
		if !f.final[cp][t] {
			return false
		}
	}
	return true
}
