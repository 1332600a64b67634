package protocol

import "slices"

func (t *taskState) step(now Time, m Message) error {
	if m.Task != t.cfg.ID {
		return ErrUnknownTask
	}
	if t.exited {
		return nil
	}
	switch m.Type {
	case MsgTrigger:
		t.begin(now)
		t.trigger(now, m)
	case MsgNotifyComplete:
		t.begin(now)
		t.notifyComplete(m.Checkpoint)
	case MsgNotifyAborted:
		t.begin(now)
		t.notifyAborted(m.Checkpoint)
	case MsgSplitAssign, MsgNoMoreSplits:
		t.begin(now)
		t.splitMessage(m)
	default:
		return ErrUnexpectedMessage
	}
	t.releaseSplits() // a checkpoint heard of may let held splits in
	return nil
}

// trigger starts a checkpoint at a task the coordinator reaches directly: a
// source, or a finished task whose upstreams are gone. There is nothing to
// align: the snapshot is taken at once and the barrier injected into the
// outputs, ahead of no record that should be in the snapshot.
func (t *taskState) trigger(now Time, m Message) {
	id := m.Checkpoint
	if id <= t.staleUpTo {
		// A duplicate, or overtaken by a newer trigger (reordered
		// control messages): in the second case this task will never
		// snapshot id, so it says so now rather than let the checkpoint
		// run into its timeout. Or the coordinator told this task id was
		// aborted before the trigger came: a cancel marker goes out in
		// place of the barrier.
		t.heardInBandUpTo = max(t.heardInBandUpTo, id)
		t.declineStale(id)
		t.cancelNotifiedAbort(id)
		return
	}
	t.staleUpTo = id
	t.heardInBandUpTo = id
	// Nothing older can complete here any more: a barrier of it could
	// only follow this trigger's barrier on the outputs, and ids on a
	// channel must increase.
	for len(t.alignments) > 0 {
		t.abortAlignment(t.alignments[0], ReasonNewerBarrier, true)
	}
	if m.Kind == KindDrainSavepoint {
		// Drain: the input ends before the snapshot, which is then final,
		// and end of data goes out ahead of the barrier. A trigger reaches
		// a source or a task that finished already, so it is finishable.
		_ = t.finish(now)
	}
	mode := m.Mode
	if m.Kind.IsSavepoint() {
		mode = ModeAligned
	}
	if t.splitsInFlight(m) {
		t.refuse(id, m.Kind, ReasonSplitsInFlight)
		return
	}
	if !t.requestSnapshotOf(id, m.Kind, mode, m.Timestamp, false) {
		t.refuse(id, m.Kind, ReasonTooManyPending)
		return
	}
	t.send(Barrier(id, m.Kind, mode, m.Timestamp), mode == ModeUnaligned)
}

// notifyComplete filters completion notifications into the listener
// contract: strictly increasing, above the restored id, at most once.
// Everything older still in progress here is obsolete and dropped.
func (t *taskState) notifyComplete(id CheckpointID) {
	if id <= t.lastNotified || id <= t.restoredFrom {
		return
	}
	t.lastNotified = id
	t.ready.Notifications = push(t.ready.Notifications, Notification{Type: NotifyComplete, Checkpoint: id})
	// Alignments are ordered by id, and aborting one removes it.
	for len(t.alignments) > 0 && t.alignments[0].id < id {
		t.abortAlignment(t.alignments[0], ReasonSubsumed, false)
	}
	for i := 0; i < len(t.inflight); {
		if s := t.inflight[i]; s.id < id && s.kind == KindCheckpoint {
			t.dropInflight(i, ReasonSubsumed)
			continue
		}
		i++
	}
	n := 0
	for _, aborted := range t.abortsNotified {
		if aborted > id {
			t.abortsNotified[n] = aborted
			n++
		}
	}
	t.abortsNotified = t.abortsNotified[:n]
	switch {
	case t.finished && t.firstFinalID != 0 && id >= t.firstFinalID:
		t.exit()
	case t.stopAt != 0 && id == t.stopAt:
		t.exit() // the stop-with-savepoint completed: the job ends
	case id > t.stopAt:
		t.stopAt = 0 // nothing completes after a stop that succeeded
	}
}

// notifyAborted drops what the task still holds for id and passes the
// notification on unless id might be complete (at or below the last
// completion notification or the restored id) or was passed on already.
func (t *taskState) notifyAborted(id CheckpointID) {
	if a := t.findAlignment(id); a != nil {
		t.abortAlignment(a, ReasonAborted, false)
	} else if i := t.findInflight(id); i >= 0 {
		t.dropInflight(i, ReasonAborted)
	}
	// The barrier may still be on its way; it must be ignored.
	t.staleUpTo = max(t.staleUpTo, id)
	if id <= t.lastNotified || id <= t.restoredFrom || slices.Contains(t.abortsNotified, id) {
		return
	}
	if len(t.abortsNotified) >= t.cfg.MaxPendingCheckpoints {
		t.abortsNotified = t.abortsNotified[1:] // bounded window, oldest out
	}
	t.abortsNotified = append(t.abortsNotified, id)
	t.ready.Notifications = push(t.ready.Notifications, Notification{Type: NotifyAborted, Checkpoint: id})
	if id == t.stopAt {
		// The stop-with-savepoint failed: the job goes on. (A repeated notice
		// returned above; the first cleared it.)
		t.stopAt = 0
	}
}
