package protocol

import "slices"

// requestSnapshot asks the host for the snapshot of a. It fails (and asks
// nothing) when MaxPendingCheckpoints snapshots are already in flight: the
// bound keeps a task whose uploads hang from piling up requests.
func (t *taskState) requestSnapshot(a *alignment, awaitChannelState bool) bool {
	return t.requestSnapshotOf(a.id, a.kind, a.mode, a.timestamp, awaitChannelState)
}

func (t *taskState) requestSnapshotOf(id CheckpointID, kind Kind, mode Mode, at Time, awaitChannelState bool) bool {
	if len(t.inflight) >= t.cfg.MaxPendingCheckpoints {
		return false
	}
	if t.finished && t.firstFinalID == 0 {
		t.firstFinalID = id
	}
	switch {
	case kind.IsStop():
		t.stopAt = id
	case id > t.stopAt:
		// Nothing newer starts while a stop-with-savepoint is pending,
		// so it aborted: go on.
		t.stopAt = 0
	}
	t.inflight = append(t.inflight, inflightSnapshot{id: id, kind: kind, sealed: !awaitChannelState, final: t.finished})
	t.ready.Snapshots = push(t.ready.Snapshots, SnapshotRequest{
		Checkpoint:        id,
		Kind:              kind,
		Mode:              mode,
		AwaitChannelState: awaitChannelState,
		Final:             t.finished,
		Source:            len(t.cfg.Inputs) == 0,
		Timestamp:         at,
	})
	return true
}

func (t *taskState) snapshotCompleted(now Time, id CheckpointID, snap TaskSnapshot) error {
	t.begin(now)
	i := t.findInflight(id)
	if i < 0 {
		// Aborted (or subsumed) while the upload ran: nobody will read it.
		// Unless it is a repeated report of an acked snapshot, whose state
		// a checkpoint may hold.
		if snap.Handle != "" && !slices.Contains(t.acked, id) {
			t.ready.Released = push(t.ready.Released, StateRelease{Task: t.cfg.ID, Checkpoint: id, Snapshot: snap, Pieces: uploadedFor(snap.Shared, id)})
		}
		return ErrUnknownCheckpoint
	}
	if !t.inflight[i].sealed {
		return ErrChannelStateOpen
	}
	snap.Final = t.inflight[i].final
	snap.TakenFor = id
	t.inflight = slices.Delete(t.inflight, i, i+1)
	if len(t.acked) >= t.cfg.MaxPendingCheckpoints {
		t.acked = slices.Delete(t.acked, 0, 1)
	}
	t.acked = append(t.acked, id)
	t.ready.Messages = push(t.ready.Messages, AckMessage(t.cfg.ID, id, snap))
	return nil
}

func (t *taskState) snapshotFailed(now Time, id CheckpointID, reason Reason) error {
	t.begin(now)
	i := t.findInflight(id)
	if i < 0 {
		return ErrUnknownCheckpoint
	}
	if a := t.findAlignment(id); a != nil {
		// Still recording channel state for it: stop, and cancel it
		// downstream.
		t.abortAlignment(a, reason, true)
		return nil
	}
	t.dropInflight(i, reason)
	t.ready.Messages = push(t.ready.Messages, DeclineMessage(t.cfg.ID, id, reason))
	return nil
}

// uploadedFor returns the pieces uploaded for checkpoint id: a snapshot
// nobody took up releases those, and leaves the ones it reused to the
// checkpoints that hold them.
func uploadedFor(pieces []SharedPiece, id CheckpointID) []SharedPiece {
	var own []SharedPiece
	for _, p := range pieces {
		if !p.reusedIn(id) {
			own = append(own, p)
		}
	}
	return own
}
