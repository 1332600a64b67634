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

func (c *coordinatorState) stopWithSavepoint(now Time) (CheckpointID, error) {
	if err := c.refuseSavepoint("a stop-with-savepoint"); err != nil {
		return 0, err
	}
	p := c.reserve(now, KindStopSavepoint)
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
