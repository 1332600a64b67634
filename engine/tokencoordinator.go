package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	cl "github.com/ckptsim/ckptsim/protocol/chandylamport"
	"github.com/ckptsim/ckptsim/trace"
)

// tokensKey holds the latest completed global snapshot of a token job, in the format of the
// completed-checkpoint store (one checkpoint, a state handle per process).
const tokensKey = "meta/tokens"

// tokenCoordinator is the coordinator of a token job. Instead of a protocol.Coordinator it
// drives Chandy-Lamport snapshots: it names each snapshot, asks its initiator (the
// initiators in turn, or the script's) and the processes the initiator cannot reach to
// record it, collects the answers in a chandylamport.Collector, persists each global
// snapshot, fails the job over to the latest one when a process dies, and finishes the job
// when a snapshot shows every process done and nothing in flight.
type tokenCoordinator struct {
	coordinatorIncarnation
	op    *Operator
	spec  Tokens
	n     int
	graph *cl.Graph

	collector *cl.Collector[tokenSummary, rec]
	// lastID is the highest checkpoint id this incarnation handed out or read back from
	// the durable counter: the next snapshot gets a higher one.
	lastID     uint64
	turn       int
	requests   []int // initiators of scripted snapshots that are due but not started yet
	triggering bool
	inFlight   map[uint64]int64 // checkpoint -> trigger time
	aborted    map[uint64]bool
	latest     *protocol.CompletedCheckpoint
	metaQueue  []protocol.CompletedCheckpoint
	metaBusy   bool
	restarting bool
	finishing  bool
	tickTimer  Timer // nil while no tick is armed
	// stopped: the job is done (every process exited), so no tick is armed any more.
	stopped bool
}

func newTokenCoordinator(rt *Runtime) *tokenCoordinator {
	op := &rt.cfg.Graph.Operators[0]
	spec := op.Logic.(Tokens)
	var procs []cl.ProcessID
	for i := 0; i < op.Parallelism; i++ {
		procs = append(procs, cl.ProcessID(TaskID(op.Name, i)))
	}
	var chans []cl.Channel
	for _, l := range spec.Links {
		chans = append(chans, cl.Channel{From: procs[l[0]], To: procs[l[1]]})
	}
	g, err := cl.NewGraph(procs, chans)
	if err != nil {
		panic(fmt.Sprintf("engine: token graph: %v", err))
	}
	return &tokenCoordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt}, op: op, spec: spec, n: op.Parallelism, graph: g}
}

func (c *tokenCoordinator) now() int64 { return c.rt.env.Now() }

func (c *tokenCoordinator) begin(first bool) {
	c.scheduleScript()
	if first {
		c.reset()
		c.deploy()
		c.armTick()
		return
	}
	c.read()
}

// scheduleScript queues each scripted snapshot still to come at its time.
func (c *tokenCoordinator) scheduleScript() {
	if c.spec.Script == nil {
		return
	}
	now := time.Duration(c.now())
	for _, sn := range c.spec.Script.Snapshots {
		if sn.At < now {
			continue
		}
		c.proc.After(sn.At-now, func() {
			if c.dead {
				return
			}
			c.requests = append(c.requests, sn.Initiator)
			c.startRequested()
		})
	}
}

// scriptOver reports whether the script, if any, has ended: periodic snapshots and the
// job's end wait for it.
func (c *tokenCoordinator) scriptOver() bool {
	return c.spec.Script == nil || c.now() >= int64(c.spec.Script.End)
}

// reset starts a new attempt's bookkeeping: a fresh collector and fresh processes, which
// have recorded nothing, so any ids above the ones used before will do.
func (c *tokenCoordinator) reset() {
	col, err := cl.NewCollector[tokenSummary, rec](c.graph, c.spec.maxConcurrent())
	if err != nil {
		panic(fmt.Sprintf("engine: token collector: %v", err))
	}
	c.collector = col
	c.inFlight = make(map[uint64]int64)
	c.aborted = make(map[uint64]bool)
}

func (c *tokenCoordinator) deploy() {
	c.rt.attempt = max(c.rt.attempt, 1)
	if !c.rt.deployTasks(c.latest) {
		c.proc.After(c.rt.restartDelay(), c.deploy)
		return
	}
	c.restarting = false
	c.startRequested()
}

// read recovers the counter and the latest global snapshot, then restarts the job from it.
func (c *tokenCoordinator) read() {
	retry := func() { c.proc.After(c.rt.cfg.StorageRetry, c.read) }
	c.proc.Read(counterKey, func(data []byte, err error) {
		if err != nil && !errors.Is(err, ErrNotFound) {
			retry()
			return
		}
		if err == nil {
			id, derr := decodeCounter(data)
			if derr != nil {
				retry()
				return
			}
			c.lastID = max(c.lastID, uint64(id))
		}
		c.proc.Read(tokensKey, func(data []byte, err error) {
			if err != nil && !errors.Is(err, ErrNotFound) {
				retry()
				return
			}
			var latest uint64
			if err == nil {
				cps, derr := decodeCompleted(data)
				if derr != nil || len(cps) != 1 {
					retry()
					return
				}
				c.latest = &cps[0]
				latest = uint64(cps[0].ID)
			}
			c.trace(trace.Event{Kind: trace.KindCoordinatorRecover, CP: latest})
			c.failover(protocol.ReasonCoordinatorRecovery)
			c.armTick()
		})
	})
}

// armTick keeps a tick every SnapshotInterval until the job is done.
func (c *tokenCoordinator) armTick() {
	if c.tickTimer != nil || c.stopped {
		return
	}
	c.tickTimer = c.proc.After(c.spec.SnapshotInterval, func() {
		c.tickTimer = nil
		c.tick()
		c.armTick()
	})
}

// jobDone stops the tick once every process of a finished job has exited: there is nothing
// left to start, expire or repeat.
func (c *tokenCoordinator) jobDone() {
	if c.dead || c.stopped {
		return
	}
	c.stopped = true
	if c.tickTimer != nil {
		c.tickTimer.Stop()
		c.tickTimer = nil
	}
}

// tick expires snapshots that take too long, starts the scripted snapshots that wait for
// room, and starts the next periodic one if there is room (with a script, once it is over).
// Once the job finishes, it only repeats the order to finish to processes that may have
// missed it.
func (c *tokenCoordinator) tick() {
	if c.finishing && !c.restarting {
		c.orderFinish()
		return
	}
	if c.restarting {
		return
	}
	for _, cp := range slices.Sorted(maps.Keys(c.inFlight)) {
		if time.Duration(c.now()-c.inFlight[cp]) > c.rt.cfg.Checkpoint.Timeout {
			// The collector cannot forget a snapshot, so an expired one fails the job
			// over, which starts a fresh collector.
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: cp, Reason: protocol.ReasonExpired.String()})
			c.failover(protocol.ReasonTolerableFailuresExceeded)
			return
		}
	}
	c.startRequested()
	if !c.canInitiate() || len(c.requests) > 0 || !c.scriptOver() {
		return
	}
	inits := slices.Clone(c.spec.initiators())
	slices.Sort(inits)
	o := inits[c.turn%len(inits)]
	c.turn++
	c.initiate(o, false)
}

// canInitiate reports whether a snapshot may start now: the job runs, no trigger is being
// persisted, and the collector has room.
func (c *tokenCoordinator) canInitiate() bool {
	return c.collector != nil && !c.dead && !c.restarting && !c.finishing && !c.triggering && !c.collector.Full()
}

// startRequested starts the next scripted snapshot that waits, if one may start now; the
// others follow as each trigger is persisted and as room frees up.
func (c *tokenCoordinator) startRequested() {
	if len(c.requests) == 0 || !c.canInitiate() {
		return
	}
	o := c.requests[0]
	c.requests = c.requests[1:]
	c.initiate(o, true)
}

// initiate starts a snapshot at process o: it reserves the next id of o durably (the
// counter), then starts it at the collector and orders o, and every process o cannot
// reach, to record it. A scripted snapshot whose trigger is overtaken by a failover waits
// for the next attempt.
func (c *tokenCoordinator) initiate(o int, scripted bool) {
	cp := nextTokenID(c.lastID, c.n, o)
	c.lastID = cp
	c.triggering = true
	attempt := c.rt.attempt
	writeDurably(c.proc, c.rt.cfg.VerifyWrites, counterKey, encodeCounter(protocol.CheckpointID(cp)), func(err error) {
		c.triggering = false
		if c.dead || c.finishing {
			return // a job that finishes takes no more snapshots
		}
		if c.restarting || attempt != c.rt.attempt {
			if scripted {
				c.requests = slices.Insert(c.requests, 0, o)
			}
			return
		}
		if err != nil {
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: cp, Reason: protocol.ReasonTriggerFailed.String()})
			c.startRequested()
			return
		}
		id := snapshotID(c.op.Name, c.n, cp)
		if err := c.collector.Start(id); err != nil {
			panic(fmt.Sprintf("engine: token collector: %v", err))
		}
		c.inFlight[cp] = c.now()
		c.trace(trace.Event{Kind: trace.KindCheckpointTrigger, CP: cp})
		initiator := cl.ProcessID(TaskID(c.op.Name, o))
		for _, p := range append([]cl.ProcessID{initiator}, c.graph.Joiners(initiator)...) {
			c.proc.Send(string(p), &tokenCommand{attempt: attempt, kind: "record", cp: cp})
		}
		c.startRequested()
	})
}

// Receive implements Process.
func (c *tokenCoordinator) Receive(from string, msg any) {
	a, ok := msg.(*tokenAnswer)
	if !ok {
		panic(fmt.Sprintf("engine: token coordinator: unexpected message %T from %s", msg, from))
	}
	if c.stale(a.attempt) {
		return
	}
	// An answer may free room for a scripted snapshot that waits.
	defer c.startRequested()
	if a.abort != nil {
		if c.collector.AddAbort(*a.abort) == nil && !c.aborted[a.cp] {
			c.aborted[a.cp] = true
			delete(c.inFlight, a.cp)
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: a.cp, Reason: protocol.ReasonChannelStateOverflow.String()})
		}
		return
	}
	g, done, err := c.collector.AddReport(*a.report)
	if err != nil || !done {
		return
	}
	delete(c.inFlight, a.cp)
	cc := protocol.CompletedCheckpoint{ID: protocol.CheckpointID(a.cp), Kind: protocol.KindCheckpoint, CompletedAt: protocol.Time(c.now())}
	terminal := true
	for i := 0; i < c.n; i++ {
		st, _ := g.State(cl.ProcessID(TaskID(c.op.Name, i)))
		cc.Tasks = append(cc.Tasks, protocol.TaskState{Task: protocol.TaskID(TaskID(c.op.Name, i)), Snapshot: protocol.TaskSnapshot{Handle: st.Handle}})
		terminal = terminal && st.Done
	}
	for _, ch := range g.Channels {
		terminal = terminal && len(ch.Messages) == 0
	}
	c.metaQueue = append(c.metaQueue, cc)
	c.persist(terminal)
}

// persist writes queued global snapshots one at a time; each is complete once durable.
func (c *tokenCoordinator) persist(terminal bool) {
	if c.metaBusy || len(c.metaQueue) == 0 {
		return
	}
	cc := c.metaQueue[0]
	c.metaQueue = c.metaQueue[1:]
	c.metaBusy = true
	attempt := c.rt.attempt
	c.trace(trace.Event{Kind: trace.KindCheckpointPersist, CP: uint64(cc.ID)})
	writeDurably(c.proc, c.rt.cfg.VerifyWrites, tokensKey, encodeCompleted([]protocol.CompletedCheckpoint{cc}), func(err error) {
		c.metaBusy = false
		if attempt != c.rt.attempt {
			return
		}
		if err != nil {
			c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: uint64(cc.ID), Reason: protocol.ReasonPersistFailed.String()})
		} else {
			c.latest = &cc
			c.trace(trace.Event{Kind: trace.KindCheckpointComplete, CP: uint64(cc.ID)})
			if terminal && !c.finishing && c.scriptOver() && len(c.requests) == 0 {
				c.finish()
			}
		}
		c.persist(false)
	})
}

// finish ends a job whose latest snapshot shows nothing left to do.
func (c *tokenCoordinator) finish() {
	c.finishing = true
	c.rt.finished = true
	c.orderFinish()
}

// orderFinish sends every process the order to finish. The order may be lost on the way
// (a partition drops it without a word), and a process that never gets it runs on forever:
// so tick sends it again every SnapshotInterval until every process has exited. A process
// that has exited drops the repeats, and one that is still running finishes at the first
// that arrives.
func (c *tokenCoordinator) orderFinish() {
	if c.rt.Finished() {
		return
	}
	for i := 0; i < c.n; i++ {
		c.proc.Send(TaskID(c.op.Name, i), &tokenCommand{attempt: c.rt.attempt, kind: "finish"})
	}
}

// stale reports whether news from a process of attempt comes too late to act on: this
// incarnation is dead or has not deployed yet, or a restart superseded that attempt.
func (c *tokenCoordinator) stale(attempt int) bool {
	return c.dead || c.collector == nil || c.restarting || attempt != c.rt.attempt
}

func (c *tokenCoordinator) taskFailed(attempt int) {
	if c.stale(attempt) {
		return
	}
	c.failover(protocol.ReasonTaskFailure)
}

// failover restarts every process from the latest global snapshot.
func (c *tokenCoordinator) failover(reason protocol.Reason) {
	var cp uint64
	if c.latest != nil {
		cp = uint64(c.latest.ID)
	}
	c.trace(trace.Event{Kind: trace.KindJobFailover, CP: cp, Reason: reason.String()})
	if c.dead {
		return
	}
	c.rt.cancelTasks()
	c.rt.attempt++
	c.restarting = true
	c.finishing = false
	c.proc.After(c.rt.restartDelay(), func() {
		c.reset()
		c.deploy()
	})
}

// nextTokenID returns the id of the next snapshot initiated at process o of n: the least id
// above last that maps to o (cp = seq*n + o, seq >= 1; see snapshotID). Ids thus grow in
// the order snapshots start, whoever initiates them, and per initiator, which the
// processes' duplicate detection needs; the ids skipped are never used.
func nextTokenID(last uint64, n, o int) uint64 {
	cp := last - last%uint64(n) + uint64(o)
	if cp <= last || cp < uint64(n) {
		cp += uint64(n)
	}
	return cp
}
