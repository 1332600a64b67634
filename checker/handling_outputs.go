package checker

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// sent takes a barrier.send or marker.send (channel.ids-increase). On one channel each
// carries a newer checkpoint than the last, save that a cancel marker may follow the barrier
// of its own checkpoint: a task that gives up a checkpoint it already forwarded (an
// unaligned one, still recording) cancels it too. A barrier also answers its trigger, and
// is judged as a snapshot of its checkpoint.
func (j *handlingJudge) sent(th *taskHandling, e *trace.Event) {
	j.occasions++
	marker := e.Kind == trace.KindMarkerSend
	if last, ok := th.lastOut[e.To]; ok && !(e.CP > last.cp || e.CP == last.cp && marker && !last.marker) {
		j.violate(ruleIDsIncrease, e, th.name, e.CP, "%s sent %s of checkpoint %d to %s after %s of checkpoint %d (seq %d): ids on a channel never go back",
			th.name, sentText(marker), e.CP, e.To, sentText(last.marker), last.cp, last.seq)
	} else {
		th.lastOut[e.To] = sentEvent{cp: e.CP, marker: marker, seq: e.Seq}
	}
	th.discharge(e.To, e.CP, marker)
	if !marker {
		j.snapshotOf(th, e, "forwarded the barrier")
	}
}

// sentText names a channel event for a message.
func sentText(marker bool) string {
	if marker {
		return "a cancel marker"
	}
	return "a barrier"
}

// snapshotTaken takes a snapshot.taken.
func (j *handlingJudge) snapshotTaken(th *taskHandling, e *trace.Event) {
	th.at(e.CP).taken = true
	delete(th.inProgress, e.CP)
	j.snapshotOf(th, e, "took a snapshot")
}

// snapshotOf takes a snapshot or a forwarded barrier of e's checkpoint: it answers a trigger
// of it, and must not follow a cancel marker of it or of a newer checkpoint, nor its abort
// notice.
func (j *handlingJudge) snapshotOf(th *taskHandling, e *trace.Event, did string) {
	c := th.at(e.CP)
	c.answered = true
	if th.owedTrigger != nil && th.owedTrigger.CP == e.CP {
		th.owedTrigger = nil
	}
	switch {
	case th.cancelled != nil && e.CP <= th.cancelled.CP:
		j.violate(ruleCancelOnMarker, e, th.name, e.CP, "%s %s of checkpoint %d after a cancel marker of %d (seq %d) ended it",
			th.name, did, e.CP, th.cancelled.CP, th.cancelled.Seq)
	case c.toldAborted != nil:
		j.violate(ruleCancelOnAbort, e, th.name, e.CP, "%s %s of checkpoint %d after it was told the checkpoint aborted (seq %d)",
			th.name, did, e.CP, c.toldAborted.Seq)
	case c.overtakenBy != nil:
		j.violate(ruleNewerBarrier, e, th.name, e.CP, "%s %s of checkpoint %d after the barrier of %d from %s (seq %d) ended it",
			th.name, did, e.CP, c.overtakenBy.CP, c.overtakenBy.From, c.overtakenBy.Seq)
	}
}

// declined takes a snapshot.decline: it answers a trigger or a cancel marker of its
// checkpoint, and a task that declines a checkpoint it took part in cancels it at once on
// every output still waiting for its barrier (cancel.on-give-up). A checkpoint a cancel
// marker or an abort notice ended is judged by those rules instead.
func (j *handlingJudge) declined(th *taskHandling, e *trace.Event) {
	c := th.at(e.CP)
	c.declined, c.answered = true, true
	delete(th.inProgress, e.CP)
	if th.owedTrigger != nil && th.owedTrigger.CP == e.CP {
		th.owedTrigger = nil
	}
	th.owedDeclines = slices.DeleteFunc(th.owedDeclines, func(m *trace.Event) bool { return m.CP == e.CP })
	th.overtaken = slices.DeleteFunc(th.overtaken, func(o overtaken) bool { return o.cp == e.CP })
	if c.tookPart && !c.cancelledIn && c.toldAborted == nil {
		j.owe(th, ruleCancelOnGiveUp, e, e.CP, fmt.Sprintf("declined checkpoint %d after its barrier came", e.CP))
	}
}

// acked takes a snapshot.ack, which must not come once the task gave the checkpoint up:
// declining it, or told it aborted, the task drops the snapshot it was uploading.
func (j *handlingJudge) acked(th *taskHandling, e *trace.Event) {
	c := th.at(e.CP)
	c.answered = true
	if !c.declined && c.toldAborted == nil {
		return
	}
	j.occasions++
	gaveUp := "declined it"
	if c.toldAborted != nil {
		gaveUp = fmt.Sprintf("was told it aborted (seq %d)", c.toldAborted.Seq)
	}
	j.violate(ruleNoLateAck, e, th.name, e.CP, "acknowledged checkpoint %d after it %s", e.CP, gaveUp)
}

// toldAborted takes a notify.abort. A task told so while still aligning the checkpoint
// gives its part up (cancel.on-give-up) and cancels it on every output still waiting for
// its barrier: ckptsim's tasks at once, Flink's when the alignment would have completed,
// so no input is a deadline for it.
func (j *handlingJudge) toldAborted(th *taskHandling, e *trace.Event) {
	if th.aligning(e.CP) && !th.knowsOver(e.CP) {
		j.owe(th, ruleCancelOnGiveUp, e, e.CP, fmt.Sprintf("was told checkpoint %d aborted while aligning it", e.CP))
	}
	th.at(e.CP).toldAborted = e
	delete(th.inProgress, e.CP)
	th.abortedUpTo = max(th.abortedUpTo, e.CP)
}
