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
// the same cut. The protocol says which checkpoint the snapshot was taken for
// (TaskSnapshot.TakenFor); the engine's store keeps it, so it is never unknown here. It
// reports false when the contract broke: a snapshot of cp was taken for no checkpoint.
// stopItems renders a source's offsets for attr stop: split=offset items.
func stopItems(offsets []protocol.SourceOffset) []string {
	items := make([]string, len(offsets))
	for i, o := range offsets {
		items[i] = o.Split + "=" + strconv.FormatInt(o.Offset, 10)
	}
	return items
}

func (c *coordinator) traceCarried(cp *protocol.CompletedCheckpoint) bool {
	for i := range cp.Tasks {
		ts := &cp.Tasks[i]
		if ts.Snapshot.TakenFor == 0 {
			c.rt.breakContract(coordinatorName, cp.ID, contractCompletedSnapshot,
				fmt.Sprintf("the completed checkpoint holds a snapshot of %s taken for no checkpoint", ts.Task))
			return false
		}
		if !ts.Snapshot.Carried(cp.ID) {
			continue
		}
		e := trace.SnapshotCarried(string(ts.Task), uint64(cp.ID), uint64(ts.Snapshot.TakenFor))
		if cp.Kind.IsStop() && len(ts.Snapshot.SourceOffsets) > 0 {
			// A finished source's offsets are the end of its input: all of it is owed.
			e = trace.StopCarried(string(ts.Task), uint64(cp.ID), uint64(ts.Snapshot.TakenFor), stopItems(ts.Snapshot.SourceOffsets))
		}
		if c.rt.plan.reads(string(ts.Task)) {
			e.Attrs = withAttr(e.Attrs, trace.AttrSplits, strings.Join(stopItems(ts.Snapshot.SourceOffsets), trace.ListSeparator))
		}
		c.trace(e)
	}
	return true
}
