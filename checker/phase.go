package checker

import (
	"sort"

	"github.com/ckptsim/ckptsim/trace"
)

// livenessStart returns the index from which liveness is judged: the first phase event that
// starts the heal or liveness phase; the first event when the trace has no phase events at all
// (a run without a fault phase is healthy throughout); -1 when the trace has a fault phase
// that never healed, or no events.
func livenessStart(events []trace.Event) int {
	if heal := healIndex(events); heal >= 0 {
		return heal
	}
	for i := range events {
		if events[i].Kind == trace.KindPhase {
			return -1
		}
	}
	if len(events) == 0 {
		return -1
	}
	return 0
}

// firstAfter returns the index of the first event later than t, or len(events). Events are in
// time order (well-formedness checks it).
func firstAfter(events []trace.Event, t int64) int {
	return sort.Search(len(events), func(i int) bool { return events[i].T > t })
}
