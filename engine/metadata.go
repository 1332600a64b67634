package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/ckptsim/ckptsim/protocol"
)

// Storage names of the coordinator's durable state: the checkpoint id counter and the
// completed-checkpoint store (the retained completed checkpoints, written as one value so
// that a write replaces the store atomically). A dataflow job's coordinator keeps each in a
// slotPair, under the name plus ".0" and ".1"; so does a JobKind's coordinator through
// DurableValue (engine/tokens keeps the counter and its latest global snapshot).
const (
	counterKey   = "meta/counter"
	completedKey = "meta/completed"
)

// metadataFormat tags the store's layout. v2 added each snapshot's TakenFor, which the
// coordinator needs after a recovery to trace the snapshots it carries over.
const metadataFormat = "ckptsim.engine.completed.v2"

func encodeCounter(id protocol.CheckpointID) []byte {
	return binary.AppendUvarint(nil, uint64(id))
}

func decodeCounter(data []byte) (protocol.CheckpointID, error) {
	v, n := binary.Uvarint(data)
	if n <= 0 || n != len(data) {
		return 0, fmt.Errorf("engine: bad checkpoint counter (%d bytes)", len(data))
	}
	return protocol.CheckpointID(v), nil
}

func encodeCompleted(cps []protocol.CompletedCheckpoint) []byte {
	var w stateWriter
	w.grow(completedSize(cps))
	writeCompletedHeader(&w, len(cps))
	for i := range cps {
		writeCompletedCheckpoint(&w, &cps[i])
	}
	return w.bytes()
}

// writeCompletedHeader writes what precedes the checkpoints in encodeCompleted: the
// format's tag and their count.
func writeCompletedHeader(w *stateWriter, count int) {
	w.tag(metadataFormat)
	w.uint(uint64(count))
}

// writeCompletedCheckpoint writes one checkpoint of encodeCompleted. Its bytes depend on
// nothing but c, so that they can be kept from one write of the store to the next
// (completedEncoder).
func writeCompletedCheckpoint(w *stateWriter, c *protocol.CompletedCheckpoint) {
	w.uint(uint64(c.ID))
	if c.Unassigned == nil {
		w.uint(uint64(c.Kind))
	} else {
		w.uint(uint64(c.Kind) | kindWithSplits)
		w.uint(uint64(len(c.Unassigned)))
		for _, split := range c.Unassigned {
			w.string(split)
		}
	}
	w.int(int64(c.TriggeredAt))
	w.int(int64(c.CompletedAt))
	w.uint(uint64(len(c.Tasks)))
	for j := range c.Tasks {
		ts := &c.Tasks[j]
		w.string(string(ts.Task))
		s := &ts.Snapshot
		w.string(s.Handle)
		w.int(s.StateSizeBytes)
		w.uint(uint64(len(s.SourceOffsets)))
		for _, o := range s.SourceOffsets {
			w.string(o.Split)
			w.int(o.Offset)
		}
		w.uint(uint64(len(s.ChannelState)))
		for _, h := range s.ChannelState {
			w.string(string(h.Input.From))
			w.string(string(h.Input.To))
			w.uint(uint64(h.Input.Index))
			w.string(h.Handle)
			w.uint(uint64(h.Records))
		}
		w.uint(snapshotFlags(s))
		w.uint(uint64(s.TakenFor))
		if len(s.Shared) > 0 {
			w.uint(uint64(len(s.Shared)))
			for _, p := range s.Shared {
				w.string(p.Handle)
				w.int(p.Bytes)
				w.uint(uint64(p.UploadedFor))
			}
		}
	}
}

// kindWithSplits marks the kind of a checkpoint of a job with split sources, which the
// split enumerator's state (CompletedCheckpoint.Unassigned, empty or not) follows. A job
// without them reads and writes what it did before split sources.
const kindWithSplits = 0x80

// The flags of a stored snapshot: final, and whether a list of shared pieces follows its
// TakenFor. A store written before incremental snapshots reads the same.
const (
	flagFinal  = 1
	flagShared = 2
)

func snapshotFlags(s *protocol.TaskSnapshot) uint64 {
	var f uint64
	if s.Final {
		f |= flagFinal
	}
	if len(s.Shared) > 0 {
		f |= flagShared
	}
	return f
}

// Sizes of completedSize's estimate: a string counts its bytes and two for its length, a
// time the most a varint takes, and any other number five.
const sizeString, sizeNumber, sizeTime = 2, 5, binary.MaxVarintLen64

// completedHeaderSize is about the size of writeCompletedHeader's output.
const completedHeaderSize = sizeString + len(metadataFormat) + sizeNumber

// completedSize is about the size of encodeCompleted(cps), rather more than less, so that
// the encoding allocates once.
func completedSize(cps []protocol.CompletedCheckpoint) int {
	n := completedHeaderSize
	for i := range cps {
		n += checkpointSize(&cps[i])
	}
	return n
}

// checkpointSize is about the size of writeCompletedCheckpoint's output, rather more than
// less.
func checkpointSize(c *protocol.CompletedCheckpoint) int {
	n := 3*sizeNumber + 2*sizeTime
	if c.Unassigned != nil {
		n += sizeNumber
	}
	for _, split := range c.Unassigned {
		n += sizeString + len(split)
	}
	for j := range c.Tasks {
		ts := &c.Tasks[j]
		s := &ts.Snapshot
		n += 2*sizeString + len(ts.Task) + len(s.Handle) + 5*sizeNumber
		for _, o := range s.SourceOffsets {
			n += sizeString + len(o.Split) + sizeNumber
		}
		for _, h := range s.ChannelState {
			n += 3*sizeString + len(h.Input.From) + len(h.Input.To) + len(h.Handle) + 2*sizeNumber
		}
		for _, p := range s.Shared {
			n += sizeString + len(p.Handle) + sizeTime + sizeNumber
		}
	}
	return n
}

func decodeCompleted(data []byte) ([]protocol.CompletedCheckpoint, error) {
	r := &stateReader{buf: data}
	r.expect(metadataFormat)
	cps := make([]protocol.CompletedCheckpoint, r.count())
	for i := range cps {
		c := &cps[i]
		c.ID = protocol.CheckpointID(r.uint())
		kind := r.uint()
		c.Kind = protocol.Kind(kind &^ kindWithSplits)
		if kind&kindWithSplits != 0 {
			c.Unassigned = make([]string, r.count())
			for k := range c.Unassigned {
				c.Unassigned[k] = r.string()
			}
		}
		c.TriggeredAt = protocol.Time(r.int())
		c.CompletedAt = protocol.Time(r.int())
		c.Tasks = make([]protocol.TaskState, r.count())
		for j := range c.Tasks {
			ts := &c.Tasks[j]
			ts.Task = protocol.TaskID(r.string())
			s := &ts.Snapshot
			s.Handle = r.string()
			s.StateSizeBytes = r.int()
			if n := r.count(); n > 0 {
				s.SourceOffsets = make([]protocol.SourceOffset, n)
				for k := range s.SourceOffsets {
					s.SourceOffsets[k] = protocol.SourceOffset{Split: r.string(), Offset: r.int()}
				}
			}
			if n := r.count(); n > 0 {
				s.ChannelState = make([]protocol.ChannelStateHandle, n)
				for k := range s.ChannelState {
					h := &s.ChannelState[k]
					h.Input = protocol.ChannelID{From: protocol.TaskID(r.string()), To: protocol.TaskID(r.string()), Index: int(r.uint())}
					h.Handle = r.string()
					h.Records = int(r.uint())
				}
			}
			flags := r.uint()
			s.Final = flags&flagFinal != 0
			s.TakenFor = protocol.CheckpointID(r.uint())
			if flags&flagShared != 0 {
				s.Shared = make([]protocol.SharedPiece, r.count())
				for k := range s.Shared {
					s.Shared[k] = protocol.SharedPiece{Handle: r.string(), Bytes: r.int(), UploadedFor: protocol.CheckpointID(r.uint())}
				}
			}
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("engine: decoding completed checkpoints: %w", err)
	}
	return cps, nil
}
