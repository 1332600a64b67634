package engine

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// task is one incarnation of one task: the engine's side of a protocol.Task. It owns the
// channels, the operator (or source, sink, token process) and the snapshots in flight, and
// does all the I/O the protocol asks for.
type task struct {
	rt      *Runtime
	plan    *taskPlan
	proc    Proc
	attempt int
	phase   taskPhase
	proto   *protocol.Task

	inputs    []*inputChannel
	outputs   []*outputChannel
	routers   []*router // one per output edge
	nextInput int       // round-robin position over inputs

	op     operator    // Map, Filter, Aggregate, Union
	source *sourcePart // Source
	sink   *sinkPart   // Sink

	snapshots map[protocol.CheckpointID]*pendingSnapshot

	// deferred holds control messages that arrived while the task was restoring.
	deferred []protocol.Message

	busy       bool // processing the last buffer takes virtual time
	inPump     bool
	pumpArmed  bool
	flushArmed bool
	tickTimer  Timer
	tickAt     protocol.Time
	finishSent bool // Finish was called on the protocol task
}

type taskPhase uint8

const (
	phaseRestoring taskPhase = iota + 1
	phaseRunning
	phaseExited // finished and released by the protocol
	phaseDead   // crashed, failed or cancelled
)

// maxPumpSteps bounds the buffers one callback processes before it yields to the rest of
// the simulated world.
const maxPumpSteps = 64

func newTask(rt *Runtime, plan *taskPlan, attempt int) *task {
	t := &task{rt: rt, plan: plan, attempt: attempt, phase: phaseRestoring,
		snapshots: make(map[protocol.CheckpointID]*pendingSnapshot)}
	for _, c := range plan.inputs {
		t.inputs = append(t.inputs, &inputChannel{from: string(c.From)})
	}
	for _, c := range plan.outputs {
		t.outputs = append(t.outputs, &outputChannel{to: string(c.To), credits: rt.cfg.Network.Credits})
	}
	for _, oe := range plan.outEdges {
		t.routers = append(t.routers, newRouter(oe.partitioning, plan.index, len(oe.channels)))
	}
	switch l := plan.op.Logic.(type) {
	case Source:
		t.source = newSourcePart(t, l)
	case Sink:
		t.sink = newSinkPart(t, l.Type)
	default:
		t.op = newOperator(l)
	}
	cfg := rt.cfg.Checkpoint.TaskConfig(protocol.TaskID(plan.id), plan.inputs, plan.outputs)
	proto, err := protocol.NewTask(cfg)
	if err != nil {
		panic(fmt.Sprintf("engine: task %s: %v", plan.id, err))
	}
	t.proto = proto
	return t
}

func (t *task) now() protocol.Time { return protocol.Time(t.rt.env.Now()) }

// alive reports whether the incarnation may still act and emit.
func (t *task) alive() bool {
	return (t.phase == phaseRunning || t.phase == phaseRestoring) && t.proc.Alive()
}

// Receive implements Process.
func (t *task) Receive(from string, msg any) {
	if !t.alive() {
		return
	}
	switch m := msg.(type) {
	case *bufferMsg:
		t.enqueue(from, inItem{records: m.records})
	case *eventMsg:
		t.enqueue(from, inItem{event: m.event})
	case *creditMsg:
		out, ok := t.plan.outputByTo[from]
		if !ok {
			panic(fmt.Sprintf("engine: %s: credit from %s, which is no output", t.plan.id, from))
		}
		t.onCredit(out, m.credits)
		t.pump()
	case protocol.Message:
		if t.phase == phaseRestoring {
			t.deferred = append(t.deferred, m)
			return
		}
		t.step(m)
	case *storeReply:
		if t.sink == nil {
			panic(fmt.Sprintf("engine: %s: store reply to a task without a sink", t.plan.id))
		}
		t.sink.onReply(m)
		t.pump()
	default:
		panic(fmt.Sprintf("engine: %s: unexpected message %T from %s", t.plan.id, msg, from))
	}
}

func (t *task) enqueue(from string, item inItem) {
	i, ok := t.plan.inputByFrom[from]
	if !ok {
		panic(fmt.Sprintf("engine: %s: data from %s, which is no input", t.plan.id, from))
	}
	in := t.inputs[i]
	in.push(item)
	if limit := t.rt.cfg.Network.Credits + 4*t.rt.cfg.Checkpoint.MaxPendingCheckpoints + 4; len(in.queue) > limit {
		panic(fmt.Sprintf("engine: %s: input from %s queues %d items, over the bound %d", t.plan.id, from, len(in.queue), limit))
	}
	t.pump()
}

// step hands a control message from the coordinator to the protocol.
func (t *task) step(m protocol.Message) {
	// Stale and duplicate messages are absorbed by the protocol; other errors are bugs.
	if err := t.proto.Step(t.now(), m); err != nil && err != protocol.ErrUnknownCheckpoint {
		panic(fmt.Sprintf("engine: %s: step %s: %v", t.plan.id, m, err))
	}
	t.handleReady()
	t.pump()
}

// Crashed implements Process: the host died under the task.
func (t *task) Crashed() {
	if t.phase == phaseExited || t.phase == phaseDead {
		return
	}
	t.phase = phaseDead
	t.rt.emit(trace.Event{Kind: trace.KindTaskCrash, Task: t.plan.id})
	t.rt.taskFailed(t, "crash")
}

// fail ends the incarnation because of an error of its own (a failed commit, a fenced
// writer): it is reported like a crash and the job fails over.
func (t *task) fail(reason string) {
	if !t.alive() {
		return
	}
	t.rt.emit(trace.Event{Kind: trace.KindTaskCrash, Task: t.plan.id, Reason: reason})
	t.phase = phaseDead
	t.proc.Kill()
	t.rt.taskFailed(t, reason)
}

// cancel ends the incarnation because the job fails over; nothing is reported.
func (t *task) cancel() {
	if t.phase == phaseDead {
		return
	}
	t.phase = phaseDead
	t.proc.Kill()
}

// pump processes input until there is none the task may take, the task is busy, or it
// has done maxPumpSteps steps, after which it yields and continues in a new callback.
func (t *task) pump() {
	if t.phase != phaseRunning || t.inPump || t.busy {
		return
	}
	t.inPump = true
	defer func() { t.inPump = false }()
	for range maxPumpSteps {
		if t.busy || t.phase != phaseRunning {
			return
		}
		var progressed bool
		if t.source != nil {
			progressed = t.source.step()
		} else {
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
	t.proc.After(d, func() {
		t.pumpArmed = false
		t.pump()
	})
}

// occupy makes the task busy for the processing time of n records.
func (t *task) occupy(n int) {
	cost := time.Duration(n) * t.rt.cfg.RecordCost
	if cost <= 0 {
		return
	}
	t.busy = true
	t.proc.After(cost, func() {
		t.busy = false
		t.pump()
	})
}

// consume takes the next item from an input (round-robin over inputs), or reports that
// none may be taken now.
func (t *task) consume() bool {
	n := len(t.inputs)
	room := t.hasRoom()
	for k := 0; k < n; k++ {
		i := (t.nextInput + k) % n
		in := t.inputs[i]
		if in.empty() || t.proto.Blocked(i) {
			continue
		}
		if in.head().records == nil {
			t.nextInput = (i + 1) % n
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
			t.recordChannelState(adm.Checkpoint, i, in.head().records)
		case protocol.AdmitProcess:
		default:
			panic(fmt.Sprintf("engine: %s: admit %s", t.plan.id, adm))
		}
		t.nextInput = (i + 1) % n
		item, credited := in.pop()
		if credited {
			t.proc.Send(in.from, &creditMsg{credits: 1})
		}
		t.process(i, item.records)
		t.handleReady() // an AdmitRecord that overflowed declines the checkpoint
		t.occupy(len(item.records))
		return true
	}
	t.maybeFinish()
	return false
}

// receiveEvent hands an in-band event of input i to the protocol.
func (t *task) receiveEvent(i int, ev protocol.ChannelEvent) {
	in := t.inputs[i]
	switch ev.Type {
	case protocol.EventBarrier:
		t.trace(trace.Event{Kind: trace.KindBarrierRecv, Task: t.plan.id, From: in.from, CP: uint64(ev.Checkpoint)})
	case protocol.EventEndOfData, protocol.EventEndOfPartition:
		in.ended = true
	}
	if err := t.proto.Receive(t.now(), i, ev); err != nil {
		panic(fmt.Sprintf("engine: %s: receive %s from %s: %v", t.plan.id, ev, in.from, err))
	}
	t.handleReady()
}

// process runs records of input i through the task's logic.
func (t *task) process(i int, records []Record) {
	in := t.inputs[i]
	in.recv += int64(len(records))
	if t.rt.cfg.TraceRecords {
		for _, r := range records {
			t.trace(eventRecord(trace.KindRecordRecv, t.plan.id, in.from, "", r.RID))
		}
	}
	if t.sink != nil {
		t.sink.write(records)
		return
	}
	side := t.plan.inputEdge[i]
	for _, r := range records {
		t.op.process(side, r, t.route)
	}
}

// route sends rec to the output channels its edges' partitionings choose.
func (t *task) route(rec Record) {
	for e, r := range t.routers {
		channels := t.plan.outEdges[e].channels
		r.route(&rec, func(j int) {
			out := channels[j]
			if out < 0 {
				panic(fmt.Sprintf("engine: %s: routed to unconnected task %d of edge %d", t.plan.id, j, e))
			}
			t.emit(out, rec)
		})
	}
}

// maybeFinish tells the protocol the task is done once every input ended and was drained.
func (t *task) maybeFinish() {
	if t.finishSent || len(t.inputs) == 0 {
		return
	}
	for _, in := range t.inputs {
		if !in.ended || !in.empty() {
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
		panic(fmt.Sprintf("engine: %s: finish: %v", t.plan.id, err))
	}
	t.handleReady()
}
