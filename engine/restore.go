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
	if t.rt.rescaledFrom(restore) {
		t.startRescaled(restore)
		return
	}
	snap, ok := restore.Snapshot(protocol.TaskID(t.plan.id))
	if !ok {
		t.breakContract(restore.ID, contractRestore, "the restored checkpoint holds no snapshot of the task")
		return
	}
	cp := restore.ID
	restored := func(data []byte, err error) {
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		d, err := decodeSnapshot(t.rt.plan.catalog, data)
		// A finished task's final snapshot is carried into later checkpoints, so the
		// state may be from an earlier checkpoint, never from a later one.
		// The protocol says which checkpoint the snapshot was taken for (TakenFor): the
		// state behind the handle must be that one.
		if err == nil && (d.task != t.plan.id || d.cp > uint64(cp) || d.cp != uint64(cp) && !snap.Final ||
			snap.TakenFor != 0 && d.cp != uint64(snap.TakenFor)) {
			err = fmt.Errorf("engine: state under %s is %s's for %d, restoring %d", handleName(snap.Handle), d.task, d.cp, cp)
		}
		// A carried final snapshot holds no records overtaken in the output queue: they
		// would be emitted again into a checkpoint whose downstream snapshots consumed them.
		// It cannot: end of data is queued before a finished task's barriers, and a
		// priority barrier never passes an event.
		if err == nil && d.cp != uint64(cp) && len(d.output) > 0 {
			for _, recs := range d.output {
				if len(recs) > 0 {
					panic(invariantf("engine: %s: final snapshot for %d, carried into %d, holds overtaken output", t.plan.id, d.cp, cp))
				}
			}
		}
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		t.readPieces(restore, snap, d)
	}
	if data, ok := inlineState(snap.Handle); ok {
		restored(data, nil) // read with the checkpoint's metadata
		return
	}
	t.proc.Read(snap.Handle, restored)
}

// readPieces reads the shared pieces of snap, an incremental snapshot in checkpoint
// restore, and goes on with the restore (restorePieces).
func (t *task) readPieces(restore *protocol.CompletedCheckpoint, snap protocol.TaskSnapshot, d *snapshotData) {
	t.readShared(snap, func(data [][]byte) { t.restorePieces(restore, snap, d, data) })
}

// readShared reads the shared pieces of snap one after the other and hands them to done;
// a failed read fails the task.
func (t *task) readShared(snap protocol.TaskSnapshot, done func(data [][]byte)) {
	data := make([][]byte, 0, len(snap.Shared))
	var read func(i int)
	read = func(i int) {
		if i == len(snap.Shared) {
			done(data)
			return
		}
		t.proc.Read(snap.Shared[i].Handle, func(b []byte, err error) {
			if err != nil {
				t.fail("restore: piece " + snap.Shared[i].Handle + ": " + err.Error())
				return
			}
			data = append(data, b)
			read(i + 1)
		})
	}
	read(0)
}

// restorePieces merges the pieces read into d's keyed state and finishes the restore.
func (t *task) restorePieces(restore *protocol.CompletedCheckpoint, snap protocol.TaskSnapshot, d *snapshotData, data [][]byte) {
	cp := restore.ID
	if len(snap.Shared) > 0 {
		inc := t.inc
		if inc == nil {
			inc = newIncremental(t.rt.cfg.compactAfter()) // restored into a job that takes full snapshots
		}
		notOwn := restore.Kind.IsSavepoint() || t.rt.unclaimed(cp)
		operator, err := inc.restored(cp, notOwn, snap.Shared, data)
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		d.operator = operator
	}
	if err := t.apply(d); err != nil {
		t.fail("restore: " + err.Error())
		return
	}
	if t.sink != nil {
		t.sink.recover(d, cp, func() { t.running(cp, snap, d, true) })
		return
	}
	t.running(cp, snap, d, true)
}

// replayRestored puts the restored records in flight back, ahead of anything the task
// produces or receives from now on: records an unaligned barrier overtook in the output
// queue go out first, a rescaled task processes the channel state it adopted, and the
// task's own input channel state is queued for replay.
func (t *task) replayRestored(d *snapshotData) {
	for out, recs := range d.output {
		for _, r := range recs {
			t.emit(out, r)
		}
	}
	if r := t.rescaled; r != nil {
		t.replayAdopted(r.adopted)
		r.adopted = nil
	}
	for i, recs := range d.channel {
		for len(recs) > 0 {
			n := min(len(recs), t.rt.cfg.Network.BufferRecords)
			t.inputs[i].replay = append(t.inputs[i].replay, recs[:n])
			recs = recs[n:]
		}
	}
}

// apply loads a decoded snapshot into the task.
func (t *task) apply(d *snapshotData) error {
	if len(d.sent) != len(t.outputs) || len(d.recv) != len(t.inputs) || len(d.channel) != len(t.inputs) ||
		d.output != nil && len(d.output) != len(t.outputs) {
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
	if t.kind != nil {
		if d.kind == nil {
			return fmt.Errorf("engine: %s: snapshot has no %s state", t.plan.id, t.rt.kindName())
		}
		t.kind.Restore(*d.kind)
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
	if restored && t.proto != nil {
		if err := t.proto.Restore(t.now(), cp, snap); err != nil {
			t.breakContract(cp, contractRestore, err.Error())
			return
		}
		// A final snapshot restores a task that had reached the end of its input.
		t.finishSent = t.proto.Finished()
	}
	// The digest covers the state as the snapshot recorded it, under the id it was taken
	// for (a carried-over final snapshot keeps its own).
	live := t.capture(protocol.CheckpointID(d.cp))
	live.channel = d.channel
	live.output = d.output
	live.twoPhase = d.twoPhase
	// task.restore names the checkpoint whose snapshot the task holds now: for a finished
	// task carried into a later checkpoint, the one its final snapshot was taken for, so
	// that the restore matches a snapshot.taken of that id.
	digest := Digest(live.encode(t.rt.plan.catalog))
	e := trace.Event{Kind: trace.KindTaskRestore, Task: t.plan.id, CP: d.cp, Attrs: []trace.Attr{{Key: trace.AttrState, Value: digest}}}
	if r := t.rescaled; r != nil {
		e = trace.TaskRestoreRescaled(t.plan.id, d.cp, digest, r.from, t.plan.keyGroups)
		if t.rt.plan.overtaking { // the checkpoints may hold channel state
			e = trace.WithReplayed(e, r.replayed)
		}
		if t.plan.union != "" {
			e = trace.WithUnion(e, t.plan.union, r.kept)
		}
	}
	t.trace(e)
	t.phase = phaseRunning
	t.rt.taskRunning(t)
	t.replayRestored(d)
	if t.kind != nil {
		t.kind.Begin()
		deferred := t.deferredKind
		t.deferredKind = nil
		for _, m := range deferred {
			if t.phase != phaseRunning {
				return
			}
			t.kind.Receive(m.from, m.msg)
		}
		t.pump()
		return
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
