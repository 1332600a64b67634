package protocol

import "slices"

// savepointMemory remembers which ids are completed savepoints, so that the
// coordinator never releases state one of them holds: savepoints belong to
// the user. It keeps the newest MaxRetainedCheckpointsLimit ids; floor is
// the highest id forgotten to keep that bound, and every id at or below it
// is treated as a possible savepoint (leaking an upload is harmless,
// deleting the user's savepoint is not).
type savepointMemory struct {
	ids   []CheckpointID // ascending
	floor CheckpointID
}

func (s *savepointMemory) remember(id CheckpointID) {
	at, found := slices.BinarySearch(s.ids, id)
	if found {
		return
	}
	s.ids = slices.Insert(s.ids, at, id)
	if len(s.ids) > MaxRetainedCheckpointsLimit {
		s.floor = max(s.floor, s.ids[0])
		s.ids = slices.Delete(s.ids, 0, 1)
	}
}

// mayBe reports whether id is (or may be) a completed savepoint.
func (s *savepointMemory) mayBe(id CheckpointID) bool {
	if id <= s.floor {
		return true
	}
	_, found := slices.BinarySearch(s.ids, id)
	return found
}

// savepointsForced reports whether savepoints start as soon as their id is
// durable, beyond MaxConcurrent, as Flink forces them
// (CheckpointCoordinator.triggerSavepoint) unless unaligned checkpoints are
// enabled. In ModeAligned and ModeAtLeastOnce no barrier is ever sent with
// Priority, so nothing can overtake a concurrent savepoint's aligned barrier
// and a task sees every checkpoint's barriers in id order. With unaligned
// checkpoints (ModeUnaligned, and ModeAlignedWithTimeout, which may switch)
// a savepoint waits for a slot, as Flink's unforced request does.
func (c *coordinatorState) savepointsForced() bool {
	return c.cfg.Mode == ModeAligned || c.cfg.Mode == ModeAtLeastOnce
}

// savepointWaiting reports whether a savepoint was requested and has not
// started: checkpoints wait behind it, so a savepoint is never starved by
// periodic checkpoints taking every MaxConcurrent slot.
func (c *coordinatorState) savepointWaiting() bool {
	for _, p := range c.pending {
		if p.kind.IsSavepoint() && (p.phase == phaseReserving || p.phase == phaseQueued) {
			return true
		}
	}
	return false
}

// startQueuedSavepoints starts queued savepoints, oldest first, while
// MaxConcurrent allows. Only a job with unaligned checkpoints queues them
// (savepointsForced). Its timeout runs from the trigger (as every
// checkpoint's does): the wait for a slot is bounded by the timeouts of the
// checkpoints ahead of it.
func (c *coordinatorState) startQueuedSavepoints(now Time) {
	queued := func(p *pendingCheckpoint) bool { return p.phase == phaseQueued }
	for p := c.nextPending(0, queued); p != nil; p = c.nextPending(p.id, queued) {
		if c.jobFinished {
			// Queued behind the completion that showed every task done: as
			// with a checkpoint still reserving then (counterPersisted),
			// nothing is left to record, so it is never triggered.
			c.abort(now, p, ReasonJobFinished, "")
			continue
		}
		if c.slotsInUse() >= c.cfg.MaxConcurrent {
			return
		}
		c.trigger(now, p)
	}
}
