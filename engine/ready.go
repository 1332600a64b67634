package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// handleReady does what the protocol task asks, in the order its documentation requires:
// snapshots first (a synchronous cut before any further record), then the events on the
// outputs (so a barrier follows the state it cuts), uploads of sealed channel state, aborts
// and releases, messages to the coordinator, and the listener notifications last (a
// notification for n never overtakes the snapshot of n). It loops because handling one
// Ready can produce the next (a snapshot completed synchronously, say).
func (t *task) handleReady() {
	if t.proto == nil {
		return // a JobKind's task: its logic does its own protocol work
	}
	for guard := 0; t.proto.HasReady(); guard++ {
		if guard > 1000 {
			panic(invariantf("engine: %s: protocol keeps producing work", t.plan.id))
		}
		if !t.alive() {
			return
		}
		rd := t.proto.Ready()
		for _, req := range rd.Snapshots {
			t.takeSnapshot(req)
		}
		for _, s := range rd.Sends {
			o := t.outputs[s.Output]
			switch s.Event.Type {
			case protocol.EventBarrier:
				t.trace(trace.Event{Kind: trace.KindBarrierSend, Task: t.plan.id, To: o.to, CP: uint64(s.Event.Checkpoint)})
			case protocol.EventCancelMarker:
				t.trace(trace.MarkerSend(t.plan.id, o.to, uint64(s.Event.Checkpoint)))
			}
			if !s.Priority || !t.sendPriority(s.Output, s.Event) {
				t.sendEvent(s.Output, s.Event)
			}
		}
		for _, req := range rd.Snapshots {
			if ps := t.snapshots[req.Checkpoint]; ps != nil && ps.deferred {
				ps.deferred = false
				t.finalise(ps)
			}
		}
		for _, id := range rd.Sealed {
			t.sealSnapshot(id)
		}
		for _, a := range rd.Aborted {
			t.dropSnapshot(a.Checkpoint)
		}
		for _, r := range rd.Released {
			t.deleteKey(r.Snapshot.Handle)
			t.trace(trace.StateRelease(t.plan.id, uint64(takenFor(r))))
			for _, p := range r.Pieces {
				t.deletePiece(p)
			}
		}
		for i := range rd.Messages {
			t.sendControl(&rd.Messages[i])
		}
		for _, n := range rd.Notifications {
			t.notify(n)
		}
		if t.source != nil && t.source.enumerated() {
			t.source.takeSplits(&rd)
		}
		if rd.Exit {
			if !t.alive() {
				// Killed in the middle of this Ready (a fault fired by one of its trace
				// events): a dead incarnation does not exit, it stays dead.
				return
			}
			t.exitWhenIdle = true
			t.maybeExit()
			return
		}
	}
	t.ackInlined()
	t.armTick()
}

// ackInlined completes the snapshots whose state went inline (finalise). It runs once
// the Ready that took them is handled: acknowledging one inside that Ready would handle
// the next Ready, and pump records, before the barriers of the first were sent.
//
// The queue's array is kept for the next checkpoint's snapshots (an append per snapshot
// into a fresh slice was an allocation per snapshot). Acknowledging one may handle the next
// Ready and so call ackInlined again, nested: inlinedHead is shared, so the nested call
// goes on where this one is and the order stays that of the queue.
func (t *task) ackInlined() {
	for t.inlinedHead < len(t.inlined) {
		ps := t.inlined[t.inlinedHead]
		t.inlined[t.inlinedHead] = nil
		t.inlinedHead++
		ps.writeDone(nil)
	}
	t.inlined, t.inlinedHead = t.inlined[:0], 0
}

// sendControl sends a protocol message to the coordinator and traces acks and declines.
func (t *task) sendControl(m *protocol.Message) {
	switch m.Type {
	case protocol.MsgAck:
		t.trace(trace.SnapshotAck(t.plan.id, uint64(m.Checkpoint), m.Snapshot.Final))
	case protocol.MsgDecline:
		t.trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: t.plan.id, CP: uint64(m.Checkpoint), Reason: m.Reason.String()})
	}
	c := t.rt.controls.next()
	*c = taskControl{attempt: t.attempt, msg: *m}
	t.proc.Send(coordinatorName, c)
}

// notify delivers a notification to the task's listener (the sink) and traces it.
func (t *task) notify(n protocol.Notification) {
	kind := trace.KindNotifyComplete
	if n.Type == protocol.NotifyAborted {
		kind = trace.KindNotifyAbort
	}
	t.trace(trace.Event{Kind: kind, Task: t.plan.id, CP: uint64(n.Checkpoint)})
	if t.inc != nil {
		if n.Type == protocol.NotifyAborted {
			t.inc.aborted(n.Checkpoint)
		} else {
			t.inc.completed(n.Checkpoint)
		}
	}
	if t.sink != nil {
		n.Deliver(t.sink)
	}
}

// maybeExit ends a task the protocol let exit once nothing it started is left: a sink's
// requests the store has not answered (so that a finished job has its output committed),
// uploads of snapshots it gave up, whose end deletes what landed, and those deletes. A
// task that exited would not be there to delete them, and a fault after its exit would
// leave them for good.
func (t *task) maybeExit() {
	if t.exitWhenIdle && t.uploads == 0 && t.deletes == 0 && (t.sink == nil || len(t.sink.unanswered) == 0) && t.alive() {
		t.exitWhenIdle = false
		t.exit()
	}
}

// exit ends a finished task whose final snapshot is durable.
func (t *task) exit() {
	if !t.alive() {
		panic(invariantf("engine: %s: exit of an incarnation that is not running (phase %d)", t.plan.id, t.phase))
	}
	for _, o := range t.outputs {
		if o.queue.len() > 0 || len(o.partial) > 0 {
			panic(invariantf("engine: %s exits with output to %s still queued", t.plan.id, o.to))
		}
	}
	// Exited before the trace says so: a fault that task.finish triggers (a crash) then
	// finds the task gone, as a finished Flink task cannot fail.
	t.phase = phaseExited
	if t.finishSent || t.rt.stoppedBy == 0 {
		t.trace(trace.TaskFinish(t.plan.id))
	} else {
		// A completed stop-with-savepoint lets a task exit before its input ends.
		t.trace(trace.TaskStop(t.plan.id, uint64(t.rt.stoppedBy)))
	}
	if t.tick.timer != nil {
		t.tick.timer.Stop()
	}
	if t.rt.noteFinished() {
		t.rt.jobDone()
	}
}

// armTick keeps one timer at the protocol's next deadline (an alignment timeout).
func (t *task) armTick() { t.tick.set(t.proc, t.now(), t.proto.NextDeadline(), t) }

// deadlinePassed implements deadlineOwner: the protocol's deadline came.
func (t *task) deadlinePassed() {
	t.proto.Tick(t.now())
	t.handleReady()
	t.pump()
}

// deleteKey deletes state the task released or gave up (deleteDurably); the task exits
// only once its deletes have ended (maybeExit). Inline state has nothing to delete.
func (t *task) deleteKey(key string) {
	if isInline(key) {
		return
	}
	t.deletes++
	deleteDurably(t.proc, t.rt.cfg.VerifyWrites, key, func() {
		t.deletes--
		t.maybeExit()
	})
}
