package engine

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// The processing loop of a task: taking input in channel order as the protocol admits it,
// running records through the logic, and noticing the end of input.

// pump processes input until there is none the task may take, the task is busy, or it
// has done maxPumpSteps steps, after which it yields and continues in a new callback.
func (t *task) pump() {
	if t.phase != phaseRunning || t.inPump {
		return
	}
	t.inPump = true
	defer func() { t.inPump = false }()
	for range maxPumpSteps {
		if t.phase != phaseRunning {
			return
		}
		if t.isBusy() {
			t.resumeWhenIdle()
			return
		}
		var progressed bool
		switch {
		case t.kind != nil:
			progressed = t.kind.Consume()
		case t.source != nil:
			progressed = t.source.step()
		default:
			progressed = t.consume()
		}
		if !progressed {
			return
		}
	}
	t.schedulePump(0)
}

func (t *task) schedulePump(d time.Duration) {
	if t.pumpArmed {
		return
	}
	t.pumpArmed = true
	if t.pumpTimer == nil {
		t.pumpTimer = t.proc.NewTimer(func() {
			t.pumpArmed = false
			t.pump()
		})
	}
	t.pumpTimer.Reset(d)
}

// occupy makes the task busy for the processing time of n records: it takes no further
// input until busyUntil. No event marks the end of a busy period unless something waits
// for it (resumeWhenIdle): an idle task's busy period simply runs out, which saves an event
// per buffer in the common case of a task that keeps up with its input.
func (t *task) occupy(n int) {
	perRecord := t.rt.cfg.RecordCost
	if t.plan.op.RecordCost != 0 {
		perRecord = t.plan.op.RecordCost
	}
	cost := time.Duration(n) * perRecord
	if cost <= 0 {
		return
	}
	t.busy = true
	t.busyUntil = t.rt.env.Now() + int64(cost)
}

// isBusy reports whether the task is still processing; a busy period whose time has come
// ends here. The common case, an idle task, is this small function alone, which inlines
// into the pump loop.
func (t *task) isBusy() bool {
	return t.busy && t.stillBusy()
}

// stillBusy is isBusy for a task that was busy: it ends the period if its time has come.
func (t *task) stillBusy() bool {
	if t.rt.env.Now() >= t.busyUntil {
		t.endBusy()
	}
	return t.busy
}

func (t *task) endBusy() {
	t.busy = false
	if t.busyArmed {
		t.busyArmed = false
		t.busyTimer.Stop()
	}
}

// resumeWhenIdle arranges for the pump to run again when the busy period ends, if it will
// have something to do then. A source that will have nothing to read sleeps until its next
// records are due instead; a task with nothing queued is pumped by its next input.
func (t *task) resumeWhenIdle() {
	if t.busyArmed || !t.hasWork() {
		return
	}
	t.busyArmed = true
	if t.busyTimer == nil {
		t.busyTimer = t.proc.NewTimer(func() {
			t.busyArmed = false
			t.busy = false
			t.pump()
		})
	}
	t.busyTimer.Reset(time.Duration(max(t.busyUntil-t.rt.env.Now(), 0)))
}

// hasWork reports whether the pump would make progress once the task is idle: input is
// queued, input has ended and the task has yet to finish, or a source will have records
// to read (else the source is put to sleep until they are due).
func (t *task) hasWork() bool {
	if t.source != nil {
		return t.source.hasWork(t.busyUntil)
	}
	ended := len(t.inputs) > 0 && !t.finishSent
	for _, in := range t.inputs {
		if !in.empty() {
			return true
		}
		ended = ended && in.ended
	}
	return ended
}

// consume takes the next item from an input (round-robin over inputs), or reports that
// none may be taken now.
func (t *task) consume() bool {
	n := len(t.inputs)
	room := t.hasRoom()
	for k, i := 0, t.nextInput; k < n; k, i = k+1, nextInRound(i, n) {
		in := t.inputs[i]
		if in.empty() || t.proto.Blocked(i) {
			continue
		}
		if in.headIsEvent() {
			t.nextInput = nextInRound(i, n)
			item, _ := in.pop()
			t.receiveEvent(i, item.event)
			return true
		}
		if !room {
			continue
		}
		adm := t.proto.Admit(i)
		switch adm.Action {
		case protocol.AdmitBlock:
			continue
		case protocol.AdmitRecord:
			if !t.recordChannelState(adm.Checkpoint, i, in.head().records) {
				return false
			}
		case protocol.AdmitProcess:
		default:
			t.breakContract(adm.Checkpoint, contractAdmit, fmt.Sprintf("admit answered %s", adm))
			return false
		}
		t.nextInput = nextInRound(i, n)
		item, credited := in.pop()
		if credited {
			t.returnCredit(in)
		}
		t.process(i, item.records)
		t.handleReady() // an AdmitRecord that overflowed declines the checkpoint
		t.occupy(len(item.records))
		if credited {
			// Consumed, and copied by whatever keeps records (bufferPool): the array is free.
			t.rt.buffers.put(item.records)
		}
		return true
	}
	t.maybeFinish()
	return false
}

// nextInRound returns the position after i in a round of n.
func nextInRound(i, n int) int {
	if i+1 < n {
		return i + 1
	}
	return 0
}

// returnCredit counts a consumed network buffer of in and gives the sender its credits
// back once they add up to a batch (creditBatch).
func (t *task) returnCredit(in *inputChannel) {
	in.unannounced++
	if in.unannounced >= t.rt.creditBatch {
		in.unannounced = 0
		t.proc.Send(in.from, t.rt.credits)
	}
}

// receiveEvent hands an in-band event of input i to the protocol.
func (t *task) receiveEvent(i int, ev protocol.ChannelEvent) {
	in := t.inputs[i]
	switch ev.Type {
	case protocol.EventBarrier:
		t.trace(trace.Event{Kind: trace.KindBarrierRecv, Task: t.plan.id, From: in.from, CP: uint64(ev.Checkpoint)})
	case protocol.EventCancelMarker:
		t.trace(trace.MarkerRecv(t.plan.id, in.from, uint64(ev.Checkpoint)))
	case protocol.EventEndOfData, protocol.EventEndOfPartition:
		in.ended = true
		in.dataEnded = in.dataEnded || ev.Type == protocol.EventEndOfData
	}
	if err := t.proto.Receive(t.now(), i, ev); err != nil {
		t.breakContract(ev.Checkpoint, contractReceive, fmt.Sprintf("receive %s from %s: %v", ev, in.from, err))
		return
	}
	t.handleReady()
	if ev.Type == protocol.EventEndOfData {
		// The input's last end of data finishes the task before the events behind it: a
		// barrier queued there (a drain's, a final checkpoint's) finds it finished, and
		// its snapshot is final.
		t.maybeFinish()
	}
}

// process runs records of input i through the task's logic.
func (t *task) process(i int, records []rec) {
	in := t.inputs[i]
	in.recv += int64(len(records))
	if t.rt.cfg.TraceRecords {
		for _, r := range records {
			t.trace(eventRecord(trace.KindRecordRecv, t.plan.id, in.from, "", t.rt.plan.catalog.rid(r)))
		}
	}
	if t.sink != nil {
		t.sink.write(records)
		return
	}
	// The operator derives the whole buffer before any of it is routed: it reads and writes
	// only its own state, and routing only the outputs, so the order between them is not
	// observable, while timer resets and sends keep their order.
	t.routeAll(t.op.process(t.plan.inputEdge[i], records))
}

// routeAll sends records, in order, to the output channels their edges' partitionings
// choose: route for a whole buffer. The common cases, a single forward or hash edge, take
// a loop of their own, without the per-record dispatch of route.
func (t *task) routeAll(records []rec) {
	if len(t.routers) != 1 {
		for _, r := range records {
			t.route(r)
		}
		return
	}
	r, channels := t.routers[0], t.plan.outEdges[0].channels
	switch r.partitioning {
	case Forward:
		t.emitAll(t.connected(channels, 0, r.self), records)
	case Hash:
		t.emitHashed(channels, r.groups, records)
	default:
		for _, record := range records {
			t.route(record)
		}
	}
}

// connected returns the output channel of downstream task j of edge e, which must be
// connected.
func (t *task) connected(channels []int, e, j int) int {
	out := channels[j]
	if out < 0 {
		t.unconnected(e, j)
	}
	return out
}

func (t *task) unconnected(e, j int) {
	panic(invariantf("engine: %s: routed to unconnected task %d of edge %d", t.plan.id, j, e))
}

// route sends record to the output channels its edges' partitionings choose.
func (t *task) route(record rec) {
	for e, r := range t.routers {
		channels := t.plan.outEdges[e].channels
		first, n := r.targets(&record)
		for j := first; j < first+n; j++ {
			t.emit(t.connected(channels, e, j), record)
		}
	}
}

// maybeFinish tells the protocol the task is done once every input ended and was drained.
func (t *task) maybeFinish() {
	if t.finishSent || len(t.inputs) == 0 || t.exitWhenIdle {
		return
	}
	for _, in := range t.inputs {
		// A stopping task's inputs end as the tasks upstream exit: the job stops, it does
		// not reach the end of its input, unless a drain ended it (end of data).
		if !in.ended || in.recordsLeft() || t.proto.Stopping() && !in.dataEnded {
			return
		}
	}
	t.finish()
}

// finish flushes the outputs and tells the protocol the task produced its last record.
func (t *task) finish() {
	t.finishSent = true
	t.flushAll()
	if err := t.proto.Finish(t.now()); err != nil {
		t.breakContract(0, contractFinish, err.Error())
		return
	}
	t.handleReady()
}
