package protocol

import (
	"cmp"
	"slices"
)

// release lists uploaded state for deletion (CoordinatorReady.Released)
// unless something may still need it. The state was uploaded by task
// (index i in the topology, -1 for a task outside it) for checkpoint id.
// What keeps a handle alive:
//
//   - a completed savepoint's own uploads (savepoints belong to the user);
//   - a final snapshot of a checkpoint that completed and is no longer
//     retained (or may have, for an id the coordinator no longer knows):
//     it may have been carried over into later checkpoints and savepoints,
//     and the coordinator does not keep savepoints' contents to check.
//     Such a snapshot is left to the host. The leak is rare and bounded: a
//     task's final snapshot is carried over instead of uploaded again, so
//     a second final upload of one task reaches a completed checkpoint
//     only when several checkpoints were pending as it finished, or after
//     a failover made it finish again;
//   - a retained checkpoint or a pending one holding the same handle (a
//     duplicated ack, or a host whose storage gives identical uploads the
//     same handle).
//
// A fully finished task's current final snapshot needs no check of its own:
// the latest retained checkpoint always holds it.
func (c *coordinatorState) release(task TaskID, i int, id CheckpointID, snap TaskSnapshot) {
	taken := id
	if snap.TakenFor != 0 {
		taken = snap.TakenFor
	}
	switch {
	case snap.Handle == "":
		return
	case !c.restored.owns(taken):
		return // the restored checkpoint's, kept for its owner with all it refers to
	case c.savepoints.mayBe(id):
		return
	case snap.Final && id <= c.highestCompleted && !c.retained(id):
		return
	}
	if i >= 0 && c.handleHeld(i, snap.Handle) {
		return
	}
	var pieces []SharedPiece
	for _, p := range snap.Shared {
		if c.restored.owns(p.UploadedFor) && (i < 0 || !c.pieceHeld(i, p.Handle)) {
			pieces = append(pieces, p)
		}
	}
	c.ready.Released = push(c.ready.Released, StateRelease{Task: task, Checkpoint: id, Snapshot: snap, Pieces: pieces})
}

// pieceHeld reports whether a retained checkpoint or a pending checkpoint's
// acked snapshot of task i refers to the shared piece handle: the
// shared-state registry. It is rebuilt with the coordinator: a recovered one
// holds what the stored checkpoints refer to, and pieces only pending
// checkpoints of the crashed one referred to are the host's to collect.
// Pieces belong to one task, so only task i's snapshots are read.
func (c *coordinatorState) pieceHeld(i int, handle string) bool {
	for _, p := range c.pending {
		if p.acked != nil && p.acked[i] && refersTo(p.states[i].Snapshot.Shared, handle) {
			return true
		}
	}
	for k := range c.completed {
		if snap, ok := c.snapshotOf(&c.completed[k], i); ok && refersTo(snap.Shared, handle) {
			return true
		}
	}
	return false
}

// snapshotOf returns task i's snapshot in cc: at its position when cc is of the topology,
// looked up by name in the checkpoint of a rescaled restore.
func (c *coordinatorState) snapshotOf(cc *CompletedCheckpoint, i int) (TaskSnapshot, bool) {
	if i < len(cc.Tasks) && cc.Tasks[i].Task == c.topo.Tasks[i] {
		return cc.Tasks[i].Snapshot, true
	}
	return cc.Snapshot(c.topo.Tasks[i])
}

// indexOf returns task's position in the topology, -1 for a task outside it (an earlier
// job's, in the checkpoint of a rescaled restore).
func (c *coordinatorState) indexOf(task TaskID) int {
	if i, ok := c.taskIndex[task]; ok {
		return int(i)
	}
	return -1
}

func refersTo(pieces []SharedPiece, handle string) bool {
	for _, p := range pieces {
		if p.Handle == handle {
			return true
		}
	}
	return false
}

// reusesReleased reports whether snap, acked by task i for checkpoint p,
// reuses a piece the registry no longer holds: one that may already be
// deleted. A savepoint's reused pieces count as released: the registry
// keeps no piece for a savepoint's sake. So do the restored checkpoint's
// pieces after a no-claim restore: they are not the job's to build on.
func (c *coordinatorState) reusesReleased(p *pendingCheckpoint, i int, snap TaskSnapshot) bool {
	for _, piece := range snap.Shared {
		if piece.reusedIn(p.id) && (p.kind.IsSavepoint() || !c.restored.mayReuse(piece) || !c.pieceHeld(i, piece.Handle)) {
			return true
		}
	}
	return false
}

// handleHeld reports whether a pending or retained checkpoint holds handle
// for task i.
func (c *coordinatorState) handleHeld(i int, handle string) bool {
	for _, p := range c.pending {
		if p.acked != nil && p.acked[i] && p.states[i].Snapshot.Handle == handle {
			return true
		}
	}
	for k := range c.completed {
		if snap, ok := c.snapshotOf(&c.completed[k], i); ok && snap.Handle == handle {
			return true
		}
	}
	return false
}

// retained reports whether id is a retained checkpoint.
func (c *coordinatorState) retained(id CheckpointID) bool {
	_, found := slices.BinarySearchFunc(c.completed, id, func(e CompletedCheckpoint, id CheckpointID) int { return cmp.Compare(e.ID, id) })
	return found
}
