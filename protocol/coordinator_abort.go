package protocol

// abort ends a pending checkpoint without completion. The tasks that were
// asked to take part are told (unless no trigger was sent, or the job is
// failing over and the tasks are about to be replaced), the snapshots
// uploaded for it are released, and a failure is counted when the reason
// says something is wrong.
func (c *coordinatorState) abort(now Time, p *pendingCheckpoint, reason Reason, task TaskID) {
	c.removePending(p)
	c.stopEnded(p.id)
	c.ready.Aborted = push(c.ready.Aborted, Abort{Checkpoint: p.id, Kind: p.kind, Reason: reason, Task: task})
	if p.phase == phaseCollecting || p.phase == phasePersisting {
		for i, acked := range p.acked {
			if acked && !p.carried[i] {
				c.release(p.states[i].Task, i, p.id, p.states[i].Snapshot)
			}
		}
		if reason != ReasonFailover {
			c.notifyAborted(now, p, reason)
		}
	}
	c.drainFailed(now, p, reason)
	if c.countsAsFailure(p, reason) {
		c.failures++
		if c.failures > c.cfg.TolerableFailures {
			c.requestFailover(now, ReasonTolerableFailuresExceeded)
		}
	}
	c.requestFinalAgain()
}

// requestFinalAgain asks for the final checkpoint again when every task has
// finished its input, the job has not, and no checkpoint is left pending
// that could still finish it: the one asked for aborted, or completed
// without every final snapshot. With periodic checkpoints the next one is
// the final one; with Interval 0 nothing else would ever be triggered, and
// the finished tasks, which wait for a completed checkpoint to exit, would
// wait for ever.
func (c *coordinatorState) requestFinalAgain() {
	if c.cfg.Interval > 0 || c.jobFinished || c.failingOverOrRequested() || !c.allTasksFinished() {
		return
	}
	for _, p := range c.pending {
		if p.kind == KindCheckpoint {
			return
		}
	}
	c.manualRequested = true
}

// countsAsFailure decides whether an abort counts towards
// TolerableFailures. Only checkpoints count (a savepoint is the user's
// request, not the job's health), only for reasons that say something is
// wrong, and, as in Flink's failure manager, only checkpoints newer than
// the latest completed one: an older one failing (its metadata write, say)
// changes nothing about whether the job makes progress. Once the job has
// finished nothing counts: there is nothing left to fail over.
func (c *coordinatorState) countsAsFailure(p *pendingCheckpoint, reason Reason) bool {
	return p.kind == KindCheckpoint && reason.CountsAsFailure() &&
		p.id > c.highestCompleted && !c.jobFinished
}

// expire aborts checkpoints pending for longer than Timeout. A checkpoint
// whose metadata write is in flight does not expire: only the host knows
// whether the write landed, so the coordinator waits for its answer.
func (c *coordinatorState) expire(now Time) {
	expired := func(p *pendingCheckpoint) bool { return p.phase != phasePersisting && now >= p.deadline }
	for p := c.nextPending(0, expired); p != nil; p = c.nextPending(p.id, expired) {
		c.abort(now, p, ReasonExpired, "")
	}
}

func (c *coordinatorState) requestFailover(now Time, reason Reason) {
	if c.failingOverOrRequested() {
		return
	}
	c.failoverRequested = true
	c.failoverReason = reason
	c.manualRequested = false
	ending := func(p *pendingCheckpoint) bool { return p.phase != phasePersisting }
	for p := c.nextPending(0, ending); p != nil; p = c.nextPending(p.id, ending) {
		c.abort(now, p, ReasonFailover, "")
	}
	c.maybeEmitFailoverPlan()
}

// maybeEmitFailoverPlan hands out the plan once no metadata write is in
// flight. Waiting matters: a write in flight may be durable already, and a
// plan naming an older checkpoint would then send the job behind a
// checkpoint that a later recovery would find in the store.
func (c *coordinatorState) maybeEmitFailoverPlan() {
	if !c.failoverRequested {
		return
	}
	for _, p := range c.pending {
		if p.phase == phasePersisting {
			return
		}
	}
	c.failoverRequested = false
	if c.jobFinished && c.failoverReason == ReasonTolerableFailuresExceeded {
		// The write waited for was the final checkpoint: the job is
		// over, and restarting it would only make every task exit again.
		// A failover the host asked for is still honoured.
		return
	}
	c.failingOver = true
	c.nextPeriodic = NoDeadline
	// The tasks that missed an abort are being replaced.
	c.announcer.aborts = nil
	c.ready.Failover = &FailoverPlan{Reason: c.failoverReason, Restore: c.latestRestorable()}
}

// jobRestarted resumes checkpointing after a failover. Which tasks are fully
// finished is what the restored checkpoint says, nothing more: tasks that
// finished after it run again. The restored tasks know the latest
// completion (they were restored from it), so the next re-announcement is
// a whole Timeout away.
func (c *coordinatorState) jobRestarted(now Time) {
	if !c.failingOver {
		panic("protocol: coordinator: JobRestarted without a failover plan")
	}
	c.failingOver = false
	c.failures = 0
	clear(c.finished)
	clear(c.fullyFinishedTasks)
	clear(c.finalSnapshots)
	c.fullyFinishedCount = 0
	c.jobFinished = false
	c.splits.reset(c.latestRestorable())
	if latest := c.latestRestorable(); latest != nil {
		c.markFullyFinished(now, latest)
	}
	c.announcer.completeSentAt = now
	c.schedulePeriodic(now)
	c.maybeTrigger(now)
}
