package checker

import (
	"cmp"
	"math"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// metadataWrites are the stretches of virtual time in which the coordinator wrote a
// completed checkpoint's metadata: from a checkpoint.persist to the end of that checkpoint
// (its checkpoint.complete or checkpoint.abort) or of the coordinator incarnation
// (coordinator.crash). A write with no end in the trace runs to its end.
//
// Why checkpoint-timing needs them: Flink's coordinator writes a completed checkpoint's
// metadata while it holds its lock, and the canceller that expires a checkpoint at its
// timeout waits for the same lock. So no checkpoint expires while another one's metadata
// is being written, and a checkpoint whose last acknowledgement came meanwhile may begin
// its own write the moment the lock is free, ahead of the canceller. A host that writes
// one checkpoint's metadata at a time and queues the next behind it shows the same
// trace: the queued write's checkpoint.persist comes at the instant the one ahead ends.
type metadataWrites struct {
	spans [][2]int64 // [start, end], in the order their writes began
}

// metadataWriteKinds are the kinds that begin or end a metadata write.
var metadataWriteKinds = kindsOf(trace.KindCheckpointPersist, trace.KindCheckpointComplete,
	trace.KindCheckpointAbort, trace.KindCoordinatorCrash)

func metadataWritesOf(ix *traceIndex) *metadataWrites {
	w := &metadataWrites{}
	open := map[uint64]int{} // checkpoint -> index of its write's span
	for i := range ix.only(metadataWriteKinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindCheckpointPersist:
			if _, writing := open[e.CP]; !writing {
				open[e.CP] = len(w.spans)
				w.spans = append(w.spans, [2]int64{e.T, math.MaxInt64})
			}
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			if at, writing := open[e.CP]; writing {
				w.spans[at][1] = e.T
				delete(open, e.CP)
			}
		case trace.KindCoordinatorCrash:
			// The dead incarnation's writes end with it: whatever they did, the next
			// incarnation's timers do not wait for them.
			for _, at := range open {
				w.spans[at][1] = e.T
			}
			clear(open)
		}
	}
	// Trace times never go back in a well-formed trace; sorting keeps freeAt right in one
	// that does.
	slices.SortStableFunc(w.spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	return w
}

// freeAt returns the first instant at or after t at which no metadata write is in flight:
// t itself if none is, else the end of the writes that follow each other without a gap.
// A write that begins at the instant the one before it ends keeps the coordinator busy,
// since the two are one hand-over of the lock. Writes never overlap in a correct run, but
// a trace is taken as it comes: the latest end of any write in flight counts.
func (w *metadataWrites) freeAt(t int64) int64 {
	// One pass in the order of the starts: t only grows, so a write skipped for having
	// ended is never in flight later, and the first that starts after t ends the search.
	for _, s := range w.spans {
		if s[0] > t {
			break
		}
		t = max(t, s[1])
	}
	return t
}
