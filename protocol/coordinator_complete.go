package protocol

import (
	"cmp"
	"slices"
)

func (c *coordinatorState) metadataPersisted(now Time, id CheckpointID, err error) {
	_, p := c.findPending(id)
	if p == nil || p.phase != phasePersisting {
		panic("protocol: coordinator: MetadataPersisted for checkpoint " + id.String() +
			" whose metadata was not being written")
	}
	if err != nil {
		c.abort(now, p, ReasonPersistFailed, "")
	} else {
		c.complete(now, p)
		// Nothing refers to p any more; the completed checkpoint has its
		// task states, which are the host's now.
		*p = pendingCheckpoint{flags: p.flags}
		c.sparePending = p
	}
	c.maybeEmitFailoverPlan()
	c.maybeTrigger(now)
}

// complete is the second half of completion, reached only once the host
// confirmed the metadata is durable. Only from here on may anything depend
// on the checkpoint: notifications (which let sinks commit), subsumption of
// older checkpoints, and discarding checkpoints that fall out of retention.
func (c *coordinatorState) complete(now Time, p *pendingCheckpoint) {
	c.removePending(p)
	cc := CompletedCheckpoint{
		ID:          p.id,
		Kind:        p.kind,
		TriggeredAt: p.triggeredAt,
		CompletedAt: p.ackedAt,
		Tasks:       p.states,
		Unassigned:  p.unassigned,
	}
	c.ready.Completed = append(c.ready.Completed, cc)
	if p.kind == KindSavepoint {
		// A savepoint commits nothing and subsumes nothing: tasks are
		// not told, and it stays out of the restorable list.
		c.savepoints.remember(p.id)
		return
	}
	if p.id > c.highestCompleted {
		// As in Flink's failure manager, only a completion newer than every
		// earlier one starts the failure count again: an older checkpoint
		// whose metadata write landed late says nothing about the newer
		// ones that failed since.
		c.failures = 0
	}
	c.haveCompletion = true
	c.lastCompletion = now
	c.highestCompleted = max(c.highestCompleted, p.id)
	c.subsume(now, p.id)
	at, _ := slices.BinarySearchFunc(c.completed, p.id, func(e CompletedCheckpoint, id CheckpointID) int { return cmp.Compare(e.ID, id) })
	c.completed = slices.Insert(c.completed, at, cc)
	if c.latestID() == cc.ID {
		c.markFullyFinished(now, &cc)
		c.broadcastNotifyComplete(now, cc.ID)
	}
	if cc.Kind.IsStop() {
		c.stopped(now, cc.ID)
	}
	c.applyRetention()
	c.requestFinalAgain()
}

// subsume aborts pending checkpoints older than id: the newer completed
// checkpoint makes them useless. Savepoints are kept (the user asked for
// them), and so are checkpoints whose metadata write is in flight: their
// write may already be durable, and pretending otherwise would leave the
// store and the coordinator disagreeing.
func (c *coordinatorState) subsume(now Time, id CheckpointID) {
	older := func(p *pendingCheckpoint) bool {
		return p.id < id && p.kind == KindCheckpoint && p.phase != phasePersisting
	}
	for p := c.nextPending(0, older); p != nil; p = c.nextPending(p.id, older) {
		c.abort(now, p, ReasonSubsumed, "")
	}
}

// applyRetention discards the oldest checkpoints beyond RetainedCheckpoints.
// It runs after the newer checkpoint's write was confirmed, so the store
// never holds fewer restorable checkpoints than before. A discarded
// checkpoint's state is released only where nothing else holds it: a
// finished task's final snapshot lives on in every later checkpoint.
func (c *coordinatorState) applyRetention() {
	extra := len(c.completed) - c.cfg.RetainedCheckpoints
	if extra <= 0 {
		return
	}
	// The discarded checkpoints go straight into the Ready; release reads
	// them from there once they left the retained list (it adds only to
	// Released).
	start := len(c.ready.Discarded)
	c.ready.Discarded = append(c.ready.Discarded, c.completed[:extra]...)
	c.completed = slices.Delete(c.completed, 0, extra)
	for _, cc := range c.ready.Discarded[start:] {
		for _, ts := range cc.Tasks {
			c.release(ts.Task, c.indexOf(ts.Task), cc.ID, ts.Snapshot)
		}
	}
}
