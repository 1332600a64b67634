package protocol

// Stop-with-savepoint, as Flink's CheckpointCoordinator and scheduler run it
// since FLIP-147: the coordinator takes a synchronous savepoint
// (KindStopSavepoint) and asks for no other checkpoint while it is pending
// (one reserved before it still starts, ahead of it).
// Each source stops emitting once it took its snapshot for it, so the cut
// is the end of the job's output. If the savepoint completes, it becomes the
// latest restorable checkpoint (a failover before the job ends restores
// from it, never from an older checkpoint whose sinks would commit its
// records again), its completion is announced so that sinks commit up to
// it, every task exits once told, and the job is finished. If it aborts,
// the tasks are told as of any abort, the sources go on, and periodic
// checkpoints start again: the job keeps running.

//
// With drain (KindDrainSavepoint) each source ends its input before it takes
// its snapshot, so every task finishes and takes a final snapshot for the
// savepoint. Its sources cannot read on after that: if it aborts, the job
// fails over (ReasonDrainFailed) to the latest checkpoint before it, as
// Flink fails the tasks of a failed synchronous savepoint.

// stopWithSavepoint reserves a stop-with-savepoint of kind, with or without
// drain.
func (c *coordinatorState) stopWithSavepoint(now Time, kind Kind) (CheckpointID, error) {
	if err := c.refuseSavepoint("a stop-with-savepoint"); err != nil {
		return 0, err
	}
	p := c.reserve(now, kind)
	c.stopPending = p.id
	return p.id, nil
}

// stopEnded forgets the pending stop-with-savepoint id once it aborted or
// completed, so that checkpoints may be triggered again.
func (c *coordinatorState) stopEnded(id CheckpointID) {
	if c.stopPending == id {
		c.stopPending = 0
	}
}

// drainFailed fails the job over when p, a stop-with-savepoint with drain
// whose triggers went out, aborted for a reason that leaves the job running:
// its sources may have ended their input for it. One never triggered ended
// no input; a failover or the job's end needs nothing more.
func (c *coordinatorState) drainFailed(now Time, p *pendingCheckpoint, reason Reason) {
	triggered := p.phase == phaseCollecting || p.phase == phasePersisting
	if p.kind != KindDrainSavepoint || !triggered || reason == ReasonFailover || reason == ReasonJobFinished || c.jobFinished {
		return
	}
	c.requestFailover(now, ReasonDrainFailed)
}

// stopped ends the job once its stop-with-savepoint id completed: nothing
// is left to checkpoint, and the tasks exit when told of the completion.
// Completed like a checkpoint, and retained like one (a job that runs on
// after a failover from it lets it fall out of retention), its state is
// still the user's: the job never releases it. What is still pending ends with the job (older
// savepoints: the completion subsumed the checkpoints), as Flink's
// coordinator aborts its pending checkpoints when the job terminates; one
// whose metadata write is in flight ends with that write.
func (c *coordinatorState) stopped(now Time, id CheckpointID) {
	c.savepoints.remember(id)
	c.stopEnded(id)
	if !c.jobFinished {
		c.jobFinished = true
		c.ready.JobFinished = true
	}
	left := func(p *pendingCheckpoint) bool { return p.phase != phasePersisting }
	for p := c.nextPending(0, left); p != nil; p = c.nextPending(p.id, left) {
		c.abort(now, p, ReasonJobFinished, "")
	}
}
