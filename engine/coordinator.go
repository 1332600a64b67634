package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// coordinatorName is the process name (and trace task) of the coordinator.
const coordinatorName = string(protocol.CoordinatorTask)

// taskControl wraps a task's message to the coordinator with the job attempt the task
// belongs to, so that a message of a cancelled attempt still in flight (a task-finished,
// say) is not taken for one of the attempt that replaced it.
type taskControl struct {
	attempt int
	msg     protocol.Message
}

// coordinator is one incarnation of the job manager: it steps a protocol.Coordinator, does
// the durable writes it asks for, sends its messages, and runs failovers. Everything it
// needs after a crash is in storage: the id counter and the completed-checkpoint store.
type coordinator struct {
	coordinatorIncarnation
	proto *protocol.Coordinator // nil while the incarnation reads storage
	// stopped: the job is done (every task exited), so nothing is left to re-send and no
	// tick is armed any more.
	stopped bool

	// stored is the completed-checkpoint store as last confirmed durable; metaQueue holds
	// metadata writes not yet done. Writes go one at a time, each replacing the store
	// with stored plus the next checkpoint, so a failed write leaves the store as it was.
	stored         []protocol.CompletedCheckpoint
	storedHandles  map[string]int // state handle -> checkpoints in stored that name it (setStored)
	metaQueue      []protocol.CompletedCheckpoint
	metaWriting    bool
	metaWrite      metadataWrite // the write in flight, while metaWriting
	metaRetryArmed bool
	completedSlots slotPair
	metaEncoder    completedEncoder // renders the store's writes, reusing checkpoints' encodings
	// discarded marks the stored checkpoints the protocol dropped from retention, until a
	// store without them is durable.
	discarded map[protocol.CheckpointID]bool
	// heldReleases are released state a discarded checkpoint in the durable store still
	// names: it is deleted once a store without it is durable, so that the store never
	// names deleted state.
	heldReleases []protocol.StateRelease

	counter idCounter
	// deferredAborts are aborts of ids the durable counter does not cover yet (see
	// traceAbort).
	deferredAborts []protocol.Abort
	// heldMetadata are outcomes of metadata writes, and heldFailover a failover plan,
	// that wait for a counted abort among deferredAborts to be traced (see
	// holdsForCountedAbort); heldFailover is nil if none.
	heldMetadata []metadataOutcome
	heldFailover *protocol.FailoverPlan

	tick deadlineTimer

	// Failover: restarting is set between a failover plan and JobRestarted, which comes
	// once every task of the new attempt runs again (starting counts those still to
	// report, once the attempt is deployed); restartAgain remembers a failure of the new
	// attempt reported meanwhile.
	restarting   bool
	starting     int
	restartAgain bool
	plan         protocol.FailoverPlan
	readRetries  int
}

func (c *coordinator) now() protocol.Time { return protocol.Time(c.rt.env.Now()) }

// begin starts the incarnation. The first incarnation of a job starts it fresh; a later
// one reads the counter and the completed-checkpoint store, rebuilds the protocol
// coordinator from them and restarts the job from the latest completed checkpoint.
func (c *coordinator) begin(first bool) {
	c.discarded = make(map[protocol.CheckpointID]bool)
	c.counter.slots = newSlotPair(counterKey)
	c.completedSlots = newSlotPair(completedKey)
	if first {
		if !c.build(protocol.Durable{}) {
			return
		}
		c.deployFirst()
		c.handleReady()
		return
	}
	c.readDurable()
}

// build makes the protocol's coordinator from d. The engine validated the configuration
// and wrote d itself, so a refusal breaks the contract (contractStart): the job halts, and
// build reports false.
func (c *coordinator) build(d protocol.Durable) bool {
	proto, err := protocol.NewCoordinator(c.rt.cfg.Checkpoint, c.rt.topology(), d, c.now())
	if err != nil {
		c.rt.breakContract(CoordinatorName, 0, contractStart, err.Error())
		return false
	}
	c.proto = proto
	c.setStored(d.Completed)
	c.counter.durable = d.HighestID
	return true
}

// readDurable reads the counter, then the store, each from the newest of its two slots
// that reads back intact, retrying after a failed read.
func (c *coordinator) readDurable() {
	retry := func() {
		c.readRetries++
		c.proc.After(c.rt.cfg.StorageRetry, c.readDurable)
	}
	var d protocol.Durable
	acceptCounter := func(payload []byte) bool {
		id, err := decodeCounter(payload)
		d.HighestID = id
		return err == nil
	}
	acceptCompleted := func(payload []byte) bool {
		cps, err := decodeCompleted(payload)
		d.Completed = cps
		return err == nil
	}
	readSlots(c.proc, &c.counter.slots, acceptCounter, func(found bool, err error) {
		if err != nil {
			retry()
			return
		}
		if !found {
			d.HighestID = 0
		}
		readSlots(c.proc, &c.completedSlots, acceptCompleted, func(found bool, err error) {
			if err != nil {
				retry()
				return
			}
			if !found {
				d.Completed = nil
			}
			c.recovered(d)
		})
	})
}

// recovered builds the protocol's coordinator from what the store held and restarts the job
// from the latest completed checkpoint, unless the job finished while this incarnation read
// the store (its predecessor completed the final checkpoint before it crashed): a finished
// job is over, as for StartCoordinator.
func (c *coordinator) recovered(d protocol.Durable) {
	if c.rt.finishTraced {
		return
	}
	c.rt.ownView(&d)
	if !c.build(d) {
		return
	}
	var latest uint64
	if cp := c.proto.LatestRestorable(); cp != nil {
		latest = uint64(cp.ID)
	}
	c.trace(trace.Event{Kind: trace.KindCoordinatorRecover, CP: latest})
	c.proto.RequestFailover(c.now(), protocol.ReasonCoordinatorRecovery)
	c.handleReady()
}

// Receive implements Process.
func (c *coordinator) Receive(from string, msg any) {
	m, ok := msg.(*taskControl)
	if !ok {
		panic(invariantf("engine: coordinator: unexpected message %T from %s", msg, from))
	}
	if c.proto == nil || c.dead || m.attempt != c.rt.attempt && m.msg.Type != protocol.MsgAck {
		return
	}
	// Late, duplicate and unknown messages are expected; the protocol releases their state,
	// an ack of a replaced attempt's included: its checkpoint ended with the failover, and
	// its snapshot would otherwise stay in storage for good (Flink's discardSubtaskState).
	_ = c.proto.Step(c.now(), m.msg)
	c.handleReady()
}

func (c *coordinator) taskFailed(attempt int) {
	if c.proto == nil || c.dead || attempt != c.rt.attempt {
		return
	}
	if c.restarting {
		c.restartAgain = true
		if c.starting > 0 {
			// A task of the deployed attempt died before every task ran: the restart
			// is over, and failed.
			c.restarted()
		}
		return
	}
	c.proto.RequestFailover(c.now(), protocol.ReasonTaskFailure)
	c.handleReady()
}

// taskRunning counts a task of the deployed attempt that runs; the last one ends the
// restart.
func (c *coordinator) taskRunning(attempt int) {
	if c.proto == nil || c.dead || attempt != c.rt.attempt || !c.restarting || c.starting == 0 {
		return
	}
	c.starting--
	if c.starting == 0 {
		c.restarted()
	}
}

// handleReady does what the protocol coordinator asks, field by field in the documented
// order: durable writes first (triggers and completions wait for them inside the
// protocol), then the trace of what happened, the messages, the store's retention and the
// deletion of released state, and a failover last.
func (c *coordinator) handleReady() {
	for guard := 0; c.proto.HasReady(); guard++ {
		if guard > 1000 {
			panic(invariantf("engine: coordinator: protocol keeps producing work"))
		}
		if c.dead {
			return
		}
		rd := c.proto.Ready()
		for _, v := range rd.CounterWrites {
			c.askCounter(v)
		}
		c.metaQueue = append(c.metaQueue, rd.MetadataWrites...)
		c.writeMetadata()
		// Ends before starts: a completion or abort frees the slot a checkpoint or a
		// waiting savepoint triggered in the same step takes.
		for _, cp := range rd.Completed {
			c.trace(trace.Event{Kind: trace.KindCheckpointComplete, CP: uint64(cp.ID)})
			if cp.Kind.IsStop() {
				c.rt.stoppedBy = cp.ID
			}
		}
		for _, a := range rd.Aborted {
			c.traceAbort(a)
		}
		for _, tr := range rd.Triggered {
			c.traceTrigger(tr)
		}
		c.send(rd.Messages)
		// Discarded checkpoints leave the store; their state is deleted only when the
		// protocol releases it, since a finished task's final snapshot is shared with
		// newer checkpoints and savepoints.
		for _, d := range rd.Discarded {
			c.discarded[d.ID] = true
		}
		for _, r := range rd.Released {
			c.release(r)
		}
		// After the releases: a write that drops discarded checkpoints is what lets their
		// held state go, so it must see the releases of this same step (else, at the end
		// of a job, the last of them waits for a write that never comes).
		if len(rd.Discarded) > 0 {
			c.writeMetadata()
		}
		if rd.Failover != nil {
			c.failoverAfterItsCauses(*rd.Failover)
		}
		if rd.JobFinished && !c.dead {
			c.rt.finished = true
		}
	}
	c.writeCounter()
	if c.rt.noteFinished() {
		c.stopped = true
	}
	c.armTick()
}

// traceTrigger traces tr's checkpoint.trigger, with the split enumerator's state in a job
// with split sources.
func (c *coordinator) traceTrigger(tr protocol.TriggeredCheckpoint) {
	if tr.ID > c.counter.durable {
		panic(invariantf("engine: coordinator: checkpoint %d triggered before its id was durable (counter %d)", tr.ID, c.counter.durable))
	}
	e := triggerEvent(tr)
	if len(c.rt.plan.topo.SplitSources) > 0 {
		e = trace.WithUnassigned(e, tr.Unassigned)
	}
	c.trace(e)
}

// send sends the coordinator's messages to the tasks: as pointers into the Ready's slice,
// which the protocol never writes again (the host owns it), since a message boxed by value
// cost an allocation per send.
func (c *coordinator) send(msgs []protocol.Message) {
	for i := range msgs {
		m := &msgs[i]
		if m.Type == protocol.MsgSplitAssign || m.Type == protocol.MsgNoMoreSplits {
			c.sendSplit(m)
			continue
		}
		c.proc.Send(string(m.Task), m)
	}
}

// triggerEvent is the checkpoint.trigger of tr: a savepoint says so, and a periodic trigger
// says when it was decided (its id reserved), which is where the pacing rules judge it.
func triggerEvent(tr protocol.TriggeredCheckpoint) trace.Event {
	switch {
	case tr.Periodic:
		return trace.PeriodicCheckpointTrigger(uint64(tr.ID), int64(tr.RequestedAt))
	case tr.Kind == protocol.KindStopSavepoint:
		return trace.StopTrigger(uint64(tr.ID))
	case tr.Kind == protocol.KindDrainSavepoint:
		return trace.DrainTrigger(uint64(tr.ID))
	case tr.Kind == protocol.KindSavepoint:
		return trace.CheckpointTrigger(uint64(tr.ID), true)
	}
	return trace.CheckpointTrigger(uint64(tr.ID), false)
}

// traceAbort traces a checkpoint's abort, or holds it back while the durable counter does
// not cover its id. An id whose counter write failed, or was still in flight when a
// failover or a timeout ended the checkpoint, was never sent anywhere; but once its abort
// is in the trace the id has been seen, and a coordinator that crashed before any later
// counter write would hand it out again (the listener contract rightly rejects a
// checkpoint that completes after it aborted). So the abort waits for a counter write that
// covers it (writeCounter makes one), and dies with the incarnation if none comes: then
// the id was never used, as far as anyone can tell.
//
// A savepoint whose counter write failed is not traced at all: nothing of it is in the
// trace (only a trigger marks a savepoint, and it never had one), so its abort would read
// as a checkpoint's, counted as a failure where the protocol counts none.
func (c *coordinator) traceAbort(a protocol.Abort) {
	if a.Kind.IsSavepoint() && a.Reason == protocol.ReasonTriggerFailed {
		return
	}
	if a.Checkpoint > c.counter.durable {
		c.deferredAborts = append(c.deferredAborts, a)
		c.counter.cover = max(c.counter.cover, a.Checkpoint)
		return
	}
	c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: uint64(a.Checkpoint), Reason: a.Reason.String()})
}

// traceCoveredAborts traces the held-back aborts the durable counter now covers, in the
// order they happened, and then what waited for them.
func (c *coordinator) traceCoveredAborts() {
	waiting := c.deferredAborts[:0]
	for _, a := range c.deferredAborts {
		if a.Checkpoint <= c.counter.durable {
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: uint64(a.Checkpoint), Reason: a.Reason.String()})
			continue
		}
		waiting = append(waiting, a)
	}
	c.deferredAborts = waiting
	c.releaseHeld()
}

// failover cancels every task and deploys the job again from the plan's checkpoint after
// RestartDelay.
func (c *coordinator) failover(plan protocol.FailoverPlan) {
	var cp uint64
	if plan.Restore != nil {
		cp = uint64(plan.Restore.ID)
	}
	c.trace(trace.Event{Kind: trace.KindJobFailover, CP: cp, Reason: plan.Reason.String()})
	if c.dead {
		return // crashed by a fault triggered on the event above
	}
	c.rt.cancelTasks()
	c.rt.adoptPlan()
	if plan.Restore != nil && plan.Restore.Kind == protocol.KindDrainSavepoint {
		// Every snapshot of a drain is final: the job restarts finished, still ended by it.
		c.rt.stoppedBy = plan.Restore.ID
	}
	// The next attempt's number is taken now, so that failure reports still on their way
	// from the cancelled attempt are recognised as stale.
	c.rt.attempt++
	c.restarting = true
	c.plan = plan
	c.proc.After(c.rt.restartDelay(), c.redeploy)
}

// deployFirst deploys the job's first attempt, retrying while a host is down.
func (c *coordinator) deployFirst() {
	c.rt.attempt = max(c.rt.attempt, 1)
	if !c.rt.deployTasks(nil) {
		c.proc.After(c.rt.restartDelay(), c.deployFirst)
	}
}

func (c *coordinator) redeploy() {
	if !c.rt.deployTasks(c.plan.Restore) {
		c.proc.After(c.rt.restartDelay(), c.redeploy)
		return
	}
	c.starting = len(c.rt.plan.tasks)
}

// restarted tells the protocol the job runs again (every task of the attempt reported, or
// one died trying), and fails it over once more if a task of the attempt died meanwhile.
func (c *coordinator) restarted() {
	c.restarting, c.starting = false, 0
	c.proto.JobRestarted(c.now())
	if c.restartAgain {
		c.restartAgain = false
		c.proto.RequestFailover(c.now(), protocol.ReasonTaskFailure)
	}
	c.handleReady()
}

// armTick keeps one timer at the protocol's next deadline. Once the job is done it keeps
// none: the protocol would go on re-sending the last completion every Timeout for tasks
// that have all exited.
func (c *coordinator) armTick() {
	at := c.proto.NextDeadline()
	if c.stopped {
		at = protocol.NoDeadline
	}
	c.tick.set(c.proc, c.now(), at, c)
}

// deadlinePassed implements deadlineOwner: the protocol's deadline came.
func (c *coordinator) deadlinePassed() {
	c.proto.Tick(c.now())
	c.handleReady()
}

// jobDone stops the incarnation's work once every task of a finished job has exited.
func (c *coordinator) jobDone() {
	if c.dead || c.proto == nil || c.stopped {
		return
	}
	c.stopped = true
	c.armTick()
}
