package protocol

import "time"

// schedulePeriodic draws the delay of the first periodic trigger after now:
// uniform in [MinPause, Interval]. The jitter spreads the first checkpoints
// of jobs started together; drawing it from the injected source keeps runs
// replayable.
func (c *coordinatorState) schedulePeriodic(now Time) {
	if c.cfg.Interval <= 0 {
		c.nextPeriodic = NoDeadline
		return
	}
	delay := c.cfg.MinPause
	if span := c.cfg.Interval - c.cfg.MinPause; span > 0 {
		// The modulo bias is below 2^-30 for any span that fits in an
		// int64 of nanoseconds; irrelevant for a jitter.
		delay += time.Duration(c.random.Uint64() % (uint64(span) + 1))
	}
	c.nextPeriodic = now.Add(delay)
}

// slotsInUse counts what MaxConcurrent bounds (see occupiesSlot).
func (c *coordinatorState) slotsInUse() int {
	n := 0
	for _, p := range c.pending {
		if p.occupiesSlot() {
			n++
		}
	}
	return n
}

// mayTriggerCheckpoint reports whether limits allow a new checkpoint now,
// apart from timing.
func (c *coordinatorState) mayTriggerCheckpoint() bool {
	return !c.failingOverOrRequested() && !c.jobFinished && c.stopPending == 0 &&
		c.slotsInUse() < c.cfg.MaxConcurrent && !c.savepointWaiting() &&
		len(c.pending) < c.cfg.MaxPendingCheckpoints
}

// pauseOver is the earliest time MinPause allows the next periodic trigger.
func (c *coordinatorState) pauseOver() Time {
	if !c.haveCompletion {
		return -1 << 63
	}
	return c.lastCompletion.Add(c.cfg.MinPause)
}

// maybeTrigger starts what is due: queued savepoints first, then a manual
// or periodic checkpoint. Every input ends with it, so whatever was held
// back by MaxConcurrent starts as soon as the completion or abort that
// frees a slot is handled.
func (c *coordinatorState) maybeTrigger(now Time) {
	if c.failingOverOrRequested() {
		return
	}
	c.startQueuedSavepoints(now)
	if !c.mayTriggerCheckpoint() {
		return
	}
	if c.manualRequested {
		c.manualRequested = false
		c.reserve(now, KindCheckpoint)
		return
	}
	if c.nextPeriodic != NoDeadline && now >= c.nextPeriodic && now >= c.pauseOver() {
		c.nextPeriodic = now.Add(c.cfg.Interval)
		c.reserve(now, KindCheckpoint).periodic = true
	}
}

// reserve takes the next id and asks the host to make the counter durable;
// the checkpoint is triggered only when that write is confirmed, so a
// recovering coordinator can never hand out an id a task has already seen.
func (c *coordinatorState) reserve(now Time, kind Kind) *pendingCheckpoint {
	if len(c.pending) >= c.cfg.MaxPendingCheckpoints {
		assertionFailed("coordinator", "reserve beyond MaxPendingCheckpoints")
	}
	c.highestID++
	mode := c.cfg.Mode
	if kind.IsSavepoint() {
		mode = ModeAligned
	}
	p := c.sparePending
	if p != nil {
		c.sparePending = nil
	} else {
		p = &pendingCheckpoint{}
	}
	p.id, p.kind, p.mode, p.phase, p.periodic = c.highestID, kind, mode, phaseReserving, false
	// The timeout runs from the trigger, as Flink's runs from the pending
	// checkpoint, which exists only once the id counter has answered. A
	// reservation ends with that answer, never by expiring: the host knows
	// whether the write failed, and only a failed write is a failure
	// (ReasonTriggerFailed, counted once per id like any other).
	p.requestedAt, p.deadline = now, NoDeadline
	c.pending = append(c.pending, p)
	c.writeCounter()
	return p
}

// writeCounter asks for a write of the highest reserved id, unless a counter
// write is outstanding: then the ids reserved meanwhile are covered by the
// write that follows its confirmation. One write at a time means the stored
// counter only ever grows, whatever order the host's storage would have
// applied overlapping writes in.
func (c *coordinatorState) writeCounter() {
	if c.counterWriting != 0 {
		return
	}
	c.counterWriting = c.highestID
	c.ready.CounterWrites = push(c.ready.CounterWrites, c.highestID)
}

func (c *coordinatorState) triggerCheckpoint(now Time) error {
	switch {
	case c.failingOverOrRequested():
		return ErrFailingOver
	case c.jobFinished:
		return ErrJobFinished
	}
	c.manualRequested = true
	c.maybeTrigger(now)
	return nil
}

func (c *coordinatorState) triggerSavepoint(now Time) (CheckpointID, error) {
	if err := c.refuseSavepoint("a savepoint"); err != nil {
		return 0, err
	}
	p := c.reserve(now, KindSavepoint)
	return p.id, nil
}

// refuseSavepoint says why a savepoint or stop-with-savepoint (what) cannot be
// reserved now, nil if it can.
func (c *coordinatorState) refuseSavepoint(what string) error {
	switch {
	case c.failingOverOrRequested():
		return ErrFailingOver
	case c.jobFinished:
		return ErrJobFinished
	case c.stopPending != 0:
		return ErrStopPending
	case c.cycle != nil:
		return cycleError(c.cycle, what+" (always aligned)")
	case len(c.pending) >= c.cfg.MaxPendingCheckpoints:
		return ErrTooManyPending
	}
	return nil
}

func (c *coordinatorState) counterPersisted(now Time, value CheckpointID, err error) {
	if value == 0 || value != c.counterWriting {
		panic("protocol: coordinator: CounterPersisted(" + value.String() + ") for a write never asked for (outstanding: " +
			c.counterWriting.String() + ")")
	}
	c.counterWriting = 0
	// One at a time by id: triggering or aborting one may end others (a
	// failure that asks for a failover).
	reserved := func(p *pendingCheckpoint) bool { return p.phase == phaseReserving && p.id <= value }
	for p := c.nextPending(0, reserved); p != nil; p = c.nextPending(p.id, reserved) {
		switch {
		case err != nil:
			c.abort(now, p, ReasonTriggerFailed, "")
		case c.jobFinished:
			// Reserved before the completion that showed every task done: there is
			// nothing left for it to record, so it is never triggered.
			c.abort(now, p, ReasonJobFinished, "")
		case p.kind.IsSavepoint() && !c.savepointsForced() && c.slotsInUse() >= c.cfg.MaxConcurrent:
			p.phase = phaseQueued
			p.deadline = NoDeadline
		default:
			c.trigger(now, p)
		}
	}
	for _, p := range c.pending {
		if p.phase == phaseReserving {
			c.writeCounter() // reserved while this write was outstanding
			break
		}
	}
	c.maybeTrigger(now)
}

// trigger sends the triggers of a reserved checkpoint. Tasks that fully
// finished are carried over with their final snapshot and expect nothing.
// Triggers go to every other task none of whose upstream tasks is still
// running: sources, and finished tasks whose upstreams are gone, which
// would otherwise never see a barrier.
func (c *coordinatorState) trigger(now Time, p *pendingCheckpoint) {
	n := len(c.topo.Tasks)
	p.phase = phaseCollecting
	p.triggeredAt, p.deadline = now, now.Add(c.cfg.Timeout)
	if len(p.flags) == 3*n {
		clear(p.flags) // the tables of a completed checkpoint
	} else {
		p.flags = make([]bool, 3*n)
	}
	p.expected, p.acked, p.carried = p.flags[:n:n], p.flags[n:2*n:2*n], p.flags[2*n:]
	p.states = make([]TaskState, n)
	p.unassigned = c.splits.state()
	c.ready.Messages = grow(c.ready.Messages, c.triggerCount())
	for i, task := range c.topo.Tasks {
		p.states[i].Task = task
		if c.fullyFinishedTasks[i] {
			p.acked[i], p.carried[i] = true, true
			p.states[i].Snapshot = c.finalSnapshots[i]
			continue
		}
		p.expected[i] = true
		p.remaining++
		if c.upstreamsFullyFinished(i) {
			m := TriggerMessage(task, p.id, p.kind, p.mode, now)
			m.Seq = c.splits.sent[task] // the split messages sent before it
			c.ready.Messages = append(c.ready.Messages, m)
		}
	}
	c.ready.Triggered = push(c.ready.Triggered, TriggeredCheckpoint{ID: p.id, Kind: p.kind, Mode: p.mode, At: now,
		Periodic: p.periodic, RequestedAt: p.requestedAt, Unassigned: p.unassigned})
	if p.remaining == 0 {
		// Every task fully finished while the id was being reserved:
		// the checkpoint consists of final snapshots only and is
		// complete as soon as it is durable.
		c.allAcked(now, p)
	}
}

// triggerCount is how many tasks trigger will address, so the message slice
// grows once instead of doubling its way up through thousands of entries.
func (c *coordinatorState) triggerCount() int {
	n := 0
	for i := range c.topo.Tasks {
		if !c.fullyFinishedTasks[i] && c.upstreamsFullyFinished(i) {
			n++
		}
	}
	return n
}

func (c *coordinatorState) upstreamsFullyFinished(i int) bool {
	for _, u := range c.upstream[i] {
		if !c.fullyFinishedTasks[u] {
			return false
		}
	}
	return true
}

func (c *coordinatorState) tick(now Time) {
	c.expire(now)
	c.reannounce(now)
	c.maybeTrigger(now)
}

func (c *coordinatorState) nextDeadline() Time {
	deadline := c.announcer.next(c)
	for _, p := range c.pending {
		if p.phase != phasePersisting {
			deadline = min(deadline, p.deadline)
		}
	}
	if c.mayTriggerCheckpoint() && c.nextPeriodic != NoDeadline {
		deadline = min(deadline, max(c.nextPeriodic, c.pauseOver()))
	}
	return deadline
}
