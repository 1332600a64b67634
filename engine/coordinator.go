package engine

import (
	"errors"
	"fmt"
	"time"

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
	rt    *Runtime
	proc  Proc
	proto *protocol.Coordinator // nil while the incarnation reads storage
	dead  bool

	// stored is the completed-checkpoint store as last confirmed durable; metaQueue holds
	// metadata writes not yet done. Writes go one at a time, each replacing the store
	// with stored plus the next checkpoint, so a failed write leaves the store as it was.
	stored      []protocol.CompletedCheckpoint
	metaQueue   []protocol.CompletedCheckpoint
	metaWriting bool
	discarded   map[protocol.CheckpointID]bool

	// The id counter: counterWant is the largest value asked for, counterDone the
	// largest confirmed durable.
	counterWant, counterDone protocol.CheckpointID
	counterWriting           bool

	tickTimer Timer
	tickAt    protocol.Time

	// Failover: restarting is set between a failover plan and JobRestarted; restartAgain
	// remembers a failure of the new attempt reported meanwhile.
	restarting   bool
	restartAgain bool
	plan         protocol.FailoverPlan
	readRetries  int
}

func (c *coordinator) now() protocol.Time { return protocol.Time(c.rt.env.Now()) }

func (c *coordinator) trace(e trace.Event) {
	if !c.dead && c.proc.Alive() {
		e.Task = coordinatorName
		c.rt.emit(e)
	}
}

// begin starts the incarnation. The first incarnation of a job starts it fresh; a later
// one reads the counter and the completed-checkpoint store, rebuilds the protocol
// coordinator from them and restarts the job from the latest completed checkpoint.
func (c *coordinator) begin(first bool) {
	c.discarded = make(map[protocol.CheckpointID]bool)
	if first {
		c.build(protocol.Durable{})
		c.deployFirst()
		c.handleReady()
		return
	}
	c.readDurable()
}

func (c *coordinator) build(d protocol.Durable) {
	proto, err := protocol.NewCoordinator(c.rt.cfg.Checkpoint, c.rt.plan.topo, d, c.now())
	if err != nil {
		panic(fmt.Sprintf("engine: coordinator: %v", err))
	}
	c.proto = proto
	c.stored = d.Completed
	c.counterWant, c.counterDone = d.HighestID, d.HighestID
}

// readDurable reads the counter, then the store, retrying failed reads.
func (c *coordinator) readDurable() {
	retry := func(err error) {
		c.readRetries++
		c.proc.After(c.rt.cfg.StorageRetry, c.readDurable)
	}
	c.proc.Read(counterKey, func(data []byte, err error) {
		var d protocol.Durable
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			retry(err)
			return
		default:
			if d.HighestID, err = decodeCounter(data); err != nil {
				retry(err)
				return
			}
		}
		c.proc.Read(completedKey, func(data []byte, err error) {
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				retry(err)
				return
			default:
				if d.Completed, err = decodeCompleted(data); err != nil {
					retry(err)
					return
				}
			}
			c.recovered(d)
		})
	})
}

func (c *coordinator) recovered(d protocol.Durable) {
	c.build(d)
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
		panic(fmt.Sprintf("engine: coordinator: unexpected message %T from %s", msg, from))
	}
	if c.proto == nil || c.dead || m.attempt != c.rt.attempt {
		return
	}
	// Late, duplicate and unknown messages are expected; the protocol releases their state.
	_ = c.proto.Step(c.now(), m.msg)
	c.handleReady()
}

// Crashed implements Process.
func (c *coordinator) Crashed() {
	if c.dead {
		return
	}
	c.dead = true
	c.rt.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coordinatorName})
}

// taskFailed is the failure detector's report that a task of attempt died.
func (c *coordinator) taskFailed(attempt int) {
	if c.proto == nil || c.dead || attempt != c.rt.attempt {
		return
	}
	if c.restarting {
		c.restartAgain = true
		return
	}
	c.proto.RequestFailover(c.now(), protocol.ReasonTaskFailure)
	c.handleReady()
}

// handleReady does what the protocol coordinator asks: durable writes first (triggers and
// completions wait for them inside the protocol), then the trace of what happened, the
// messages, the clean-up, and a failover last.
func (c *coordinator) handleReady() {
	for guard := 0; c.proto.HasReady(); guard++ {
		if guard > 1000 {
			panic("engine: coordinator: protocol keeps producing work")
		}
		if c.dead {
			return
		}
		rd := c.proto.Ready()
		for _, v := range rd.CounterWrites {
			c.writeCounter(v)
		}
		for _, cp := range rd.MetadataWrites {
			c.metaQueue = append(c.metaQueue, cp)
		}
		c.writeMetadata()
		for _, tr := range rd.Triggered {
			e := trace.Event{Kind: trace.KindCheckpointTrigger, CP: uint64(tr.ID)}
			if tr.Kind == protocol.KindSavepoint {
				e.Attrs = []trace.Attr{{Key: trace.AttrSavepoint, Value: "true"}}
			}
			c.trace(e)
		}
		for _, cp := range rd.Completed {
			c.trace(trace.Event{Kind: trace.KindCheckpointComplete, CP: uint64(cp.ID)})
		}
		for _, a := range rd.Aborted {
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: uint64(a.Checkpoint), Reason: a.Reason.String()})
		}
		for _, m := range rd.Messages {
			c.proc.Send(string(m.Task), m)
		}
		for _, d := range rd.Discarded {
			c.discarded[d.ID] = true
		}
		if len(rd.Discarded) > 0 {
			c.writeMetadata()
			c.deleteUnreferenced(discardedStates(rd.Discarded))
		}
		var released []string
		for _, r := range rd.Released {
			released = append(released, r.Snapshot.Handle)
		}
		c.deleteUnreferenced(released)
		if rd.Failover != nil {
			c.failover(*rd.Failover)
		}
		if rd.JobFinished && !c.dead {
			c.rt.finished = true
		}
	}
	c.armTick()
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
	c.restarting = false
	c.proto.JobRestarted(c.now())
	if c.restartAgain {
		c.restartAgain = false
		c.proto.RequestFailover(c.now(), protocol.ReasonTaskFailure)
	}
	c.handleReady()
}

// armTick keeps one timer at the protocol's next deadline.
func (c *coordinator) armTick() {
	at := c.proto.NextDeadline()
	if at == c.tickAt && c.tickTimer != nil {
		return
	}
	if c.tickTimer != nil {
		c.tickTimer.Stop()
		c.tickTimer = nil
	}
	c.tickAt = at
	if at == protocol.NoDeadline {
		return
	}
	d := max(time.Duration(at-c.now()), 0)
	c.tickTimer = c.proc.After(d, func() {
		c.tickTimer = nil
		c.tickAt = 0
		c.proto.Tick(c.now())
		c.handleReady()
	})
}
