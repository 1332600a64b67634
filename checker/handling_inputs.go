package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// triggerIn takes a trigger.recv: the task owes an answer at once (task.answers-trigger),
// unless it answered the checkpoint already (a duplicate) or knows it ended, where a decline
// would tell the coordinator nothing.
func (j *handlingJudge) triggerIn(th *taskHandling, e *trace.Event) {
	j.occasions++
	if !th.at(e.CP).answered && !th.knowsOver(e.CP) {
		th.owedTrigger = e
	}
	j.knownAbortIn(th, e, "the trigger")
	th.highestIn = max(th.highestIn, e.CP)
}

// barrierIn takes a barrier.recv. The task takes part in a checkpoint whose barrier comes
// while it is newer than anything the task knows of; an older one is stale.
func (j *handlingJudge) barrierIn(th *taskHandling, e *trace.Event) {
	j.overtakes(th, e)
	if e.CP > th.movedPast() {
		th.at(e.CP).tookPart = true
		th.inProgress[e.CP] = true
	}
	c := th.at(e.CP)
	if c.barriersFrom == nil {
		c.barriersFrom = map[string]bool{}
	}
	c.barriersFrom[e.From] = true
	j.knownAbortIn(th, e, "a barrier")
	th.highestIn = max(th.highestIn, e.CP)
}

// overtakes judges barrier e against the older checkpoints the task aligns
// (alignment.newer-barrier): one whose barrier has not come on e's channel never will, as
// a channel carries barriers in increasing order, so the task declines it at once.
func (j *handlingJudge) overtakes(th *taskHandling, e *trace.Event) {
	for cp := range th.inProgress {
		c := th.cps[cp]
		if cp >= e.CP || !th.aligning(cp) || c.barriersFrom[e.From] || c.overtakenBy != nil {
			continue
		}
		j.occasions++
		c.overtakenBy = e
		th.overtaken = append(th.overtaken, overtaken{cp: cp, by: e})
	}
	slices.SortFunc(th.overtaken, func(a, b overtaken) int { return cmp.Compare(a.cp, b.cp) })
}

// knownAbortIn judges a barrier, trigger or cancel marker of a checkpoint the task was told
// aborted (cancel.on-known-abort): unless something newer came in first, or a completion or
// restore made the checkpoint moot, the task cancels it on every output that carried
// nothing of it or newer, so that downstream stops waiting for its barrier: at once for a
// trigger, and for a barrier at once or when the alignment would have completed (Flink).
func (j *handlingJudge) knownAbortIn(th *taskHandling, e *trace.Event, what string) {
	c := th.cps[e.CP]
	if c == nil || c.toldAborted == nil || c.cancelOwed || e.CP < th.highestIn || e.CP <= th.lastNotified || e.CP <= th.restoredFrom ||
		th.finalFor > 0 && e.CP > th.finalFor {
		return
	}
	c.cancelOwed = true // a second barrier of it owes nothing new
	j.owe(th, ruleCancelOnAbort, e, e.CP,
		fmt.Sprintf("took %s of checkpoint %d in after notify.abort of it (seq %d)", what, e.CP, c.toldAborted.Seq))
}

// markerIn takes a marker.recv (cancel.on-marker). A cancel marker of a checkpoint newer
// than anything the task knows of, or of one it is still aligning, makes the task give its
// part up at once: it declines the checkpoint and cancels it on every output still waiting
// for it. Whatever the marker's news, no barrier or snapshot of it or of an older
// checkpoint may follow: the marker proves that none of their barriers comes on its
// channel any more.
func (j *handlingJudge) markerIn(th *taskHandling, e *trace.Event) {
	j.occasions++
	c := th.at(e.CP)
	if (e.CP > th.movedPast() || th.aligning(e.CP)) && !th.knowsOver(e.CP) {
		if !c.declined {
			th.owedDeclines = append(th.owedDeclines, e)
		}
		j.owe(th, ruleCancelOnMarker, e, e.CP, fmt.Sprintf("took a cancel marker of checkpoint %d in", e.CP))
	} else {
		j.knownAbortIn(th, e, "a cancel marker")
	}
	c.cancelledIn = true
	th.endUpTo(e.CP)
	if th.cancelled == nil || e.CP > th.cancelled.CP {
		th.cancelled = e
	}
	th.highestIn = max(th.highestIn, e.CP)
}

// owe makes the task owe a cancel marker of cp, at once, on every output still waiting for
// it. In a trace that holds no cancel marker at all the occasion is noted instead: such a
// trace may come from an emitter that does not trace them.
func (j *handlingJudge) owe(th *taskHandling, rule string, cause *trace.Event, cp uint64, why string) {
	j.occasions++
	waiting := th.waitingFor(j.outputs.of(th.name, j.at), cp)
	if len(waiting) == 0 {
		return
	}
	// A notice, or a barrier after one, ends an alignment that Flink lets run to its end
	// before it sends the marker (SubtaskCheckpointCoordinatorImpl.checkAndClearAbortedStatus).
	// Such a marker is never judged missing, so it needs no evidence of markers either.
	wait := cause.Kind == trace.KindNotifyAbort || cause.Kind == trace.KindBarrierRecv && rule == ruleCancelOnAbort
	if !j.markersTraced && !wait {
		if j.markerless == nil {
			j.markerless = cause
		}
		return
	}
	th.owedCancels = append(th.owedCancels, owedCancel{rule: rule, cp: cp, cause: cause, why: why, outputs: waiting, flinkMayWait: wait})
}
