package checker

import (
	"sort"

	"github.com/ckptsim/ckptsim/trace"
)

// Phase names of phase events (attr phase), as the fault injector writes them.
const (
	phaseHeal     = "heal"
	phaseLiveness = "liveness"
)

// phaseIndex returns the index of the first phase event that starts phase, or -1.
func phaseIndex(ix *traceIndex, phase string) int {
	for i := range ix.only(phaseKinds) {
		if phaseOf(&ix.events[i]) == phase {
			return i
		}
	}
	return -1
}

var phaseKinds = kindsOf(trace.KindPhase)

// livenessStart returns the index from which liveness bounds are measured: the phase event
// that starts the liveness phase, in which progress is owed; else the one that starts the
// heal phase (a run without a separate liveness phase owes progress from heal on); else the
// first event, when the trace has no phase events at all (a run without a fault phase is
// healthy throughout). It returns -1 for a trace whose fault phase never healed, or no events.
func livenessStart(ix *traceIndex) int {
	if i := phaseIndex(ix, phaseLiveness); i >= 0 {
		return i
	}
	if i := phaseIndex(ix, phaseHeal); i >= 0 {
		return i
	}
	if ix.any(phaseKinds) {
		return -1
	}
	if len(ix.events) == 0 {
		return -1
	}
	return 0
}

// firstAfter returns the index of the first event later than t, or len(events). Events are in
// time order (well-formedness checks it).
func firstAfter(events []trace.Event, t int64) int {
	return sort.Search(len(events), func(i int) bool { return events[i].T > t })
}
