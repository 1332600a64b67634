package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// The coordinator's durable writes: the id counter and the completed-checkpoint store, one
// write at a time each, and the deletion of state no retained checkpoint needs.

func discardedStates(cps []protocol.CompletedCheckpoint) []string {
	var handles []string
	for _, cp := range cps {
		for _, ts := range cp.Tasks {
			handles = append(handles, ts.Snapshot.Handle)
		}
	}
	return handles
}

// deleteUnreferenced deletes task state no retained checkpoint refers to. A finished task's
// final snapshot is carried into later checkpoints, so a discarded checkpoint may share
// state with a retained one.
func (c *coordinator) deleteUnreferenced(handles []string) {
	if len(handles) == 0 {
		return
	}
	live := make(map[string]bool)
	for _, list := range [][]protocol.CompletedCheckpoint{c.stored, c.metaQueue, c.proto.Completed()} {
		for _, cp := range list {
			if c.discarded[cp.ID] {
				continue
			}
			for _, ts := range cp.Tasks {
				live[ts.Snapshot.Handle] = true
			}
		}
	}
	for _, h := range handles {
		if !live[h] {
			c.proc.Delete(h)
		}
	}
}

func (c *coordinator) writeCounter(v protocol.CheckpointID) {
	c.counterWant = max(c.counterWant, v)
	if c.counterWriting || c.counterWant <= c.counterDone {
		return
	}
	v = c.counterWant
	c.counterWriting = true
	writeDurably(c.proc, c.rt.cfg.VerifyWrites, counterKey, encodeCounter(v), func(err error) {
		c.counterWriting = false
		if err == nil {
			c.counterDone = v
		} else if c.counterWant == v {
			c.counterWant = c.counterDone
		}
		c.proto.CounterPersisted(c.now(), v, err)
		c.handleReady()
		c.writeCounter(c.counterWant)
	})
}

// writeMetadata writes the next queued completed checkpoint, or a store without the
// discarded checkpoints when nothing is queued.
func (c *coordinator) writeMetadata() {
	if c.metaWriting {
		return
	}
	var next *protocol.CompletedCheckpoint
	if len(c.metaQueue) > 0 {
		next = &c.metaQueue[0]
	}
	content := make([]protocol.CompletedCheckpoint, 0, len(c.stored)+1)
	removed := false
	for _, cp := range c.stored {
		if c.discarded[cp.ID] {
			removed = true
			continue
		}
		content = append(content, cp)
	}
	if next == nil && !removed {
		return
	}
	if next != nil {
		content = append(content, *next)
		c.trace(trace.Event{Kind: trace.KindCheckpointPersist, CP: uint64(next.ID)})
	}
	c.metaWriting = true
	writeDurably(c.proc, c.rt.cfg.VerifyWrites, completedKey, encodeCompleted(content), func(err error) {
		c.metaWriting = false
		if err == nil {
			c.stored = content
		}
		if next != nil {
			id := next.ID
			c.metaQueue = c.metaQueue[1:]
			c.proto.MetadataPersisted(c.now(), id, err)
			c.handleReady()
		}
		c.writeMetadata()
	})
}
