package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/ckptsim/ckptsim/protocol"
)

// Storage names of the coordinator's durable state: the checkpoint id counter and the
// completed-checkpoint store (the retained completed checkpoints, written as one value so
// that a write replaces the store atomically). A dataflow job's coordinator keeps each in a
// slotPair, under the name plus ".0" and ".1"; the token coordinator uses counterKey as is.
const (
	counterKey   = "meta/counter"
	completedKey = "meta/completed"
)

const metadataFormat = "ckptsim.engine.completed.v1"

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
	w.tag(metadataFormat)
	w.uint(uint64(len(cps)))
	for i := range cps {
		c := &cps[i]
		w.uint(uint64(c.ID))
		w.uint(uint64(c.Kind))
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
			if s.Final {
				w.uint(1)
			} else {
				w.uint(0)
			}
		}
	}
	return w.bytes()
}

// completedSize is about the size of encodeCompleted(cps), rather more than less, so that
// the encoding allocates once: a string counts its bytes and two for its length, a time
// the most a varint takes, and any other number five.
func completedSize(cps []protocol.CompletedCheckpoint) int {
	const str, number, time = 2, 5, binary.MaxVarintLen64
	n := str + len(metadataFormat) + number
	for i := range cps {
		c := &cps[i]
		n += 3*number + 2*time
		for j := range c.Tasks {
			ts := &c.Tasks[j]
			s := &ts.Snapshot
			n += 2*str + len(ts.Task) + len(s.Handle) + 4*number
			for _, o := range s.SourceOffsets {
				n += str + len(o.Split) + number
			}
			for _, h := range s.ChannelState {
				n += 3*str + len(h.Input.From) + len(h.Input.To) + len(h.Handle) + 2*number
			}
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
		c.Kind = protocol.Kind(r.uint())
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
			s.Final = r.uint() == 1
		}
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("engine: decoding completed checkpoints: %w", err)
	}
	return cps, nil
}
