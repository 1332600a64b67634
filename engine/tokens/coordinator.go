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
	// reserved is the highest id this incarnation may hand out without a write: the end of
	// the block of ids the durable counter holds (see reserveAhead), and reserving tells
	// that the next block is being written.
	reserved  uint64
	reserving bool
	turn      int
	// scriptDue counts the scripted snapshots this incarnation has yet to ask for.
	scriptDue int
	// waiting: the script's next wait has begun and not ended yet (checkWait).
	waiting bool
	// requests are the snapshots asked for and not started yet, in order; those at the end
	// may wait for an id (cp 0) until the next block of ids is durable.
	requests []tokenRequest
	inFlight map[uint64]tokenInFlight // started and not yet collected
	aborted  map[uint64]bool
	// counterSlots and storeSlots hold the id counter and the latest global snapshot.
	counterSlots, storeSlots *engine.DurableValue
	latest                   *protocol.CompletedCheckpoint
	metaQueue                []queuedSnapshot
	metaBusy                 bool
	restarting               bool
	finishing                bool
	tickTimer                engine.Timer // nil while no tick is armed
	// stopped: the job is done (every process exited), so no tick is armed any more.
	stopped bool
}

// tokenRequest is a snapshot asked for: its id is handed out, and traced, at once (from the
// block of ids reserved ahead), so that it is visible from the moment it is asked for,
// however long it then waits to start. Only a burst of requests that outruns the reserved
// block waits, unnamed (cp 0) and untraced, for the next block.
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
		c.reserved = c.idBlock() // the job's first block, reserved with the job (see reserveAhead)
		c.scheduleScript(0)
		c.reset()
		c.deploy()
		c.armTick()
		return
	}
	c.read(time.Duration(c.now()))
}

// scheduleScript asks for each scripted snapshot due from since on at its time, at once for
// those whose time has come already, in the waves whose waits have ended, and looks out for
// the next wait. A recovering incarnation calls it once it has read the id counter back,
// since it cannot name a snapshot before; the snapshots due while no incarnation ran are
// nobody's to ask for.
func (c *coordinator) scheduleScript(since time.Duration) {
	if c.spec.Script == nil {
		return
	}
	for w := 0; w <= c.spec.Script.Gates.Ended(); w++ {
		c.scheduleWave(w, since)
	}
	c.armWait()
}

// scheduleWave asks for the scripted snapshots of wave w due from since on at their times.
func (c *coordinator) scheduleWave(w int, since time.Duration) {
	now := time.Duration(c.now())
	for _, sn := range c.spec.Script.Snapshots {
		at, _ := c.spec.Script.When(w, sn.At)
		if sn.Wave != w || at < since {
			continue
		}
		c.scriptDue++
		c.h.Proc().After(max(at-now, 0), func() {
			if c.h.Dead() {
				return
			}
			c.scriptDue--
			c.request(sn.Initiator, true)
		})
	}
}

// armWait looks out for the script's next wait: once its time has come, checkWait ends it as
// soon as no snapshot is pending.
func (c *coordinator) armWait() {
	sc := c.spec.Script
	k := sc.Gates.Ended()
	if k >= len(sc.Waits) {
		return
	}
	at, _ := sc.When(k, sc.Waits[k])
	c.h.Proc().After(max(at-time.Duration(c.now()), 0), func() {
		if c.h.Dead() {
			return
		}
		c.waiting = true
		c.checkWait()
	})
}

// checkWait ends the script's current wait, if it has begun and every snapshot asked for
// (scripted: the script asks for every one until it ends) has completed or aborted: none is
// still to be asked for, waits to start, is in flight or is being persisted. Then the next
// wave's snapshots are asked for at their times, and the processes make its transfers at
// theirs (tokenPlan.due).
func (c *coordinator) checkWait() {
	if !c.waiting || c.h.Dead() || c.scriptDue > 0 || c.scriptedPending() || c.metaBusy || len(c.metaQueue) > 0 {
		return
	}
	c.waiting = false
	now := time.Duration(c.now())
	c.spec.Script.Gates.end(now)
	c.scheduleWave(c.spec.Script.Gates.Ended(), now)
	c.armWait()
}

// scriptOver reports whether the script, if any, has ended and every snapshot it holds has
// been asked for: periodic snapshots and the job's end wait for it. (A snapshot due at the
// script's end may be asked for after a tick at the same instant.)
func (c *coordinator) scriptOver() bool {
	sc := c.spec.Script
	if sc == nil {
		return true
	}
	end, ok := sc.When(len(sc.Waits), sc.End)
	return ok && c.now() >= int64(end) && c.scriptDue == 0
}

// request asks for a snapshot initiated at process o: it hands out the next id, traces the
// request and starts the snapshot as soon as it may, at once if the collector has room. Ids
// grow in the order snapshots are asked for, and requests start in that order, so they also
// grow in the order snapshots start, as the processes' duplicate detection needs (see
// nextTokenID).
func (c *coordinator) request(o int, scripted bool) {
	c.requests = append(c.requests, tokenRequest{initiator: o, scripted: scripted})
	c.name()
	c.startRequested()
}

// idBlockSnapshots is how many snapshots one block of reserved ids is good for at least.
const idBlockSnapshots = 16

// idBlock is the span of the counter one block reserves: a snapshot uses at most n ids
// (nextTokenID), so idBlockSnapshots*n ids are enough for idBlockSnapshots snapshots.
func (c *coordinator) idBlock() uint64 { return idBlockSnapshots * uint64(c.n) }

// name hands out ids, in order, to the requests that wait for one, as long as the reserved
// block lasts, and traces each request as it gets its id; then it reserves ahead.
func (c *coordinator) name() {
	for i := range c.requests {
		r := &c.requests[i]
		if r.cp != 0 {
			continue
		}
		cp := nextTokenID(c.lastID, c.n, r.initiator)
		if cp > c.reserved {
			break
		}
		r.cp, c.lastID = cp, cp
		c.trace(trace.Event{Kind: trace.KindCheckpointRequest, CP: cp})
	}
	c.reserveAhead()
}

// reserveAhead keeps ids reserved ahead of the requests, so that a snapshot never waits for
// a write of the counter before it starts: once less than half a block is left (or a request
// waits for an id), it persists the counter at the end of the next block, with one durable
// write, and hands out the ids of that block once the write has succeeded (a failed one is
// retried). The durable counter thus always holds the end of a block that no id handed out
// exceeds, and a recovering incarnation hands out ids only above it (read), so ids grow
// across coordinator crashes. The job's first block (up to idBlock) is reserved with the
// job, as a job's id counter starts when it is submitted: a counter never written stands for
// it, and the first write reserves the second block.
func (c *coordinator) reserveAhead() {
	waiting := len(c.requests) > 0 && c.requests[len(c.requests)-1].cp == 0
	if c.reserving || c.h.Dead() || (!waiting && c.reserved-c.lastID >= c.idBlock()/2) {
		return
	}
	c.reserving = true
	next := c.reserved + c.idBlock()
	c.counterSlots.Write(c.h.Proc(), c.h.Config().VerifyWrites, engine.EncodeCounter(next), c.live, func(err error) {
		c.reserving = false
		switch {
		case c.h.Dead():
			return
		case err != nil:
			c.h.Proc().After(c.h.Config().StorageRetry, c.reserveAhead)
			return
		}
		c.reserved = next
		c.name()
		c.startRequested()
	})
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
			if c.h.FinishReported() {
				return // the job finished while this incarnation read the store
			}
			var id uint64
			if latest != nil {
				c.latest, id = latest, uint64(latest.ID)
			}
			c.trace(trace.Event{Kind: trace.KindCoordinatorRecover, CP: id})
			// The counter read back ends a block an earlier incarnation may have used up
			// to its last id: this one reserves its own block above it before it names a
			// snapshot. A counter never written stands for the job's first block.
			c.lastID = max(c.lastID, c.idBlock())
			c.reserved = c.lastID
			c.reserveAhead()
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

// canInitiate reports whether a snapshot may start now: the job runs and the collector
// has room.
func (c *coordinator) canInitiate() bool {
	return c.collector != nil && !c.h.Dead() && !c.restarting && !c.finishing && !c.collector.Full()
}

// startRequested starts the snapshots asked for, in order, as long as they may start now
// and have their ids; the others follow as room frees up (or their ids are reserved).
func (c *coordinator) startRequested() {
	for len(c.requests) > 0 && c.requests[0].cp != 0 && c.canInitiate() {
		r := c.requests[0]
		c.requests = c.requests[1:]
		c.initiate(r)
	}
}

// initiate starts snapshot r at once: its id is reserved already (reserveAhead), so it
// starts at the collector and orders its initiator, and every process the initiator cannot
// reach, to record it, in the instant it may start: a scripted snapshot at its time, when
// the collector has room.
func (c *coordinator) initiate(r tokenRequest) {
	cp := r.cp
	if err := c.collector.Start(snapshotID(c.op, cp)); err != nil {
		panic(fmt.Sprintf("tokens: token collector: %v", err))
	}
	c.inFlight[cp] = tokenInFlight{since: c.now(), scripted: r.scripted}
	c.trace(trace.Event{Kind: trace.KindCheckpointTrigger, CP: cp})
	initiator := cl.ProcessID(c.op.TaskID(r.initiator))
	for _, p := range append([]cl.ProcessID{initiator}, c.graph.Joiners(initiator)...) {
		c.h.Proc().Send(string(p), &tokenCommand{attempt: c.h.Attempt(), kind: "record", cp: cp})
	}
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
	// An abort may end the script's wait; an answer may free room for a scripted snapshot
	// that waits.
	defer c.checkWait()
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
	c.metaQueue = append(c.metaQueue, queuedSnapshot{cc, terminal})
	c.persist()
}

// queuedSnapshot is a collected global snapshot waiting for its write; terminal says it
// shows every process done and nothing in flight, so its completion may end the job. The
// flag travels with the snapshot: one queued behind another's write is still terminal.
type queuedSnapshot struct {
	cc       protocol.CompletedCheckpoint
	terminal bool
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
func (c *coordinator) persist() {
	if c.metaBusy || len(c.metaQueue) == 0 {
		return
	}
	cc, terminal := c.metaQueue[0].cc, c.metaQueue[0].terminal
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
		c.persist()
		c.checkWait()
	})
}

// scriptedPending reports whether a snapshot the script asked for has yet to start, or to
// be collected: the job's end waits for those, so that a script's snapshots are taken
// rather than aborted by an end that came first.
func (c *coordinator) scriptedPending() bool {
	if len(c.requests) > 0 {
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
// still under way have nothing left to record and are aborted, said so in the trace.
func (c *coordinator) finish() {
	c.finishing = true
	c.h.SetFinished()
	c.abortInFlight(protocol.ReasonJobFinished)
	for _, r := range c.requests {
		if r.cp != 0 { // one still without an id was never traced
			c.abortSnapshot(r.cp, protocol.ReasonJobFinished)
		}
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
	c.checkWait() // the snapshots in flight ended with their abort
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
