package protocol

import "fmt"

// taskFinished notes that a task produced its last record. When every task
// that is not fully finished has finished, a checkpoint is requested at
// once, with or without periodic checkpoints: it is the final checkpoint
// that lets them all exit (and commits a two-phase-commit sink's last
// transaction), and waiting a whole interval, or forever with Interval 0,
// would only delay the end of the job.
func (c *coordinatorState) taskFinished(now Time, m Message) error {
	i, ok := c.taskIndex[m.Task]
	if !ok {
		return ErrUnknownTask
	}
	if c.failingOverOrRequested() {
		return nil // a message from an incarnation that is being replaced
	}
	if c.finished[i] {
		return nil // told again (TaskConfig.FinishedResend): the first one counted
	}
	c.finished[i] = true
	if c.allTasksFinished() && !c.jobFinished {
		c.manualRequested = true
	}
	return nil
}

// allTasksFinished reports whether every task has finished its input or is
// fully finished: the next completed checkpoint is the final one.
func (c *coordinatorState) allTasksFinished() bool {
	for k := range c.finished {
		if !c.finished[k] && !c.fullyFinishedTasks[k] {
			return false
		}
	}
	return true
}

// markFullyFinished records the tasks whose snapshot in cc, the latest
// retained checkpoint, is final, and keeps that snapshot as the one later
// checkpoints carry over (so the latest retained checkpoint always holds
// every fully finished task's final snapshot).
//
// A pending checkpoint newer than cc still waiting for such a task stops
// waiting: the final snapshot is the task's state at any later cut too (it
// produces no record after it finished), and the task exits as soon as it
// is notified of cc, dropping whatever it was doing for newer checkpoints.
// Without this those checkpoints could only expire, and their expiry would
// fail over a job whose every task may have finished. A pending checkpoint
// older than cc (a savepoint: cc subsumed the older checkpoints) cannot take
// the final snapshot, which is the task's state after its cut, not at it:
// the task's records between the two cuts would be counted on both sides.
// Its own snapshot from the task will not come either, since the task exits,
// so it is aborted (ReasonTaskFinished, which is no failure).
func (c *coordinatorState) markFullyFinished(now Time, cc *CompletedCheckpoint) {
	if c.restored.earlierJob(cc) {
		return // of other tasks, and without a final snapshot (checkRescaled)
	}
	for i := range cc.Tasks {
		snap := cc.Tasks[i].Snapshot
		if !snap.Final {
			if c.fullyFinishedTasks[i] {
				assertionFailed("coordinator", fmt.Sprintf("fully finished task %s has a non-final snapshot in checkpoint %v",
					cc.Tasks[i].Task, cc.ID))
			}
			continue
		}
		c.finalSnapshots[i] = snap
		if c.fullyFinishedTasks[i] {
			continue
		}
		c.fullyFinishedTasks[i] = true
		c.fullyFinishedCount++
		// Filling the last missing snapshot starts a metadata write but
		// never removes a pending checkpoint, so ranging is safe.
		for _, p := range c.pending {
			if p.id > cc.ID && p.phase == phaseCollecting && p.expected[i] && !p.acked[i] {
				c.fill(now, p, i, snap, true)
			}
		}
	}
	stranded := func(p *pendingCheckpoint) bool {
		if p.id >= cc.ID || p.phase != phaseCollecting {
			return false
		}
		for i, done := range c.fullyFinishedTasks {
			if done && p.expected[i] && !p.acked[i] {
				return true
			}
		}
		return false
	}
	for p := c.nextPending(0, stranded); p != nil; p = c.nextPending(p.id, stranded) {
		c.abort(now, p, ReasonTaskFinished, "")
	}
	if c.fullyFinishedCount == len(c.topo.Tasks) && !c.jobFinished {
		c.jobFinished = true
		c.ready.JobFinished = true
	}
}
