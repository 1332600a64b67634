package engine

import (
	"encoding/binary"

	"github.com/ckptsim/ckptsim/protocol"
)

// completedEncoder renders the slot values of the coordinator's completed-checkpoint store.
// The store is rewritten whole at every checkpoint, and with state inline it holds every
// retained checkpoint's state, so encoding it anew each time re-encoded the same few
// checkpoints, kilobytes each, over and over. A checkpoint's encoding depends on the
// checkpoint alone (writeCompletedCheckpoint), so the encoder keeps the bytes of each
// checkpoint of the last value it rendered and copies them into the next.
//
// The kept bytes are part of a value already handed to storage, which nobody changes (Proc.Write's
// contract, on which reading the value back relies as well).
type completedEncoder struct {
	kept []encodedCheckpoint // the checkpoints of the last value rendered
	next []encodedCheckpoint // scratch for the next value's, swapped with kept
}

// encodedCheckpoint is a checkpoint's encoding and what identifies the checkpoint it
// encodes: its id and times, and its task list by identity. Nobody writes a completed
// checkpoint's task list once the protocol handed it out, so the same list (the same array,
// of the same length) holds the same state; a list decoded or rebuilt elsewhere is simply
// encoded again.
type encodedCheckpoint struct {
	id                   protocol.CheckpointID
	kind                 protocol.Kind
	triggered, completed protocol.Time
	tasks                *protocol.TaskState // &Tasks[0]; nil for no tasks
	taskCount            int
	bytes                []byte
}

func identify(c *protocol.CompletedCheckpoint) encodedCheckpoint {
	e := encodedCheckpoint{id: c.ID, kind: c.Kind, triggered: c.TriggeredAt, completed: c.CompletedAt, taskCount: len(c.Tasks)}
	if len(c.Tasks) > 0 {
		e.tasks = &c.Tasks[0]
	}
	return e
}

// same reports whether e encodes the checkpoint identified by id.
func (e *encodedCheckpoint) same(id *encodedCheckpoint) bool {
	return e.id == id.id && e.kind == id.kind && e.triggered == id.triggered && e.completed == id.completed &&
		e.tasks == id.tasks && e.taskCount == id.taskCount
}

// lookup returns the kept encoding of the checkpoint identified by id, or nil.
func (k *completedEncoder) lookup(id *encodedCheckpoint) []byte {
	for i := range k.kept {
		if k.kept[i].same(id) {
			return k.kept[i].bytes
		}
	}
	return nil
}

// slotValue returns encodeSlot(version, encodeCompleted(cps)), in one allocation and
// encoding only the checkpoints the last value did not hold.
func (k *completedEncoder) slotValue(version uint64, cps []protocol.CompletedCheckpoint) []byte {
	k.next = k.next[:0]
	size := binary.MaxVarintLen64 + completedHeaderSize
	for i := range cps {
		id := identify(&cps[i])
		id.bytes = k.lookup(&id)
		if id.bytes != nil {
			size += len(id.bytes)
		} else {
			size += checkpointSize(&cps[i])
		}
		k.next = append(k.next, id)
	}
	var w stateWriter
	w.grow(size)
	w.uint(version) // the slot's header, as encodeSlot writes it
	writeCompletedHeader(&w, len(cps))
	for i := range cps {
		e := &k.next[i]
		start := len(w.buf)
		if e.bytes != nil {
			w.buf = append(w.buf, e.bytes...)
		} else {
			writeCompletedCheckpoint(&w, &cps[i])
		}
		e.bytes = w.buf[start:len(w.buf):len(w.buf)]
	}
	clear(k.kept) // let go of the old values' bytes
	k.kept, k.next = k.next, k.kept
	return w.bytes()
}
