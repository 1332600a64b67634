package checker

import (
	"fmt"
	"strconv"

	"github.com/ckptsim/ckptsim/trace"
)

// stopKinds are the kinds judgeStop reacts to.
var stopKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort,
	trace.KindJobFailover, trace.KindCoordinatorCrash, trace.KindJobResubmit, trace.KindJobFinish)

// judgeStop judges what the last stop-with-savepoint to end leaves behind, when nothing
// restarted the job after it and the job had not finished before it: a completed one ends
// the job (P4), an aborted one leaves it running on to the end of its input, and an
// aborted drain, whose sources ended their input, restarts it (P5). Both are judged at
// the end of the trace, as progress.bounded-job-finishes is.
func (l *livenessJudge) judgeStop() {
	stops := map[uint64]bool{} // stop-with-savepoint id: with drain
	var last *trace.Event
	finished := false // job.finish, and no restart since
	for i := range l.ix.only(stopKinds) {
		e := &l.events[i]
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			if isStopTrigger(e) {
				v, _ := e.Attr(trace.AttrDrain)
				stops[e.CP] = v == "true"
			}
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			if _, ok := stops[e.CP]; ok && !finished {
				last = e
			}
		case trace.KindJobFinish:
			finished = true
		default:
			last, finished = nil, false // the job restarts from a checkpoint, and runs on
		}
	}
	tasks := l.finishTasks()
	if last == nil || len(tasks) == 0 {
		return
	}
	l.judged++
	switch {
	case last.Kind == trace.KindCheckpointComplete:
		l.judgeStopped(last, stops[last.CP])
	case stops[last.CP] && !l.inputEndedBefore(last.CP):
		l.flagStop(lastEvent(l.events), "", ruleStopFailedRunsOn, "stop-with-savepoint %d with drain aborted at seq %d after its sources ended their input, and the job never failed over", last.CP, last.Seq)
	case stops[last.CP]:
		// Every task had reached the end of its input before the drain: it ended nothing,
		// and its failure leaves nothing to run on.
	default:
		l.judgeRanOn(last)
	}
}

// judgeStopped judges P4 for stop-with-savepoint stop, which completed: with drain, every
// task finished its input before it exited.
func (l *livenessJudge) judgeStopped(stop *trace.Event, drain bool) {
	end := lastEvent(l.events)
	for _, task := range l.unended() {
		l.flagStop(end, task, ruleStopEndsTheJob, "stop-with-savepoint %d completed at seq %d, but %s never exited", stop.CP, stop.Seq, task)
	}
	for task, i := range l.lastLifecycle() {
		if _, stopped := l.events[i].Attr(trace.AttrStop); drain && stopped && l.events[i].Kind == trace.KindTaskFinish {
			l.flagStop(end, task, ruleStopEndsTheJob, "stop-with-savepoint %d with drain completed at seq %d, but %s exited before the end of its input", stop.CP, stop.Seq, task)
		}
	}
	if !l.ref.Liveness.JobFinishTraced {
		return
	}
	named := false
	for i := range l.ix.only(jobFinishKinds) {
		v, _ := l.events[i].Attr(trace.AttrStop)
		named = v == strconv.FormatUint(stop.CP, 10)
	}
	if !named {
		l.flagStop(end, "", ruleStopEndsTheJob, "stop-with-savepoint %d completed at seq %d, but no job.finish names it", stop.CP, stop.Seq)
	}
}

// judgeRanOn judges P5 for stop-with-savepoint stop, which aborted.
func (l *livenessJudge) judgeRanOn(stop *trace.Event) {
	end := lastEvent(l.events)
	for _, task := range l.unended() {
		l.flagStop(end, task, ruleStopFailedRunsOn, "stop-with-savepoint %d aborted at seq %d, and %s never reached the end of its input after it", stop.CP, stop.Seq, task)
	}
}

// inputEndedBefore reports whether every task of the bounded job acknowledged a final
// snapshot (snapshot.ack final=true) for a checkpoint older than drain: each had reached the
// end of its input before the drain's trigger, as the barriers of older checkpoints come
// ahead of a drain's end of data.
func (l *livenessJudge) inputEndedBefore(drain uint64) bool {
	ended := map[string]bool{}
	for i := range l.ix.only(kindsOf(trace.KindSnapshotAck)) {
		e := &l.events[i]
		if v, _ := e.Attr(trace.AttrFinal); v == "true" && e.CP < drain {
			ended[e.Task] = true
		}
	}
	for _, task := range l.finishTasks() {
		if !ended[task] {
			return false
		}
	}
	return true
}

// unended returns the bounded tasks whose last lifecycle event is not task.finish.
func (l *livenessJudge) unended() []string {
	var out []string
	last := l.lastLifecycle()
	for _, task := range l.finishTasks() {
		if i, ok := last[task]; !ok || l.events[i].Kind != trace.KindTaskFinish {
			out = append(out, task)
		}
	}
	return out
}

func (l *livenessJudge) flagStop(end *trace.Event, task, rule, format string, args ...any) {
	l.violations = append(l.violations, Violation{
		Property: PropLiveness, Message: oneLine(fmt.Sprintf(format, args...)),
		Seq: end.Seq, T: end.T, Task: task, Rule: rule,
	})
}
