package protocol

import (
	"fmt"
	"slices"
)

func (t *taskState) receive(now Time, input int, ev ChannelEvent) error {
	if t.exited {
		return nil // the host stopped the task; whatever still arrives is moot
	}
	if err := t.checkInput(input); err != nil {
		return err
	}
	// Time first: an alignment that timed out by now has switched to
	// unaligned and no longer blocks its inputs.
	t.begin(now)
	if t.action[input] == inputBlock {
		// Whatever is behind a barrier belongs after the snapshot.
		return fmt.Errorf("%w: %v delivered on blocked input %s", ErrBadInput, ev, t.cfg.Inputs[input])
	}
	switch ev.Type {
	case EventBarrier:
		return t.receiveBarrier(now, input, ev)
	case EventCancelMarker:
		return t.receiveCancelMarker(now, input, ev.Checkpoint)
	case EventEndOfData:
		t.inputDrained[input] = true
		return nil
	case EventEndOfPartition:
		t.endOfPartition(now, input)
		return nil
	}
	return fmt.Errorf("%w: event %v", ErrBadInput, ev)
}

func (t *taskState) receiveBarrier(now Time, input int, b ChannelEvent) error {
	if b.Checkpoint == 0 || b.Kind < KindCheckpoint || b.Kind > KindDrainSavepoint ||
		b.Mode < ModeAligned || b.Mode > ModeAtLeastOnce {
		return fmt.Errorf("%w: malformed %v", ErrBadInput, b)
	}
	// Every older checkpoint whose barrier has not come on this input
	// never will: this input has moved past it.
	t.abortOlderUnseen(b.Checkpoint, input)
	a := t.findAlignment(b.Checkpoint)
	if a == nil {
		if b.Checkpoint <= t.staleUpTo {
			// Stale: this checkpoint was finished or abandoned here, or a
			// newer barrier overtook it (an unaligned barrier sent with
			// Priority may pass an aligned savepoint's). Say so unless
			// this task has a snapshot of it, rather than let the
			// checkpoint run into its timeout; a duplicate decline is
			// ignored by the coordinator. A checkpoint the coordinator
			// said was aborted gets a cancel marker in place of its
			// barrier (cancelNotifiedAbort).
			t.heardInBandUpTo = max(t.heardInBandUpTo, b.Checkpoint)
			t.declineStale(b.Checkpoint)
			t.cancelNotifiedAbort(b.Checkpoint)
			return nil
		}
		t.staleUpTo = b.Checkpoint
		t.heardInBandUpTo = b.Checkpoint
		a = t.startAlignment(now, input, b)
	} else {
		if a.seen[input] {
			return fmt.Errorf("%w: second barrier %v on input %s", ErrBadInput, b.Checkpoint, t.cfg.Inputs[input])
		}
		a.seen[input] = true
		a.missing--
		switch {
		case a.blocking():
			t.action[input] = inputBlock
		case t.recording == a:
			t.action[input] = inputProcess
		}
		if b.Mode == ModeUnaligned && a.mode == ModeAlignedWithTimeout {
			// The upstream timed out and overtook its data: keep
			// blocking would only wait for what it already recorded.
			t.switchToUnaligned(now, a)
		}
	}
	if a != nil && a.missing == 0 && t.findAlignment(a.id) == a {
		t.alignmentDone(now, a)
	}
	return nil
}

// startAlignment begins checkpoint b.Checkpoint at its first barrier.
func (t *taskState) startAlignment(now Time, input int, b ChannelEvent) *alignment {
	if len(t.alignments) >= t.cfg.MaxPendingCheckpoints {
		t.refuse(b.Checkpoint, b.Kind, ReasonTooManyPending)
		return nil
	}
	a := t.newAlignment()
	a.id, a.kind, a.mode, a.timestamp = b.Checkpoint, b.Kind, b.Mode, b.Timestamp
	a.missing = t.openInputs - 1
	if a.kind.IsSavepoint() {
		a.mode = ModeAligned // savepoints never record channel state
	}
	if a.mode == ModeAlignedWithTimeout {
		if t.cfg.AlignmentTimeout <= 0 {
			a.mode = ModeAligned
		}
		a.deadline = now.Add(t.cfg.AlignmentTimeout)
	}
	a.seen[input] = true
	t.alignments = append(t.alignments, a)
	switch {
	case a.blocking():
		t.action[input] = inputBlock
	case a.mode == ModeUnaligned:
		t.snapshotUnaligned(now, a)
	}
	return a
}

// newAlignment returns a blank alignment: a spare one if there is one.
func (t *taskState) newAlignment() *alignment {
	n := len(t.spareAlignments)
	if n == 0 {
		return &alignment{seen: make([]bool, len(t.cfg.Inputs))}
	}
	a := t.spareAlignments[n-1]
	t.spareAlignments[n-1] = nil
	t.spareAlignments = t.spareAlignments[:n-1]
	seen := a.seen
	clear(seen)
	*a = alignment{seen: seen}
	return a
}

// switchToUnaligned turns an alignment that waited too long into an
// unaligned checkpoint: snapshot now, barrier overtakes the output queues,
// blocked inputs resume, and inputs still waiting for the barrier record
// what arrives before it.
func (t *taskState) switchToUnaligned(now Time, a *alignment) {
	a.mode = ModeUnaligned
	a.deadline = 0
	for i, seen := range a.seen {
		if seen && t.action[i] == inputBlock {
			t.action[i] = inputProcess
		}
	}
	t.snapshotUnaligned(now, a)
}

// snapshotUnaligned takes the snapshot of an unaligned checkpoint at once
// and starts recording on the inputs whose barrier is still missing.
func (t *taskState) snapshotUnaligned(now Time, a *alignment) {
	if t.recording != nil && t.recording != a {
		// One checkpoint's channel state at a time; the older one is
		// abandoned (unaligned jobs run one checkpoint at a time anyway).
		t.abortAlignment(t.recording, ReasonNewerBarrier, true)
	}
	if !t.requestSnapshot(a, a.missing > 0) {
		t.abortAlignment(a, ReasonTooManyPending, true)
		return
	}
	t.send(Barrier(a.id, a.kind, ModeUnaligned, a.timestamp), true)
	a.snapshotTaken = true
	if a.missing > 0 {
		t.recording = a
		for i, seen := range a.seen {
			if !seen && t.inputOpen[i] {
				t.action[i] = inputRecord
			}
		}
	}
}

// alignmentDone runs when the barrier arrived on every open input.
func (t *taskState) alignmentDone(now Time, a *alignment) {
	if a.snapshotTaken {
		// Unaligned: the channel state is complete.
		t.removeAlignment(a)
		if i := t.findInflight(a.id); i >= 0 && !t.inflight[i].sealed {
			t.inflight[i].sealed = true
			t.ready.Sealed = push(t.ready.Sealed, a.id)
		}
		t.payOwedCancel()
		return
	}
	if !t.requestSnapshot(a, false) {
		t.abortAlignment(a, ReasonTooManyPending, true)
		return
	}
	t.removeAlignment(a)
	t.send(Barrier(a.id, a.kind, a.mode, a.timestamp), false)
	t.payOwedCancel()
}

// removeAlignment forgets a and gives its inputs back to normal processing.
func (t *taskState) removeAlignment(a *alignment) {
	for i, seen := range a.seen {
		if seen && a.blocking() {
			t.action[i] = inputProcess
		}
	}
	if t.recording == a {
		t.recording = nil
		for i := range t.action {
			if t.action[i] == inputRecord {
				t.action[i] = inputProcess
			}
		}
	}
	if i := slices.Index(t.alignments, a); i >= 0 {
		t.alignments = slices.Delete(t.alignments, i, i+1)
		t.spareAlignments = append(t.spareAlignments, a)
		return
	}
	assertionFailed(string(t.cfg.ID), fmt.Sprintf("removing alignment %v that is not pending", a.id))
}

// abortAlignment gives up checkpoint a at this task. Downstream tasks are
// sent a cancel marker so they stop waiting for a barrier that this task
// will not forward (or drop state they record for it), in id order (see
// cancelDownstream); the host is told to drop a snapshot already
// requested; the coordinator gets a decline when this task is the first
// to know.
func (t *taskState) abortAlignment(a *alignment, reason Reason, decline bool) {
	t.removeAlignment(a)
	t.cancelDownstream(a.id)
	if i := t.findInflight(a.id); i >= 0 {
		t.dropInflight(i, reason)
	} else {
		t.ready.Aborted = push(t.ready.Aborted, Abort{Checkpoint: a.id, Kind: a.kind, Reason: reason, Task: t.cfg.ID})
	}
	if decline {
		t.ready.Messages = push(t.ready.Messages, DeclineMessage(t.cfg.ID, a.id, reason))
	}
}

// abortOlderUnseen aborts, and declines, the alignments older than id, a
// barrier that came on input, that still wait for their barrier there.
func (t *taskState) abortOlderUnseen(id CheckpointID, input int) {
	for {
		var victim *alignment
		for _, a := range t.alignments {
			if a.id < id && !a.seen[input] {
				victim = a
				break
			}
		}
		if victim == nil {
			return
		}
		t.abortAlignment(victim, ReasonNewerBarrier, true)
	}
}

// refuse declines a checkpoint this task cannot take part in, and cancels
// it downstream so no one waits for it.
func (t *taskState) refuse(id CheckpointID, kind Kind, reason Reason) {
	t.cancelDownstream(id)
	t.ready.Aborted = push(t.ready.Aborted, Abort{Checkpoint: id, Kind: kind, Reason: reason, Task: t.cfg.ID})
	t.ready.Messages = push(t.ready.Messages, DeclineMessage(t.cfg.ID, id, reason))
}

// declineStale declines a stale barrier or trigger for id, unless that
// would tell the coordinator nothing: this task has (or had) a snapshot of
// id, so the stale copy is a duplicate; or id is known to be over (at or
// below the restored or last notified checkpoint, or notified as aborted).
// A decline for a checkpoint the coordinator already ended is ignored
// there, so the rule only saves messages.
func (t *taskState) declineStale(id CheckpointID) {
	if id <= t.restoredFrom || id <= t.lastNotified || slices.Contains(t.abortsNotified, id) ||
		t.findInflight(id) >= 0 || slices.Contains(t.acked, id) {
		return
	}
	t.ready.Messages = push(t.ready.Messages, DeclineMessage(t.cfg.ID, id, ReasonNewerBarrier))
}
