package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// The coordinator's durable writes: the id counter and the completed-checkpoint store, one
// write at a time each, each in a slotPair, and the deletion of released state.

// idCounter is the coordinator's side of the durable id counter.
type idCounter struct {
	slots slotPair
	// durable is the highest value known durable.
	durable protocol.CheckpointID
	// asked is the protocol's write awaiting CounterPersisted (0: none). The protocol asks
	// for one at a time and must hear back about exactly that value.
	asked protocol.CheckpointID
	// cover is the highest id whose abort waits for the counter to cover it.
	cover protocol.CheckpointID
	// writing: a write is in flight; retryArmed: a failed write is retried after
	// Config.StorageRetry.
	writing    bool
	retryArmed bool
	retry      Timer
	inFlight   counterWrite // the write in flight, while writing
}

// counterWrite is a write of the id counter; the counter keeps the one in flight, so that
// its completion needs no closure of its own.
type counterWrite struct {
	c       *coordinator
	value   protocol.CheckpointID
	slot    int
	version uint64
}

// askCounter takes the protocol's request to make the counter v durable.
func (c *coordinator) askCounter(v protocol.CheckpointID) {
	k := &c.counter
	if k.asked != 0 {
		panic(invariantf("engine: coordinator: counter write %d asked for while %d is outstanding", v, k.asked))
	}
	if v <= k.durable {
		panic(invariantf("engine: coordinator: counter write %d asked for, %d is durable already", v, k.durable))
	}
	k.asked = v
	if k.retryArmed {
		// The protocol waits for this write: make it now, not when a retry is due.
		k.retryArmed = false
		k.retry.Stop()
	}
	c.writeCounter()
}

// writeCounter writes the counter if a value above the durable one is wanted: the
// protocol's request, or the highest id whose abort is held back. One value covers both,
// since storing a larger counter than asked is always safe (ids are only ever skipped).
// The protocol hears about its request once a write that includes it is done, with that
// write's outcome.
func (c *coordinator) writeCounter() {
	k := &c.counter
	v := max(k.asked, k.cover)
	if k.writing || k.retryArmed || v <= k.durable || c.dead {
		return
	}
	slot, key, version := k.slots.next()
	k.writing = true
	k.inFlight = counterWrite{c: c, value: v, slot: slot, version: version}
	writeDurablyFor(c.proc, c.rt.cfg.VerifyWrites, key, encodeSlot(version, encodeCounter(v)), &k.inFlight)
}

// writeDone implements writeWaiter. It works on a copy of the write, since the next write
// (started by handleReady, say) replaces it.
func (w *counterWrite) writeDone(err error) {
	cw := *w
	c := cw.c
	k := &c.counter
	k.writing = false
	if err == nil {
		k.slots.written(cw.slot, cw.version)
		k.durable = cw.value
		c.traceCoveredAborts()
	} else {
		// Not at once: storage that just failed a write is likely to fail the next.
		// A new request of the protocol does not wait for this (askCounter).
		c.retryCounter()
	}
	if asked := k.asked; asked != 0 && asked <= cw.value {
		k.asked = 0
		c.proto.CounterPersisted(c.now(), asked, err)
		c.handleReady() // may ask for the next write, and so make it
	}
	c.writeCounter()
}

// retryCounter writes the counter again after Config.StorageRetry, if held-back aborts
// still wait for it (the protocol gave up on its own request already).
func (c *coordinator) retryCounter() {
	k := &c.counter
	if k.retryArmed {
		return
	}
	k.retryArmed = true
	if k.retry == nil {
		k.retry = c.proc.NewTimer(func() {
			k.retryArmed = false
			c.writeCounter()
		})
	}
	k.retry.Reset(c.rt.cfg.StorageRetry)
}

// writeMetadata writes the next queued completed checkpoint, or, when nothing is queued
// and released state waits for it, a store without the discarded checkpoints. A failed
// write of discards alone is retried after Config.StorageRetry; a failed write of a
// checkpoint aborts it (the protocol decides), and the next write goes on.
//
// Discarded checkpoints are otherwise left in the store until the next checkpoint's write
// leaves them out: they are older than the checkpoints kept, so no recovery picks them,
// and with state inline nothing waits for them to go (a write per checkpoint saved).
func (c *coordinator) writeMetadata() {
	if c.metaWriting || c.metaRetryArmed || c.dead {
		return
	}
	adds := len(c.metaQueue) > 0
	if !adds && (len(c.heldReleases) == 0 || !c.storeHoldsDiscarded()) {
		return // nothing to write: called after every Ready
	}
	content := make([]protocol.CompletedCheckpoint, 0, len(c.stored)+1)
	for _, cp := range c.stored {
		if !c.discarded[cp.ID] {
			content = append(content, cp)
		}
	}
	// The write is in flight before anything is traced: a fault injected at one of these
	// events (a user's checkpoint or savepoint request, say) re-enters the coordinator, and
	// its writeMetadata must find this write begun, not begin it again.
	c.metaWriting = true
	if adds {
		next := &c.metaQueue[0]
		content = append(content, *next)
		if !c.traceCarried(next) {
			c.metaWriting = false
			return
		}
		c.trace(trace.Event{Kind: trace.KindCheckpointPersist, CP: uint64(next.ID)})
	}
	slot, key, version := c.completedSlots.next()
	c.metaWrite = metadataWrite{c: c, content: content, adds: adds, slot: slot, version: version}
	writeDurablyFor(c.proc, c.rt.cfg.VerifyWrites, key, c.metaEncoder.slotValue(version, content), &c.metaWrite)
}

// metadataWrite is the write of the completed-checkpoint store in flight; there is one at
// a time (coordinator.metaWriting), so the coordinator keeps it, and its completion needs
// no closure of its own.
type metadataWrite struct {
	c       *coordinator
	content []protocol.CompletedCheckpoint
	// adds: content ends with the head of metaQueue; otherwise the write removes
	// discarded checkpoints only.
	adds    bool
	slot    int
	version uint64
}

// writeDone implements writeWaiter. It works on a copy of the write, since the next write
// (started by handleReady, say) replaces it. The bookkeeping comes before anything is
// traced: a fault injected at a traced event (a savepoint asked for at a state.release)
// re-enters the coordinator, which must find this write done and its checkpoint off the
// queue, not start the same write again.
func (m *metadataWrite) writeDone(err error) {
	w := *m
	c := w.c
	c.metaWriting = false
	var id protocol.CheckpointID
	if w.adds {
		id = c.metaQueue[0].ID
		c.metaQueue = c.metaQueue[1:]
	}
	if err == nil {
		c.completedSlots.written(w.slot, w.version)
		c.setStored(w.content)
		c.storeWritten()
	}
	if w.adds {
		c.confirmMetadata(id, err)
	} else if err != nil {
		c.metaRetryArmed = true
		c.proc.After(c.rt.cfg.StorageRetry, func() {
			c.metaRetryArmed = false
			c.writeMetadata()
		})
		return
	}
	c.writeMetadata()
}

// storeHoldsDiscarded reports whether the durable store still holds a checkpoint the
// protocol discarded.
func (c *coordinator) storeHoldsDiscarded() bool {
	if len(c.discarded) == 0 {
		return false
	}
	for i := range c.stored {
		if c.discarded[c.stored[i].ID] {
			return true
		}
	}
	return false
}

// setStored records cps as the durable store, and indexes the state handles in storage it
// names: every release of such a handle asks whether the store names it (storeNames), and
// so does every held release after each store write. Inline handles are left out: nothing
// asks about them (there is nothing to delete), and hashing them, state and all, on every
// store write was most of what indexing cost.
func (c *coordinator) setStored(cps []protocol.CompletedCheckpoint) {
	c.stored = cps
	if c.storedHandles == nil {
		c.storedHandles = make(map[string]int)
	}
	clear(c.storedHandles)
	for i := range cps {
		for j := range cps[i].Tasks {
			if h := cps[i].Tasks[j].Snapshot.Handle; !isInline(h) {
				c.storedHandles[h]++
			}
		}
	}
}

// storeWritten follows a durable store write: discarded checkpoints no longer in it are
// forgotten, and released state it no longer names is deleted.
func (c *coordinator) storeWritten() {
	for id := range c.discarded {
		if !c.storeHolds(id) {
			delete(c.discarded, id)
		}
	}
	held := c.heldReleases[:0]
	for _, r := range c.heldReleases {
		if c.storeNamesAny(r) {
			held = append(held, r)
			continue
		}
		c.deleteReleased(r)
	}
	c.heldReleases = held
}

// storeHolds reports whether checkpoint id is in the durable store.
func (c *coordinator) storeHolds(id protocol.CheckpointID) bool {
	for i := range c.stored {
		if c.stored[i].ID == id {
			return true
		}
	}
	return false
}

// release deletes state the protocol released: at once, or, if a discarded checkpoint
// still in the durable store names it, once the store without it is durable. The protocol
// never releases state a retained checkpoint holds; that is checked here too, since
// deleting it would make the checkpoint unrestorable.
func (c *coordinator) release(r protocol.StateRelease) {
	h := r.Snapshot.Handle
	for _, list := range [][]protocol.CompletedCheckpoint{c.stored, c.metaQueue} {
		for i := range list {
			if cp := &list[i]; !c.discarded[cp.ID] && holds(cp, h) {
				panic(invariantf("engine: coordinator: released %s of %s for %d, which retained checkpoint %d holds", handleName(h), r.Task, r.Checkpoint, cp.ID))
			}
		}
	}
	if c.storeNamesAny(r) {
		c.heldReleases = append(c.heldReleases, r)
		return // deleted and traced when the store no longer names it
	}
	c.deleteReleased(r)
}

// storeNamesAny reports whether the durable store still names r's state, or still holds
// the checkpoint whose pieces r deletes: a recovery would take that checkpoint for
// restorable. Which other checkpoints refer to a piece is the protocol's to know, and it
// releases none that a retained one does. Inline state lives in the metadata of the
// checkpoints that hold it: there is nothing to delete, and storeNames does not know it.
func (c *coordinator) storeNamesAny(r protocol.StateRelease) bool {
	if h := r.Snapshot.Handle; !isInline(h) && c.storeNames(h) {
		return true
	}
	return len(r.Pieces) > 0 && c.storeHolds(r.Checkpoint)
}

// deleteReleased deletes r's state and pieces and traces their release.
func (c *coordinator) deleteReleased(r protocol.StateRelease) {
	c.deleteKey(r.Snapshot.Handle)
	c.traceRelease(r)
	for _, p := range r.Pieces {
		c.deleteKey(p.Handle)
		c.trace(trace.PieceRelease(string(r.Task), uint64(p.UploadedFor), p.Handle))
	}
}

// deleteKey deletes released state, retrying until it is gone (deleteDurably). Inline
// state has nothing to delete.
func (c *coordinator) deleteKey(key string) {
	if !isInline(key) {
		deleteDurably(c.proc, c.rt.cfg.VerifyWrites, key, func() {})
	}
}

// traceRelease traces the release of r's state once the coordinator has deleted it (or
// dropped it, inline), naming the checkpoint the snapshot was taken for: a carried final
// snapshot's own, which is the snapshot.taken the state came from.
func (c *coordinator) traceRelease(r protocol.StateRelease) {
	c.trace(trace.StateRelease(string(r.Task), uint64(takenFor(r))))
}

// takenFor is the checkpoint r's snapshot was taken for.
func takenFor(r protocol.StateRelease) protocol.CheckpointID {
	if r.Snapshot.TakenFor != 0 {
		return r.Snapshot.TakenFor
	}
	return r.Checkpoint
}

// storeNames reports whether a checkpoint in the durable store names state handle h, which
// is in storage (not inline).
func (c *coordinator) storeNames(h string) bool {
	if isInline(h) {
		panic(invariantf("engine: coordinator: storeNames asked about inline state, which it does not index"))
	}
	return c.storedHandles[h] > 0
}

func holds(cp *protocol.CompletedCheckpoint, h string) bool {
	for i := range cp.Tasks {
		if cp.Tasks[i].Snapshot.Handle == h {
			return true
		}
	}
	return false
}
