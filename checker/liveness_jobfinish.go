package checker

import "github.com/ckptsim/ckptsim/trace"

var jobFinishKinds = kindsOf(trace.KindJobFinish)

// judgeJobFinish judges the engine's own report of a bounded job's end, where the reference
// says the engine traces it (Liveness.JobFinishTraced): job.finish comes only once every
// task of FinishTasks has finished for good (its task.finish is its last lifecycle event),
// and a trace in which they all have ends with one. A host reads the end from the engine,
// not from the tasks: an engine that never reports it leaves the host waiting for a job
// that is over.
func (l *livenessJudge) judgeJobFinish() {
	tasks := l.finishTasks()
	if !l.ref.Liveness.JobFinishTraced || len(tasks) == 0 {
		return
	}
	last := l.lastLifecycle()
	lastFinish := -1 // index of the last task's task.finish, once all have finished
	for _, task := range tasks {
		i, ok := last[task]
		if !ok || l.events[i].Kind != trace.KindTaskFinish {
			lastFinish = -2
			break
		}
		lastFinish = max(lastFinish, i)
	}
	reported := false
	for i := range l.ix.only(jobFinishKinds) {
		e := &l.events[i]
		if lastFinish < 0 || i < lastFinish {
			l.violations = append(l.violations, Violation{Property: PropLiveness, Rule: ruleBoundedJobFinishes,
				Message: "the engine reported the job finished (job.finish) before every task had finished for good",
				Seq:     e.Seq, T: e.T, Task: e.Task})
			return
		}
		reported = true
	}
	if lastFinish >= 0 && !reported {
		l.flagAtEnd(lastEvent(l.events), "", "every task finished (the last at seq %d), but the engine never reported the job finished (no job.finish)",
			l.events[lastFinish].Seq)
	}
}
