package engine

import (
	"fmt"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// task is one incarnation of one task: the engine's side of a protocol.Task. It owns the
// channels, the operator (or source, sink, a JobKind's task logic) and the snapshots in flight, and
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

	op     operator     // Map, Filter, Aggregate, Union
	source *sourcePart  // Source
	sink   *sinkPart    // Sink
	kind   KindTask     // a JobKind's task logic, instead of a protocol.Task
	inc    *incremental // an operator's runs, with Config.Incremental

	snapshots map[protocol.CheckpointID]*pendingSnapshot
	inlined   []*pendingSnapshot // state held inline, to acknowledge (ackInlined)
	// inlinedHead is the next of inlined to acknowledge.
	inlinedHead int
	overtake    *overtaking // an unaligned barrier being delivered ahead of its buffers

	// deferred holds control messages that arrived while the task was restoring.
	deferred     []protocol.Message
	deferredKind []kindMessage

	busy       bool  // processing the last buffer takes virtual time
	busyUntil  int64 // when the busy period ends, in virtual nanoseconds
	inPump     bool
	pumpArmed  bool
	flushArmed bool
	flushAt    int64 // when the flush timer fires, while flushArmed
	busyArmed  bool
	// Timers made once per incarnation and re-armed: busyTimer resumes work that waited for
	// a processing period to end, pumpTimer a pump that yielded, flushTimer sends
	// part-filled buffers.
	busyTimer, pumpTimer, flushTimer Timer
	tick                             deadlineTimer
	finishSent                       bool // Finish was called on the protocol task
	// uploads counts the snapshots whose writes have not all ended, given up or not.
	uploads int
	// deletes counts the deletes of released or abandoned state still running.
	deletes int
	// exitWhenIdle: the protocol let the task exit, and it does once nothing it started is
	// left (maybeExit).
	exitWhenIdle bool
	// rescaled is what a rescaled restore read and replays; nil for any other restore.
	rescaled *rescaledRestore
}

// rescaledRestore is what a task of a rescaled job took from the earlier job's snapshots
// beyond its state: for its task.restore, and the channel state it replays.
type rescaledRestore struct {
	from     []string       // the snapshots whose state it took
	replayed []trace.Entry  // records of channel state taken from each snapshot
	adopted  []adoptedBatch // those records, to process before any input
	kept     []trace.Entry  // the entries of its union state the task kept
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
		t.outputs = append(t.outputs, &outputChannel{to: string(c.To), input: rt.plan.byID[string(c.To)].inputByFrom[plan.id],
			credits: rt.cfg.Network.Credits})
	}
	for _, oe := range plan.outEdges {
		t.routers = append(t.routers, newRouter(rt.plan.catalog, oe.partitioning, plan.index, len(oe.channels), rt.cfg.Graph.MaxParallelism))
	}
	if rt.kind != nil {
		t.kind = rt.kind.NewTask(&TaskHost{t: t})
		return t
	}
	switch l := plan.op.Logic.(type) {
	case Source:
		t.source = newSourcePart(t, l)
	case Sink:
		t.sink = newSinkPart(t, l.Type)
	default:
		t.op = newOperator(l, rt.plan.catalog)
		if rt.cfg.Incremental {
			t.inc = newIncremental(rt.cfg.compactAfter())
		}
	}
	cfg := rt.cfg.Checkpoint.TaskConfig(protocol.TaskID(plan.id), plan.inputs, plan.outputs)
	proto, err := protocol.NewTask(cfg)
	if err != nil {
		panic(invariantf("engine: task %s: %v", plan.id, err))
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
		t.enqueue(from, m.input, inItem{records: m.take(t.plan.id, from), duplicate: m.duplicate})
	case *eventMsg:
		t.enqueue(from, m.input, inItem{event: m.event})
	case *creditMsg:
		out, ok := t.plan.outputByTo[from]
		if !ok {
			panic(invariantf("engine: %s: credit from %s, which is no output", t.plan.id, from))
		}
		t.onCredit(out, m.credits)
		t.pump()
	case *protocol.Message: // from the coordinator, which sends pointers (handleReady)
		if t.phase == phaseRestoring {
			t.deferred = append(t.deferred, *m)
			return
		}
		t.step(*m)
	case *splitControl:
		if m.attempt != t.attempt {
			return // numbered for an earlier incarnation of the reader
		}
		if t.phase == phaseRestoring {
			t.deferred = append(t.deferred, m.msg)
			return
		}
		t.step(m.msg)
	case *storeReply:
		if t.sink == nil {
			panic(invariantf("engine: %s: store reply to a task without a sink", t.plan.id))
		}
		t.sink.onReply(m)
		t.pump()
	default:
		if t.kind == nil {
			panic(invariantf("engine: %s: unexpected message %T from %s", t.plan.id, msg, from))
		}
		if t.phase == phaseRestoring {
			t.deferredKind = append(t.deferredKind, kindMessage{from: from, msg: msg})
			return
		}
		t.kind.Receive(from, msg)
		t.pump()
	}
}

// kindMessage is a message for a JobKind's task logic that arrived while the task restored.
type kindMessage struct {
	from string
	msg  any
}

// enqueue queues an item from sender from, which says it is input i; the name decides.
func (t *task) enqueue(from string, i int, item inItem) {
	if i < 0 || i >= len(t.inputs) || t.inputs[i].from != from {
		var ok bool
		if i, ok = t.plan.inputByFrom[from]; !ok {
			panic(invariantf("engine: %s: data from %s, which is no input", t.plan.id, from))
		}
	}
	if item.records == nil && t.tryOvertake(i, item.event) {
		t.pump()
		return
	}
	in := t.inputs[i]
	in.push(item)
	if credits := t.rt.cfg.Network.Credits; in.buffers > credits || in.duplicates > credits+1 {
		panic(invariantf("engine: %s: input from %s queues %d buffers and %d duplicates, over the bounds %d and %d",
			t.plan.id, from, in.buffers, in.duplicates, credits, credits+1))
	}
	t.pump()
}

// step hands a control message from the coordinator to the protocol. A trigger is traced as
// it goes in, so that the checkers can ask what the task did with it; a sink that exited in
// the protocol's view, and only waits for the store's answers, takes nothing in any more.
func (t *task) step(m protocol.Message) {
	if m.Type == protocol.MsgTrigger && !t.exitWhenIdle {
		t.trace(trace.TriggerRecv(t.plan.id, uint64(m.Checkpoint)))
	}
	// Stale and duplicate messages are absorbed by the protocol; other errors are bugs.
	if err := t.proto.Step(t.now(), m); err != nil && err != protocol.ErrUnknownCheckpoint {
		t.breakContract(m.Checkpoint, contractStep, fmt.Sprintf("step %s: %v", m, err))
		return
	}
	if t.proto.Finished() {
		t.finishSent = true // a drain ended a source's input at its trigger
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

// trace emits an event of the task unless the incarnation is dead: an event emitted by a
// crashed task's leftover code would contradict the crash.
func (t *task) trace(e trace.Event) {
	if t.phase != phaseDead && t.proc.Alive() {
		t.rt.emit(e)
	}
}

func eventRecord(kind, task, from, to, rid string) trace.Event {
	return trace.Event{Kind: kind, Task: task, From: from, To: to, RID: rid}
}
