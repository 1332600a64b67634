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
	case MsgSplitRequest:
		err = c.splitRequest(m)
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
		// not asked or whose final snapshot stands in for it, or from an
		// earlier incarnation: nothing will use this snapshot, unless it
		// is the very snapshot already held (a duplicated message).
		c.release(m.Task, int(i), m.Checkpoint, m.Snapshot)
		return ErrUnknownCheckpoint
	}
	if c.reusesReleased(p, int(i), m.Snapshot) {
		// The checkpoint would hold state that may be gone: it cannot
		// complete. The snapshot's own uploads go with it.
		c.release(m.Task, int(i), m.Checkpoint, m.Snapshot)
		c.abort(now, p, ReasonSharedStateGone, m.Task)
		return nil
	}
	c.fill(now, p, int(i), m.Snapshot, false)
	return nil
}

// fill puts task i's snapshot into p, and starts completion when it was the
// last one missing. An acked snapshot was taken for p whatever the message
// said (a host's codec may drop TakenFor); a carried one keeps its own.
func (c *coordinatorState) fill(now Time, p *pendingCheckpoint, i int, snap TaskSnapshot, carried bool) {
	if !carried {
		snap.TakenFor = p.id
	}
	p.acked[i] = true
	p.carried[i] = carried
	p.states[i].Snapshot = snap
	p.remaining--
	if p.remaining < 0 {
		assertionFailed("coordinator", "checkpoint "+p.id.String()+" has more snapshots than tasks")
	}
	if p.remaining == 0 {
		c.allAcked(now, p)
	}
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
		Unassigned:  p.unassigned,
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
		// a stale trigger or barrier being refused and must not abort the
		// checkpoint. Nor may a task whose final snapshot already stands
		// in for it, or one that was never asked. A late decline is as
		// useless as a late ack.
		return ErrUnknownCheckpoint
	}
	c.abort(now, p, m.Reason, m.Task)
	return nil
}
