package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// pendingSnapshot is a snapshot between its synchronous cut and its acknowledgement.
type pendingSnapshot struct {
	task *task
	req  protocol.SnapshotRequest
	data snapshotData
	// recording: channel state is still being recorded (unaligned); the snapshot is
	// finalised when the protocol seals it.
	recording bool
	finalised bool
	uploaded  bool
	// awaitPrepare: a 2PC sink's pre-commit has not been confirmed by the store yet.
	awaitPrepare bool
	snap         protocol.TaskSnapshot
	failed       bool
	// writes counts the uploads still running (the state and its new pieces); writeErr
	// is the first of them to fail.
	writes   int
	writeErr error
	// pieces are the shared pieces the snapshot uploads (incremental snapshots).
	pieces []pieceUpload
	// deferred: an unaligned snapshot without channel state to wait for is finalised
	// after its barriers are sent, so that the buffers they overtake can join it.
	deferred bool

	room snapshotRoom
}

// snapshotRoom is room for the parts of a snapshot's data inside the pending snapshot: a
// snapshot is taken per task per checkpoint, and one allocation for all of it instead of
// six adds up. The counters, source offsets and channel lists fit when the task has few
// channels and partitions (most have); the operator's writer always does (its bytes are
// allocated as they grow).
type snapshotRoom struct {
	numbers  [16]int64
	channels [8][]rec
	operator stateWriter
}

// capture copies the task's live state at the cut: operator state, source offsets and the
// channel counters. A sink's transaction state is added by its pre-commit.
func (t *task) capture(cp protocol.CheckpointID) *snapshotData {
	d := &snapshotData{}
	t.captureInto(d, cp, nil)
	return d
}

// captureInto is capture into d, taking what fits from room (nil: none).
func (t *task) captureInto(d *snapshotData, cp protocol.CheckpointID, room *snapshotRoom) {
	*d = snapshotData{task: t.plan.id, cp: uint64(cp)}
	if t.op != nil {
		var w *stateWriter
		if room != nil {
			w = &room.operator
		} else {
			w = new(stateWriter)
		}
		t.op.snapshot(w)
		if b := w.bytes(); len(b) > 0 {
			d.operator = b
		}
	}
	if t.kind != nil {
		s := t.kind.State()
		d.kind = &s
	}
	// One array holds the source offsets and both kinds of counter; the slices are
	// capped, so that none grows into another.
	nOut, nIn, nOffsets := len(t.outputs), len(t.inputs), 0
	if t.source != nil {
		nOffsets = t.source.positionCount()
	}
	var numbers []int64
	if n := nOut + nIn + nOffsets; room != nil && n <= len(room.numbers) {
		numbers = room.numbers[:n:n]
	} else {
		numbers = make([]int64, n)
	}
	d.sent = numbers[:nOut:nOut]
	d.recv = numbers[nOut : nOut+nIn : nOut+nIn]
	if t.source != nil {
		d.offsets = numbers[nOut+nIn:]
		t.source.positions(d.offsets)
	}
	for i, o := range t.outputs {
		d.sent[i] = o.sent
	}
	for i, in := range t.inputs {
		d.recv[i] = in.recv
	}
	if room != nil && nIn <= len(room.channels) {
		d.channel = room.channels[:nIn:nIn]
	} else {
		d.channel = make([][]rec, nIn)
	}
}

// takeSnapshot performs the synchronous part of a snapshot request.
func (t *task) takeSnapshot(req protocol.SnapshotRequest) {
	if _, dup := t.snapshots[req.Checkpoint]; dup {
		t.breakContract(req.Checkpoint, contractSnapshotRequest, "a second snapshot request for the checkpoint")
		return
	}
	ps := &pendingSnapshot{task: t, req: req, recording: req.AwaitChannelState}
	t.captureInto(&ps.data, req.Checkpoint, &ps.room)
	t.snapshots[req.Checkpoint] = ps
	if t.sink != nil {
		if err := t.sink.preCommit(ps); err != nil {
			ps.failed = true
			t.snapshotFailed(req.Checkpoint, protocol.ReasonTooManyPending)
			return
		}
	}
	t.applyOvertake(ps)
	switch {
	case ps.recording:
	case req.Mode == protocol.ModeUnaligned && len(t.outputs) > 0:
		ps.deferred = true
	default:
		t.finalise(ps)
	}
}

// recordChannelState adds a buffer that crossed the cut of cp to the channel state. It
// reports false when the contract broke: no snapshot of cp records channel state.
func (t *task) recordChannelState(cp protocol.CheckpointID, input int, records []rec) bool {
	ps, ok := t.snapshots[cp]
	if !ok || !ps.recording {
		t.breakContract(cp, contractChannelState, "admit asks to record channel state for a checkpoint that is not recording")
		return false
	}
	ps.data.channel[input] = append(ps.data.channel[input], records...)
	return true
}

// sealSnapshot finalises an unaligned snapshot whose channel state is complete.
func (t *task) sealSnapshot(cp protocol.CheckpointID) {
	ps, ok := t.snapshots[cp]
	if !ok {
		return // declined meanwhile (pre-commit failed)
	}
	if !ps.recording {
		t.breakContract(cp, contractSeal, "sealed a snapshot that was not recording channel state")
		return
	}
	t.applyOvertake(ps)
	ps.recording = false
	t.finalise(ps)
}

// dropSnapshot forgets a snapshot the protocol gave up; an upload still running is
// deleted when it finishes.
func (t *task) dropSnapshot(cp protocol.CheckpointID) {
	delete(t.snapshots, cp)
	if t.inc != nil {
		delete(t.inc.taken, cp)
	}
}

// finalise encodes the snapshot, traces it and starts the upload. The trace event comes
// here, when the state including any channel state is fixed, so that snapshot.taken's
// chan.<from> counts are final and its state digest is that of the uploaded bytes.
func (t *task) finalise(ps *pendingSnapshot) {
	cp := ps.req.Checkpoint
	// Encoded behind the inline prefix in a buffer the runtime reuses: the state then
	// costs one allocation, the handle's string if it goes inline, or its own copy if it
	// is uploaded (storage keeps what it is given).
	scratch := &t.rt.snapshotScratch
	scratch.buf = append(scratch.buf[:0], inlinePrefix...)
	ps.data.encodeInto(scratch, t.rt.plan.catalog)
	blob := scratch.buf[len(inlinePrefix):]
	var digest [digestLen]byte
	appendDigest(digest[:0], blob)
	shared := t.takeIncremental(ps)
	if len(shared) > 0 {
		blob = scratch.buf[len(inlinePrefix):] // re-encoded without the keyed state
	}
	size := len(blob)
	inline := inlinable(size, t.rt.cfg.InlineStateBytes) && len(ps.pieces) == 0
	var handle string
	if inline {
		handle = string(scratch.buf)
	} else {
		blob = slices.Clone(blob)
	}
	ps.finalised = true
	attrs, key := t.renderSnapshotAttrs(&ps.data, digest[:])
	attrs = withPieces(attrs, shared)
	if ps.req.Kind.IsStop() && t.source != nil && len(ps.data.offsets) > 0 {
		attrs = append(attrs, t.source.stopAttr(ps.data.offsets))
	}
	if t.source != nil && t.source.enumerated() {
		attrs = withAttr(attrs, trace.AttrSplits, strings.Join(stopItems(t.source.sourceOffsets(ps.data.offsets)), trace.ListSeparator))
	}
	// The values are numbers, the digest's hex digits and piece handles: plain.
	t.trace(trace.Event{Kind: trace.KindSnapshotTaken, Task: t.plan.id, CP: uint64(cp), Attrs: attrs, PlainValues: true})
	ps.snap = protocol.TaskSnapshot{Handle: key, StateSizeBytes: int64(size) + uploadedBytes(ps.pieces), Final: ps.req.Final, Shared: shared}
	t.rt.snapshotBytes += ps.snap.StateSizeBytes
	if t.source != nil {
		ps.snap.SourceOffsets = t.source.sourceOffsets(ps.data.offsets)
	}
	for i, recs := range ps.data.channel {
		if len(recs) > 0 {
			ps.snap.ChannelState = append(ps.snap.ChannelState, protocol.ChannelStateHandle{
				Input: t.plan.inputs[i], Handle: key + "#" + t.inputs[i].from, Records: len(recs)})
		}
	}
	if inline {
		// Durable with the checkpoint's metadata; acknowledged once the Ready being
		// handled is done (handleReady), as if its upload had completed at once.
		ps.snap.Handle = handle // inlinePrefix + blob, encoded in place
		ps.writes = 1
		t.uploads++
		t.inlined = append(t.inlined, ps)
		return
	}
	ps.writes = 1 + len(ps.pieces)
	t.uploads++
	for _, u := range ps.pieces {
		writeDurablyFor(t.proc, t.rt.cfg.VerifyWrites, u.piece.Handle, u.data, ps)
	}
	writeDurablyFor(t.proc, t.rt.cfg.VerifyWrites, key, blob, ps)
}

// writeDone implements writeWaiter: one upload of the snapshot's state ended. The snapshot
// goes on once the last has.
func (ps *pendingSnapshot) writeDone(err error) {
	if ps.writeErr == nil {
		ps.writeErr = err
	}
	if ps.writes--; ps.writes > 0 {
		return
	}
	err = ps.writeErr
	t, cp := ps.task, ps.req.Checkpoint
	t.uploads--
	if t.snapshots[cp] != ps {
		defer t.maybeExit()
		// The checkpoint was aborted meanwhile: what the snapshot uploaded goes.
		t.deleteKey(ps.snap.Handle)
		t.trace(trace.StateRelease(t.plan.id, uint64(cp)))
		for _, u := range ps.pieces {
			t.deletePiece(u.piece)
		}
		return
	}
	if err != nil {
		// What did upload is nobody's: the task declines the snapshot and deletes it.
		for _, u := range ps.pieces {
			t.deletePiece(u.piece)
		}
		t.snapshotFailed(cp, protocol.ReasonUploadFailed)
		return
	}
	ps.uploaded = true
	t.maybeComplete(ps)
}

// maybeComplete acknowledges a snapshot once it is uploaded and, for a 2PC sink, its
// pre-commit is confirmed.
func (t *task) maybeComplete(ps *pendingSnapshot) {
	if !ps.uploaded || ps.awaitPrepare || ps.failed || !t.alive() {
		return
	}
	cp := ps.req.Checkpoint
	delete(t.snapshots, cp)
	t.snapshotSettled(cp, "completed", t.proto.SnapshotCompleted(t.now(), cp, ps.snap))
}

func (t *task) snapshotFailed(cp protocol.CheckpointID, reason protocol.Reason) {
	delete(t.snapshots, cp)
	t.snapshotSettled(cp, "failed", t.proto.SnapshotFailed(t.now(), cp, reason))
}

// snapshotSettled carries on after the protocol heard how snapshot cp ended (err is its
// answer, outcome names it for the panic). Any error breaks the contract, an unknown
// checkpoint too: the engine drops a snapshot the protocol gives up (Ready.Aborted) before
// its upload ends, so the protocol still holds every snapshot whose outcome it hears.
func (t *task) snapshotSettled(cp protocol.CheckpointID, outcome string, err error) {
	if err != nil {
		t.breakContract(cp, contractSnapshotOutcome, fmt.Sprintf("snapshot %s: %v", outcome, err))
		return
	}
	t.handleReady()
	t.pump()
}

// snapshotAttrs renders the attributes checkers read from snapshot.taken and task.restore:
// the state digest (as Digest renders it), the per-channel counters and, for a JobKind's
// tasks, what they hold (KindState).
func (t *task) snapshotAttrs(d *snapshotData, digest string) []trace.Attr {
	attrs, _ := t.renderSnapshotAttrs(d, []byte(digest))
	return attrs
}

// renderSnapshotAttrs is snapshotAttrs with the digest given as text, and it returns the
// snapshot's storage key (stateKey) too. Keys and their order come from the plan, and the
// values (numbers and digest) and the storage key are rendered into one string that they
// slice, so a snapshot costs two allocations however many channels the task has.
func (t *task) renderSnapshotAttrs(d *snapshotData, digest []byte) (attrs []trace.Attr, key string) {
	p := t.plan
	attrs = make([]trace.Attr, len(p.snapshotKeys))
	var endsArray [64]int
	var textArray [512]byte
	ends := endsArray[:0] // where the value of attrs[slots[k]] ends in text
	var slotsArray [64]int
	slots := slotsArray[:0]
	text := textArray[:0]
	valueEnds := func(slot int) {
		ends = append(ends, len(text))
		slots = append(slots, slot)
	}
	number := func(slot int, v int64) {
		text = trace.AppendInt(text, v)
		valueEnds(slot)
	}
	for i, v := range d.sent {
		var overtaken, stored int64
		if d.overtaken != nil {
			overtaken, stored = d.overtaken[i], int64(len(d.output[i]))
		}
		number(p.slots.sent[i], v+overtaken)
		if p.slots.out != nil {
			number(p.slots.out[i], stored)
		}
	}
	for i, v := range d.recv {
		number(p.slots.recv[i], v)
		number(p.slots.chan_[i], int64(len(d.channel[i])))
	}
	if d.kind != nil {
		number(p.slots.tokens, d.kind.Held)
		for i, recs := range d.channel {
			var sum int64
			for _, r := range recs {
				sum += r.value
			}
			number(p.slots.chanTok[i], sum)
		}
	}
	if p.slots.union >= 0 {
		text = trace.AppendEntries(text, partitionEntries(p.index, p.op.Parallelism, d.offsets))
		valueEnds(p.slots.union)
	}
	if p.slots.keyGroups >= 0 {
		text = append(text, p.keyGroups...)
		valueEnds(p.slots.keyGroups)
	}
	text = append(text, digest...)
	valueEnds(p.slots.state)
	text = appendStateKey(text, p.id, protocol.CheckpointID(d.cp))
	all, start := string(text), 0
	for k, end := range ends {
		attrs[slots[k]].Value = all[start:end]
		start = end
	}
	for k := range attrs {
		attrs[k].Key = p.snapshotKeys[k]
	}
	return attrs, all[start:]
}
