package tokens

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	cl "github.com/ckptsim/ckptsim/protocol/chandylamport"
	"github.com/ckptsim/ckptsim/trace"
)

// tokensKey names the latest completed global snapshot of a token job, in the format of the
// completed-checkpoint store (one checkpoint, a state handle per process). Like the id
// counter it is kept in a slotPair, so that a torn or corrupted write spoils only the older
// copy: in place, it spoiled the only one, and a coordinator that crashed then retried its
// read for ever.
const tokensKey = "meta/tokens"

// coordinator is the coordinator of a token job. Instead of a protocol.Coordinator it
// drives Chandy-Lamport snapshots: it names each snapshot, asks its initiator (the
// initiators in turn, or the script's) and the processes the initiator cannot reach to
// record it, collects the answers in a chandylamport.Collector, persists each global
// snapshot, fails the job over to the latest one when a process dies, and finishes the job
// when a snapshot shows every process done and nothing in flight.
//
// No snapshot vanishes: each is traced (checkpoint.request) the moment it is asked for, and
// ends with checkpoint.complete or checkpoint.abort, with the reason (a failover, the job's
// end, a failed write, a timeout), unless the incarnation crashes first.
type coordinator struct {
	h     *engine.CoordinatorHost
	op    *engine.Operator
	spec  Workload
	n     int
	graph *cl.Graph

	collector *cl.Collector[tokenSummary, engine.CompactRecord]
	// lastID is the highest checkpoint id this incarnation handed out or read back from
	// the durable counter: the next snapshot gets a higher one.
	lastID uint64
	turn   int
	// scriptDue counts the scripted snapshots this incarnation has yet to ask for.
	scriptDue int
	requests  []tokenRequest // asked for, in order, and not started yet
	// triggering is the snapshot whose id is being persisted before it starts, if any.
	triggering *tokenRequest
	inFlight   map[uint64]tokenInFlight // started and not yet collected
	aborted    map[uint64]bool
	// counterSlots and storeSlots hold the id counter and the latest global snapshot.
	counterSlots, storeSlots *engine.DurableValue
	latest                   *protocol.CompletedCheckpoint
	metaQueue                []protocol.CompletedCheckpoint
	metaBusy                 bool
	restarting               bool
	finishing                bool
	tickTimer                engine.Timer // nil while no tick is armed
	// stopped: the job is done (every process exited), so no tick is armed any more.
	stopped bool
}

// tokenRequest is a snapshot asked for: its id is reserved, and traced, at once, so that it
// is visible from the moment it is asked for, however long it then waits to start.
type tokenRequest struct {
	cp        uint64
	initiator int // task index
	scripted  bool
}

// tokenInFlight is a snapshot that started: when, and whether the script asked for it.
type tokenInFlight struct {
	since    int64
	scripted bool
}

func newCoordinator(h *engine.CoordinatorHost) *coordinator {
	op := &h.Graph().Operators[0]
	spec := op.Logic.(Workload)
	var procs []cl.ProcessID
	for i := 0; i < op.Parallelism; i++ {
		procs = append(procs, cl.ProcessID(op.TaskID(i)))
	}
	var chans []cl.Channel
	for _, l := range spec.Links {
		chans = append(chans, cl.Channel{From: procs[l[0]], To: procs[l[1]]})
	}
	g, err := cl.NewGraph(procs, chans)
	if err != nil {
		panic(fmt.Sprintf("tokens: token graph: %v", err))
	}
	return &coordinator{h: h, op: op, spec: spec, n: op.Parallelism, graph: g,
		counterSlots: engine.NewCounterValue(), storeSlots: engine.NewDurableValue(tokensKey)}
}

func (c *coordinator) now() int64 { return c.h.Now() }

// trace emits an event of the coordinator unless the incarnation is dead.
func (c *coordinator) trace(e trace.Event) { c.h.Trace(e) }

// live reports whether the incarnation is not dead (crashed or replaced).
func (c *coordinator) live() bool { return !c.h.Dead() }

// LatestCheckpoint implements engine.KindCoordinator.
func (c *coordinator) LatestCheckpoint() uint64 {
	if c.latest == nil {
		return 0
	}
	return uint64(c.latest.ID)
}

// Begin implements engine.KindCoordinator.
func (c *coordinator) Begin(first bool) {
	if first {
		c.scheduleScript(0)
		c.reset()
		c.deploy()
		c.armTick()
		return
	}
	c.read(time.Duration(c.now()))
}

// scheduleScript asks for each scripted snapshot due from since on at its time, at once for
// those whose time has come already. A recovering incarnation calls it once it has read the
// id counter back, since it cannot name a snapshot before; the snapshots due while no
// incarnation ran are nobody's to ask for.
func (c *coordinator) scheduleScript(since time.Duration) {
	if c.spec.Script == nil {
		return
	}
	now := time.Duration(c.now())
	for _, sn := range c.spec.Script.Snapshots {
		if sn.At < since {
			continue
		}
		c.scriptDue++
		c.h.Proc().After(max(sn.At-now, 0), func() {
			if c.h.Dead() {
				return
			}
			c.scriptDue--
			c.request(sn.Initiator, true)
		})
	}
}

// scriptOver reports whether the script, if any, has ended and every snapshot it holds has
// been asked for: periodic snapshots and the job's end wait for it. (A snapshot due at the
// script's end may be asked for after a tick at the same instant.)
func (c *coordinator) scriptOver() bool {
	return c.spec.Script == nil || (c.now() >= int64(c.spec.Script.End) && c.scriptDue == 0)
}

// request asks for a snapshot initiated at process o: it reserves the next id, traces the
// request and starts the snapshot as soon as it may. Ids grow in the order snapshots are
// asked for, and requests start in that order, so they also grow in the order snapshots
// start, as the processes' duplicate detection needs (see nextTokenID).
func (c *coordinator) request(o int, scripted bool) {
	cp := nextTokenID(c.lastID, c.n, o)
	c.lastID = cp
	c.trace(trace.Event{Kind: trace.KindCheckpointRequest, CP: cp})
	c.requests = append(c.requests, tokenRequest{cp: cp, initiator: o, scripted: scripted})
	c.startRequested()
}

// abortSnapshot traces the end of a snapshot that will never complete.
func (c *coordinator) abortSnapshot(cp uint64, reason protocol.Reason) {
	c.trace(trace.Event{Kind: trace.KindCheckpointAbort, CP: cp, Reason: reason.String()})
}

// reset starts a new attempt's bookkeeping: a fresh collector and fresh processes, which
// have recorded nothing, so any ids above the ones used before will do.
func (c *coordinator) reset() {
	col, err := cl.NewCollector[tokenSummary, engine.CompactRecord](c.graph, c.spec.maxConcurrent())
	if err != nil {
		panic(fmt.Sprintf("tokens: token collector: %v", err))
	}
	c.collector = col
	c.inFlight = make(map[uint64]tokenInFlight)
	c.aborted = make(map[uint64]bool)
}

func (c *coordinator) deploy() {
	c.h.SetAttempt(max(c.h.Attempt(), 1))
	if !c.h.DeployTasks(c.latest) {
		c.h.Proc().After(c.h.RestartDelay(), c.deploy)
		return
	}
	c.restarting = false
	c.startRequested()
}

// read recovers the counter and the latest global snapshot, then restarts the job from it
// and asks for the scripted snapshots due since the incarnation began.
func (c *coordinator) read(began time.Duration) {
	retry := func() { c.h.Proc().After(c.h.Config().StorageRetry, func() { c.read(began) }) }
	acceptCounter := func(payload []byte) bool {
		id, err := engine.DecodeCounter(payload)
		if err == nil {
			c.lastID = max(c.lastID, id)
		}
		return err == nil
	}
	var latest *protocol.CompletedCheckpoint
	acceptStore := func(payload []byte) bool {
		cps, err := engine.DecodeCompleted(payload)
		if err != nil || len(cps) != 1 {
			return false
		}
		latest = &cps[0]
		return true
	}
	c.counterSlots.Read(c.h.Proc(), acceptCounter, func(_ bool, err error) {
		if err != nil {
			retry()
			return
		}
		c.storeSlots.Read(c.h.Proc(), acceptStore, func(_ bool, err error) {
			if err != nil {
				retry()
				return
			}
			var id uint64
			if latest != nil {
				c.latest, id = latest, uint64(latest.ID)
			}
			c.trace(trace.Event{Kind: trace.KindCoordinatorRecover, CP: id})
			c.failover(protocol.ReasonCoordinatorRecovery)
			c.scheduleScript(began)
			c.armTick()
		})
	})
}

// armTick keeps a tick every SnapshotInterval until the job is done.
func (c *coordinator) armTick() {
	if c.tickTimer != nil || c.stopped {
		return
	}
	c.tickTimer = c.h.Proc().After(c.spec.SnapshotInterval, func() {
		c.tickTimer = nil
		c.tick()
		c.armTick()
	})
}

// JobDone implements engine.KindCoordinator: it stops the tick once every process of a
// finished job has exited, since there is nothing left to start, expire or repeat.
func (c *coordinator) JobDone() {
	if c.h.Dead() || c.stopped {
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
func (c *coordinator) tick() {
	if c.finishing && !c.restarting {
		c.orderFinish()
		return
	}
	if c.restarting {
		return
	}
	for _, cp := range slices.Sorted(maps.Keys(c.inFlight)) {
		if time.Duration(c.now()-c.inFlight[cp].since) > c.h.Config().Checkpoint.Timeout {
			// The collector cannot forget a snapshot, so an expired one fails the job
			// over, which starts a fresh collector. One aborted already is not aborted
			// again: it only waited for its last answers.
			delete(c.inFlight, cp)
			if !c.aborted[cp] {
				c.abortSnapshot(cp, protocol.ReasonExpired)
			}
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
	c.request(o, false)
}

// canInitiate reports whether a snapshot may start now: the job runs, no trigger is being
// persisted, and the collector has room.
func (c *coordinator) canInitiate() bool {
	return c.collector != nil && !c.h.Dead() && !c.restarting && !c.finishing && c.triggering == nil && !c.collector.Full()
}

// startRequested starts the next snapshot asked for, if one may start now; the others
// follow as each trigger is persisted and as room frees up.
func (c *coordinator) startRequested() {
	if len(c.requests) == 0 || !c.canInitiate() {
		return
	}
	r := c.requests[0]
	c.requests = c.requests[1:]
	c.initiate(r)
}

// initiate starts snapshot r: it persists r's id (the counter), then starts it at the
// collector and orders its initiator, and every process the initiator cannot reach, to
// record it. A scripted snapshot whose trigger is overtaken by a failover keeps its id and
// waits for the next attempt (its processes have heard nothing of it, and the ids used
// before are all below it); a periodic one is aborted, the next tick asks for another.
func (c *coordinator) initiate(r tokenRequest) {
	cp := r.cp
	c.triggering = &r
	attempt := c.h.Attempt()
	c.counterSlots.Write(c.h.Proc(), c.h.Config().VerifyWrites, engine.EncodeCounter(cp), c.live, func(err error) {
		c.triggering = nil
		switch {
		case c.h.Dead():
			return
		case c.finishing:
			c.abortSnapshot(cp, protocol.ReasonJobFinished) // a job that finishes takes no more snapshots
			return
		case c.restarting || attempt != c.h.Attempt():
			if r.scripted {
				c.requests = slices.Insert(c.requests, 0, r)
			} else {
				c.abortSnapshot(cp, protocol.ReasonFailover)
			}
			return
		case err != nil:
			c.abortSnapshot(cp, protocol.ReasonTriggerFailed)
			c.startRequested()
			return
		}
		id := snapshotID(c.op, cp)
		if err := c.collector.Start(id); err != nil {
			panic(fmt.Sprintf("tokens: token collector: %v", err))
		}
		c.inFlight[cp] = tokenInFlight{since: c.now(), scripted: r.scripted}
		c.trace(trace.Event{Kind: trace.KindCheckpointTrigger, CP: cp})
		initiator := cl.ProcessID(c.op.TaskID(r.initiator))
		for _, p := range append([]cl.ProcessID{initiator}, c.graph.Joiners(initiator)...) {
			c.h.Proc().Send(string(p), &tokenCommand{attempt: attempt, kind: "record", cp: cp})
		}
		c.startRequested()
	})
}

// Receive implements engine.KindCoordinator.
func (c *coordinator) Receive(from string, msg any) {
	a, ok := msg.(*tokenAnswer)
	if !ok {
		panic(fmt.Sprintf("tokens: coordinator: unexpected message %T from %s", msg, from))
	}
	if c.stale(a.attempt) || c.finishing {
		return // a finishing job aborted what was in flight
	}
	// An answer may free room for a scripted snapshot that waits.
	defer c.startRequested()
	// An aborted snapshot stays in flight until every process has answered it, since it
	// holds a place at the collector until then; should an answer be lost, it expires like
	// any snapshot, and the failover starts a fresh collector (without it the collector
	// would stay full and the job take no snapshot again).
	defer c.dropAnswered(a.cp)
	if a.abort != nil {
		if c.collector.AddAbort(*a.abort) == nil && !c.aborted[a.cp] {
			c.aborted[a.cp] = true
			c.abortSnapshot(a.cp, protocol.ReasonChannelStateOverflow)
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
		task := c.op.TaskID(i)
		st, _ := g.State(cl.ProcessID(task))
		cc.Tasks = append(cc.Tasks, protocol.TaskState{Task: protocol.TaskID(task), Snapshot: protocol.TaskSnapshot{Handle: st.Handle}})
		terminal = terminal && st.Done
	}
	for _, ch := range g.Channels {
		terminal = terminal && len(ch.Messages) == 0
	}
	c.metaQueue = append(c.metaQueue, cc)
	c.persist(terminal)
}

// dropAnswered forgets an aborted snapshot in flight once the collector has every answer.
func (c *coordinator) dropAnswered(cp uint64) {
	if c.aborted[cp] && c.collector.Status(snapshotID(c.op, cp)) == cl.StatusUnknown {
		delete(c.inFlight, cp)
	}
}

// persist writes queued global snapshots one at a time; each is complete once durable, even
// when a failover came while it was written: it is as consistent as before, the job may
// restore from it, and a later incarnation would read it back anyway. Only the job's end
// waits for a completion of the running attempt.
func (c *coordinator) persist(terminal bool) {
	if c.metaBusy || len(c.metaQueue) == 0 {
		return
	}
	cc := c.metaQueue[0]
	c.metaQueue = c.metaQueue[1:]
	c.metaBusy = true
	attempt := c.h.Attempt()
	c.trace(trace.Event{Kind: trace.KindCheckpointPersist, CP: uint64(cc.ID)})
	c.storeSlots.Write(c.h.Proc(), c.h.Config().VerifyWrites, engine.EncodeCompleted([]protocol.CompletedCheckpoint{cc}), c.live, func(err error) {
		c.metaBusy = false
		if c.h.Dead() {
			return
		}
		if err != nil {
			c.abortSnapshot(uint64(cc.ID), protocol.ReasonPersistFailed)
		} else {
			c.latest = &cc
			c.trace(trace.Event{Kind: trace.KindCheckpointComplete, CP: uint64(cc.ID)})
			if terminal && attempt == c.h.Attempt() && !c.restarting && !c.finishing && c.scriptOver() && !c.scriptedPending() {
				c.finish()
			}
		}
		c.persist(false)
	})
}

// scriptedPending reports whether a snapshot the script asked for has yet to start, or to
// be collected: the job's end waits for those, so that a script's snapshots are taken
// rather than aborted by an end that came first.
func (c *coordinator) scriptedPending() bool {
	if len(c.requests) > 0 || (c.triggering != nil && c.triggering.scripted) {
		return true
	}
	for cp, f := range c.inFlight {
		if f.scripted && !c.aborted[cp] {
			return true
		}
	}
	return false
}

// finish ends a job whose latest snapshot shows nothing left to do. The periodic snapshots
// still under way have nothing left to record and are aborted, said so in the trace (one
// whose trigger is being persisted, when that write returns).
func (c *coordinator) finish() {
	c.finishing = true
	c.h.SetFinished()
	c.abortInFlight(protocol.ReasonJobFinished)
	for _, r := range c.requests {
		c.abortSnapshot(r.cp, protocol.ReasonJobFinished)
	}
	c.requests = nil
	c.orderFinish()
}

// abortInFlight aborts, in id order, every snapshot that started and is not collected yet
// (those aborted already only waited for their last answers).
func (c *coordinator) abortInFlight(reason protocol.Reason) {
	for _, cp := range slices.Sorted(maps.Keys(c.inFlight)) {
		if !c.aborted[cp] {
			c.abortSnapshot(cp, reason)
		}
	}
	clear(c.inFlight)
}

// orderFinish sends every process the order to finish. The order may be lost on the way
// (a partition drops it without a word), and a process that never gets it runs on forever:
// so tick sends it again every SnapshotInterval until every process has exited. A process
// that has exited drops the repeats, and one that is still running finishes at the first
// that arrives.
func (c *coordinator) orderFinish() {
	if c.h.Finished() {
		return
	}
	for i := 0; i < c.n; i++ {
		c.h.Proc().Send(c.op.TaskID(i), &tokenCommand{attempt: c.h.Attempt(), kind: "finish"})
	}
}

// stale reports whether news from a process of attempt comes too late to act on: this
// incarnation is dead or has not deployed yet, or a restart superseded that attempt.
func (c *coordinator) stale(attempt int) bool {
	return c.h.Dead() || c.collector == nil || c.restarting || attempt != c.h.Attempt()
}

// TaskFailed implements engine.KindCoordinator.
func (c *coordinator) TaskFailed(attempt int) {
	if c.stale(attempt) {
		return
	}
	c.failover(protocol.ReasonTaskFailure)
}

// failover restarts every process from the latest global snapshot. The snapshots under way
// end with it (their processes are cancelled); those asked for and not started yet start
// in the next attempt.
func (c *coordinator) failover(reason protocol.Reason) {
	if !c.h.Dead() {
		c.abortInFlight(protocol.ReasonFailover)
	}
	var cp uint64
	if c.latest != nil {
		cp = uint64(c.latest.ID)
	}
	c.trace(trace.Event{Kind: trace.KindJobFailover, CP: cp, Reason: reason.String()})
	if c.h.Dead() {
		return
	}
	c.h.CancelTasks()
	c.h.SetAttempt(c.h.Attempt() + 1)
	c.restarting = true
	c.finishing = false
	c.h.Proc().After(c.h.RestartDelay(), func() {
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
