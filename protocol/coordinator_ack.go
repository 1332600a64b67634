package protocol

func (c *coordinatorState) step(now Time, m Message) error {
	var err error
	switch m.Type {
	case MsgAck:
		err = c.ack(now, m)
	case MsgDecline:
		err = c.decline(now, m)
	case MsgTaskFinished:
		err = c.taskFinished(now, m)
	default:
		return ErrUnexpectedMessage
	}
	c.maybeTrigger(now)
	return err
}

// ack records one task's snapshot. It is the coordinator's hot path (one
// call per task per checkpoint): a map lookup, a scan of the few pending
// checkpoints, a few stores; no allocation unless the ack completes the
// checkpoint.
func (c *coordinatorState) ack(now Time, m Message) error {
	i, ok := c.taskIndex[m.Task]
	if !ok {
		c.release(m.Task, -1, m.Checkpoint, m.Snapshot)
		return ErrUnknownTask
	}
	_, p := c.findPending(m.Checkpoint)
	if p == nil || p.phase != phaseCollecting || !p.expected[i] || p.acked[i] {
		// Late (the checkpoint ended), duplicate, from a task that was
		// not asked, or from an earlier incarnation: nothing will use
		// this snapshot, unless it is the very snapshot already held
		// (a duplicated message), which must stay.
		c.release(m.Task, int(i), m.Checkpoint, m.Snapshot)
		return ErrUnknownCheckpoint
	}
	p.acked[i] = true
	p.states[i].Snapshot = m.Snapshot
	p.remaining--
	if p.remaining < 0 {
		panic("protocol: coordinator: checkpoint " + p.id.String() + " has more acks than tasks")
	}
	if p.remaining == 0 {
		c.allAcked(now, p)
	}
	return nil
}

// release lists a snapshot the protocol will not use, unless a pending or
// retained checkpoint (or a fully finished task's final state) refers to
// the same handle: a duplicated ack must not delete live state.
func (c *coordinatorState) release(task TaskID, i int, id CheckpointID, snap TaskSnapshot) {
	if snap.Handle == "" || c.mayHoldSavepointState(id) {
		// A late ack of a completed savepoint is left alone: leaking an
		// upload is harmless, deleting the user's savepoint is not.
		return
	}
	if i >= 0 {
		if c.fullyFinishedTasks[i] && c.finalSnapshots[i].Handle == snap.Handle {
			return
		}
		for _, p := range c.pending {
			if p.acked != nil && p.acked[i] && p.states[i].Snapshot.Handle == snap.Handle {
				return
			}
		}
		for k := range c.completed {
			if c.completed[k].Tasks[i].Snapshot.Handle == snap.Handle {
				return
			}
		}
	}
	c.ready.Released = append(c.ready.Released, StateRelease{Task: task, Checkpoint: id, Snapshot: snap})
}

// allAcked starts the first half of completion: the metadata goes to the
// host for the completed-checkpoint store. Nothing is visible yet; a crash
// now leaves the checkpoint either absent from the store (never complete)
// or present (complete, and the next incarnation re-announces it).
func (c *coordinatorState) allAcked(now Time, p *pendingCheckpoint) {
	p.phase = phasePersisting
	p.ackedAt = now
	c.ready.MetadataWrites = append(c.ready.MetadataWrites, CompletedCheckpoint{
		ID:          p.id,
		Kind:        p.kind,
		TriggeredAt: p.triggeredAt,
		CompletedAt: now,
		Tasks:       p.states,
	})
}

func (c *coordinatorState) decline(now Time, m Message) error {
	i, ok := c.taskIndex[m.Task]
	if !ok {
		return ErrUnknownTask
	}
	_, p := c.findPending(m.Checkpoint)
	if p == nil || p.phase != phaseCollecting || !p.expected[i] || p.acked[i] {
		// A task that acked cannot take its ack back; a decline from it is
		// a stale trigger being refused and must not abort the checkpoint.
		// A late decline is as useless as a late ack.
		return ErrUnknownCheckpoint
	}
	c.abort(now, p, m.Reason, m.Task)
	return nil
}

// taskFinished notes that a task produced its last record. When every task
// that is not fully finished has finished, a checkpoint is requested at
// once: it is the final checkpoint that lets them all exit, and waiting a
// whole interval for it would only delay the end of the job.
func (c *coordinatorState) taskFinished(now Time, m Message) error {
	i, ok := c.taskIndex[m.Task]
	if !ok {
		return ErrUnknownTask
	}
	if c.failoverRequested || c.failingOver {
		return nil // a message from an incarnation that is being replaced
	}
	c.finished[i] = true
	for k := range c.finished {
		if !c.finished[k] && !c.fullyFinishedTasks[k] {
			return nil
		}
	}
	if c.cfg.Interval > 0 && !c.jobFinished {
		c.manualRequested = true
	}
	return nil
}
