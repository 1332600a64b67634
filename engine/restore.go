package engine

import (
	"fmt"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// start begins the incarnation: it restores from checkpoint restore (nil: a fresh start)
// and then runs. Restoring reads the task's state from storage, applies it, lets a sink
// finish the transactions it left behind, and only then hands the protocol its Restore
// input, so that the protocol sees the task as it was at the cut.
func (t *task) start(restore *protocol.CompletedCheckpoint) {
	if restore == nil {
		d := t.capture(0)
		if t.sink != nil {
			t.sink.recover(nil, 0, func() { t.running(0, protocol.TaskSnapshot{}, d, false) })
			return
		}
		t.running(0, protocol.TaskSnapshot{}, d, false)
		return
	}
	snap, ok := restore.Snapshot(protocol.TaskID(t.plan.id))
	if !ok {
		panic(fmt.Sprintf("engine: checkpoint %d has no snapshot of %s", restore.ID, t.plan.id))
	}
	cp := restore.ID
	t.proc.Read(snap.Handle, func(data []byte, err error) {
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		d, err := decodeSnapshot(data)
		if err == nil && (d.task != t.plan.id || d.cp != uint64(cp)) {
			err = fmt.Errorf("engine: state under %s is %s's for %d", snap.Handle, d.task, d.cp)
		}
		if err == nil {
			err = t.apply(d)
		}
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		if t.sink != nil {
			t.sink.recover(d, cp, func() { t.running(cp, snap, d, true) })
			return
		}
		t.running(cp, snap, d, true)
	})
}

// apply loads a decoded snapshot into the task.
func (t *task) apply(d *snapshotData) error {
	if len(d.sent) != len(t.outputs) || len(d.recv) != len(t.inputs) || len(d.channel) != len(t.inputs) {
		return fmt.Errorf("engine: %s: snapshot has %d/%d/%d channels, task has %d outputs and %d inputs",
			t.plan.id, len(d.sent), len(d.recv), len(d.channel), len(t.outputs), len(t.inputs))
	}
	for i, n := range d.sent {
		t.outputs[i].sent = n
	}
	for i, n := range d.recv {
		t.inputs[i].recv = n
	}
	if t.op != nil {
		r := &stateReader{buf: d.operator}
		t.op.restore(r)
		if err := r.done(); err != nil {
			return fmt.Errorf("engine: %s: operator state: %w", t.plan.id, err)
		}
	}
	if t.source != nil {
		if err := t.source.restore(d.offsets); err != nil {
			return err
		}
	}
	return nil
}

// running finishes the restore: the protocol learns where the task resumes, task.restore
// records the state the task now holds (re-encoded from the live task, so a restore that
// lost something shows a different digest), channel state is queued for replay ahead of
// new input, and control messages that arrived meanwhile are handled.
func (t *task) running(cp protocol.CheckpointID, snap protocol.TaskSnapshot, d *snapshotData, restored bool) {
	if !t.alive() {
		return
	}
	if restored {
		if err := t.proto.Restore(t.now(), cp, snap); err != nil {
			panic(fmt.Sprintf("engine: %s: restore %d: %v", t.plan.id, cp, err))
		}
	}
	live := t.capture(cp)
	live.channel = d.channel
	live.twoPhase = d.twoPhase
	live.tokens = d.tokens
	t.trace(trace.Event{Kind: trace.KindTaskRestore, Task: t.plan.id, CP: uint64(cp),
		Attrs: []trace.Attr{{Key: trace.AttrState, Value: Digest(live.encode())}}})
	t.phase = phaseRunning
	for i, recs := range d.channel {
		for len(recs) > 0 {
			n := min(len(recs), t.rt.cfg.Network.BufferRecords)
			t.inputs[i].replay = append(t.inputs[i].replay, recs[:n])
			recs = recs[n:]
		}
	}
	deferred := t.deferred
	t.deferred = nil
	t.handleReady()
	for _, m := range deferred {
		if t.phase != phaseRunning {
			return
		}
		t.step(m)
	}
	t.pump()
}
