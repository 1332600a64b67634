package checker

import (
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// coordinatorReasons are the reasons a coordinator ends a checkpoint for by itself, which
// may come before a decline is heard: the timeout, a newer completion, a failover, a task
// or the whole job finishing, a metadata or counter write that failed. Any other reason of
// an abort is a decline's, passed on from the task.
var coordinatorReasons = []string{"expired", "subsumed", "failover", "task-finished", "job-finished", "persist-failed", "trigger-failed"}

// declined notes a decline of a pending checkpoint, and watches the first that obliges
// the coordinator to end it: from a live task that had not acknowledged it and whose final
// snapshot is not carried into it (the coordinator ignores a decline from either, rightly),
// with no fault in force until the reaction bound, the tail of a delay into the coordinator
// included: the bound counts the decline's delivery, which the channel holds behind the
// messages the delay held up.
func (j *timingJudge) declined(e *trace.Event) {
	p := j.pending[e.CP]
	if p == nil {
		return // not pending: a stale barrier or trigger refused, which ends nothing
	}
	if !slices.Contains(p.reasons, e.Reason) {
		p.reasons = append(p.reasons, e.Reason)
	}
	key := taskCP{e.Task, e.CP}
	if j.reaction == 0 || p.decline != nil || j.acked[key] || j.carried[key] || !j.jobs.live(e.Task) {
		return
	}
	if !j.faults.quietToTheCoordinator(e.T, addSat(e.T, j.reaction)) {
		j.excusedDeclines++
		return
	}
	p.decline = e
}

// judgeDecline judges the end of a checkpoint whose decline it watched: within the
// reaction bound, and by an abort for the decline's reason or one of the coordinator's
// own.
func (j *timingJudge) judgeDecline(p *timedCheckpoint, end *trace.Event) {
	d := p.decline
	if d == nil {
		return
	}
	if p.finished {
		// The task finished: its final snapshot may stand in for it, and the
		// coordinator then ignores the decline rightly.
		j.excusedDeclines++
		return
	}
	bound := addSat(d.T, j.reaction)
	if end == nil || end.T > bound {
		at, reached := j.due(bound)
		if !reached {
			j.unreached++
			return
		}
		j.judged++
		j.flag(at, ruleDeclineAborts, "checkpoint %d, which %s declined at seq %d (%s), was still pending %dns later (%s)",
			d.CP, d.Task, d.Seq, reasonOrNone(d.Reason), j.reaction, endedBy(end))
		return
	}
	j.judged++
	switch {
	case end.Kind == trace.KindCheckpointComplete:
		j.flag(end, ruleDeclineAborts, "checkpoint %d completed, though %s declined it at seq %d (%s) and never acknowledged it",
			d.CP, d.Task, d.Seq, reasonOrNone(d.Reason))
	case end.Kind == trace.KindCheckpointAbort && !slices.Contains(coordinatorReasons, end.Reason) && !slices.Contains(p.reasons, end.Reason):
		j.flag(end, ruleDeclineAborts, "checkpoint %d was aborted for %s after %s declined it at seq %d, a reason no decline of it gave (%s)",
			d.CP, reasonOrNone(end.Reason), d.Task, d.Seq, listSome(p.reasons))
	}
}

func reasonOrNone(reason string) string {
	if reason == "" {
		return "no reason"
	}
	return reason
}
