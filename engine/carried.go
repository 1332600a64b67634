package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// traceCarried traces a snapshot.carried for every task whose snapshot in cp is a final
// snapshot taken for an earlier checkpoint. The protocol carries a finished task's final
// snapshot into later checkpoints instead of asking for a new one; without an event of its
// own the carried snapshot is invisible in the trace, and a checker judging cp's cut would
// find the task missing from it. It is traced before cp's checkpoint.persist, when the cut
// is fixed, so that a checkpoint that only a recovering coordinator reads back is judged on
// the same cut.
func (c *coordinator) traceCarried(cp *protocol.CompletedCheckpoint) {
	for i := range cp.Tasks {
		ts := &cp.Tasks[i]
		if !ts.Snapshot.Final {
			continue // only a finished task's snapshot is ever carried over
		}
		taken := snapshotTakenFor(ts.Snapshot.Handle)
		if taken == cp.ID {
			continue
		}
		c.trace(trace.Event{Kind: trace.KindSnapshotCarried, Task: string(ts.Task), CP: uint64(cp.ID),
			Attrs: []trace.Attr{{Key: trace.AttrTaken, Value: strconv.FormatUint(uint64(taken), 10)}}})
	}
}

// snapshotTakenFor returns the checkpoint a task snapshot's handle was taken for: a storage
// key names it (stateKey), and inline state holds it right after the task's name. A handle
// of neither form is a broken invariant: the engine makes every handle.
func snapshotTakenFor(handle string) protocol.CheckpointID {
	if blob, ok := inlineState(handle); ok {
		r := &stateReader{buf: blob}
		r.expect(snapshotFormat)
		r.string() // the task
		cp := r.uint()
		if r.err != nil {
			panic(fmt.Sprintf("engine: inline state handle without its checkpoint: %v", r.err))
		}
		return protocol.CheckpointID(cp)
	}
	rest, ok := strings.CutPrefix(handle, "state/")
	if number, _, found := strings.Cut(rest, "/"); ok && found {
		if cp, err := strconv.ParseUint(number, 10, 64); err == nil {
			return protocol.CheckpointID(cp)
		}
	}
	panic(fmt.Sprintf("engine: state handle %q names no checkpoint", handle))
}
