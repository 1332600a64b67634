package protocol

import "slices"

// announcer makes the last rule of the listener contract hold: once faults
// stop, every live task is eventually notified of the latest completed
// checkpoint and of the aborts it may be blocked on. Control messages may
// be lost, and without a newer checkpoint (Interval 0, or a finished job)
// nothing else would ever tell a task that its notification went missing:
// a two-phase-commit sink would keep its last transaction uncommitted, and
// a task aligning for an aborted savepoint would keep its inputs blocked.
// So the coordinator re-sends a notification that has not been sent for
// Config.Timeout: the latest completion to every task, and each abort
// newer than it to the tasks that took part. Tasks drop duplicates.
//
// The bound: a completion of n makes every older abort moot (a task drops
// whatever it holds for ids below a completed one), so only aborts above
// the latest completion are kept, at most MaxPendingCheckpoints of them,
// the oldest dropped first. A task blocked on an abort that fell out of
// that window is unblocked by the barriers of the next checkpoint.
type announcer struct {
	// completeSentAt is when the latest completion was last broadcast.
	completeSentAt Time
	aborts         []abortNotice
}

// abortNotice is one aborted checkpoint whose notification may be re-sent.
type abortNotice struct {
	id     CheckpointID
	reason Reason
	// tasks[i]: task i took part and was told.
	tasks  []bool
	sentAt Time
}

// next is when reannounce has work, NoDeadline if never.
func (a *announcer) next(c *coordinatorState) Time {
	if c.failingOverOrRequested() {
		return NoDeadline
	}
	deadline := NoDeadline
	if c.latestID() != 0 {
		deadline = a.completeSentAt.Add(c.cfg.Timeout)
	}
	for _, n := range a.aborts {
		deadline = min(deadline, n.sentAt.Add(c.cfg.Timeout))
	}
	return deadline
}

// reannounce re-sends every notification that has not gone out for Timeout.
func (c *coordinatorState) reannounce(now Time) {
	if c.failingOverOrRequested() {
		return
	}
	if latest := c.latestID(); latest != 0 && now >= c.announcer.completeSentAt.Add(c.cfg.Timeout) {
		c.broadcastNotifyComplete(now, latest)
	}
	for k := range c.announcer.aborts {
		if n := &c.announcer.aborts[k]; now >= n.sentAt.Add(c.cfg.Timeout) {
			c.sendNotifyAborted(n.id, n.reason, n.tasks)
			n.sentAt = now
		}
	}
}

// broadcastNotifyComplete tells every task, fully finished ones included
// (they wait for exactly this to exit), that id is complete. Aborts of
// older checkpoints need no more re-sending.
func (c *coordinatorState) broadcastNotifyComplete(now Time, id CheckpointID) {
	c.ready.Messages = grow(c.ready.Messages, len(c.topo.Tasks))
	for _, task := range c.topo.Tasks {
		c.ready.Messages = append(c.ready.Messages, NotifyCompleteMessage(task, id))
	}
	c.announcer.completeSentAt = now
	c.announcer.aborts = slices.DeleteFunc(c.announcer.aborts, func(n abortNotice) bool { return n.id < id })
}

// notifyAborted tells the tasks that took part in p that it aborted, and
// remembers the notice for re-sending unless a newer checkpoint completed.
func (c *coordinatorState) notifyAborted(now Time, p *pendingCheckpoint, reason Reason) {
	c.sendNotifyAborted(p.id, reason, p.expected)
	if p.id < c.latestID() {
		return
	}
	if len(c.announcer.aborts) >= c.cfg.MaxPendingCheckpoints {
		c.announcer.aborts = slices.Delete(c.announcer.aborts, 0, 1)
	}
	c.announcer.aborts = append(c.announcer.aborts, abortNotice{id: p.id, reason: reason, tasks: p.expected, sentAt: now})
}

func (c *coordinatorState) sendNotifyAborted(id CheckpointID, reason Reason, tasks []bool) {
	for i, took := range tasks {
		if took {
			c.ready.Messages = push(c.ready.Messages, NotifyAbortedMessage(c.topo.Tasks[i], id, reason))
		}
	}
}
