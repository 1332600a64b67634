package checker

import (
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// A rescale (a job.resubmit with the tasks attribute) replaces the job's tasks: from then
// on the job's tasks are the ones it lists, and an earlier task it does not list is gone
// for good, owed no restore, notification or end. A rescaled restore (task.restore with
// rescaled-from) holds state redistributed from the snapshots it names, so it is judged
// against them, not by its own snapshot's digest.

// rescaleTasks returns the tasks a rescale's job.resubmit lists, and whether e is one.
func rescaleTasks(e *trace.Event) (map[string]bool, bool) {
	if e.Kind != trace.KindJobResubmit {
		return nil, false
	}
	list, ok := e.Attr(trace.AttrTasks)
	if !ok {
		return nil, false
	}
	tasks := map[string]bool{}
	for _, t := range strings.Fields(list) {
		tasks[t] = true
	}
	return tasks, true
}

// lastRescaleTasks returns the tasks of the trace's last rescale, sorted, and whether it
// has one.
func lastRescaleTasks(ix *traceIndex) ([]string, bool) {
	var last *trace.Event
	for i := range ix.only(kindsOf(trace.KindJobResubmit)) {
		if _, ok := ix.events[i].Attr(trace.AttrTasks); ok {
			last = &ix.events[i]
		}
	}
	if last == nil {
		return nil, false
	}
	list, _ := last.Attr(trace.AttrTasks)
	return strings.Fields(list), true
}

// rescaledFrom returns the snapshots a rescaled restore read, and whether e is one.
func rescaledFrom(e *trace.Event) ([]string, bool) {
	list, ok := e.Attr(trace.AttrRescaledFrom)
	if !ok || e.Kind != trace.KindTaskRestore {
		return nil, false
	}
	if list == trace.NoneRead {
		return nil, true
	}
	return strings.Fields(list), true
}

// finishTasks are the tasks a bounded job must end with task.finish: the reference's
// FinishTasks, or after a rescale every task of the rescaled job (a reference cannot name
// the tasks of a parallelism chosen while the job runs).
func (l *livenessJudge) finishTasks() []string {
	tasks := l.ref.Liveness.FinishTasks
	if len(tasks) == 0 {
		return nil
	}
	if rescaled, ok := lastRescaleTasks(l.ix); ok {
		return rescaled
	}
	return tasks
}
