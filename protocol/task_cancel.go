package protocol

import (
	"fmt"
	"slices"
)

// Cancel markers tell downstream tasks that this task will not forward a
// checkpoint's barrier. They travel in band, so the rule every receiver
// relies on holds for them too: ids on a channel never go backwards, and a
// marker or barrier for n proves that nothing older will follow on that
// channel.

// receiveCancelMarker handles the upstream's announcement that checkpoint id
// was abandoned. Every older checkpoint still aligning here ends with it,
// whichever inputs delivered its barrier, as in Flink's barrier handlers:
// the marker goes on downstream, where it proves that nothing older will
// follow it, so nothing older may. The task declines what it gives up,
// with its own reason (ReasonCanceled, which counts as no failure, like
// Flink's CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER), and forwards the
// marker once, so every task downstream stops waiting.
func (t *taskState) receiveCancelMarker(now Time, input int, id CheckpointID) error {
	if id == 0 {
		return ErrBadInput
	}
	// Alignments are ordered by id, and aborting one removes it.
	for len(t.alignments) > 0 && t.alignments[0].id < id {
		t.abortAlignment(t.alignments[0], ReasonCanceled, true)
	}
	if a := t.findAlignment(id); a != nil {
		t.abortAlignment(a, ReasonCanceled, true)
		return nil
	}
	if id > t.staleUpTo {
		// The first this task hears of id: it will never take part.
		t.staleUpTo = id
		t.heardInBandUpTo = id
		t.cancelDownstream(id)
		t.ready.Messages = push(t.ready.Messages, DeclineMessage(t.cfg.ID, id, ReasonCanceled))
		return nil
	}
	if id > t.heardInBandUpTo && id > t.lastNotified && id > t.restoredFrom && id > t.sentUpTo && id > t.cancelOwed {
		// Only the coordinator's notices told this task of anything as new:
		// it takes no part in id, and, as Flink's barrier handler does with
		// a marker newer than its current checkpoint, it passes the marker
		// on. The abort notice of id need not be remembered: a burst of
		// notices longer than the window of abortsNotified pushes it out,
		// and without the marker downstream would align for id until its
		// own notice came. (Nothing of id went downstream yet, nor is owed:
		// once is enough.)
		t.heardInBandUpTo = id
		t.cancelDownstream(id)
		return nil
	}
	t.heardInBandUpTo = max(t.heardInBandUpTo, id)
	t.cancelNotifiedAbort(id)
	return nil
}

// cancelNotifiedAbort sends a cancel marker for id when a barrier, trigger
// or cancel marker of id reaches the task after the coordinator told it id
// was aborted, and nothing of id went downstream yet. The task takes no
// part in id, and without the marker a downstream task aligning for id
// would wait for this task's barrier until its own notice came (Flink's
// task sends the marker since FLINK-18238). Once is enough.
func (t *taskState) cancelNotifiedAbort(id CheckpointID) {
	if id <= t.sentUpTo || id <= t.cancelOwed || !slices.Contains(t.abortsNotified, id) {
		return
	}
	t.cancelDownstream(id)
}

// cancelDownstream sends a cancel marker for id, the checkpoint this task
// just gave up. A receiver takes the marker as proof that nothing older
// follows, so while an older checkpoint still aligns here (at-least-once
// runs several at once) the marker is owed until that one's barrier or
// marker has gone out; the older one's own marker is then covered by it.
// Nothing goes out if a newer id already went downstream: the receivers
// dropped id when that came, as this task dropped what the newer one
// overtook.
func (t *taskState) cancelDownstream(id CheckpointID) {
	if id < t.sentUpTo {
		return
	}
	t.cancelOwed = max(t.cancelOwed, id)
	t.payOwedCancel()
}

// payOwedCancel sends the owed cancel marker once no older checkpoint
// aligns here. Every end of an alignment calls it, after what that end
// sent.
func (t *taskState) payOwedCancel() {
	if t.cancelOwed == 0 || (len(t.alignments) > 0 && t.alignments[0].id < t.cancelOwed) {
		return
	}
	if t.cancelOwed >= t.sentUpTo {
		t.send(CancelMarker(t.cancelOwed), false)
	}
	t.cancelOwed = 0
}

// checkOutputOrder asserts, where events leave the task, the rule every
// receiver relies on: a barrier's id is above every id sent before it, and
// a cancel marker's at least as high (an unaligned task may give up a
// checkpoint whose barrier it already sent). Only a bug in the protocol
// can break it, since the task decides alone what it sends.
func (t *taskState) checkOutputOrder(ev ChannelEvent) {
	switch {
	case ev.Type == EventBarrier && ev.Checkpoint <= t.sentUpTo,
		ev.Type == EventCancelMarker && ev.Checkpoint < t.sentUpTo:
		assertionFailed(string(t.cfg.ID), fmt.Sprintf("%v sent after checkpoint %v went downstream", ev, t.sentUpTo))
	case ev.Type == EventBarrier || ev.Type == EventCancelMarker:
		t.sentUpTo = ev.Checkpoint
	}
}
