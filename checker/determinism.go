package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// Determinism checks that the trace hashes to ref.TraceHash, the hash an earlier run of the
// same scenario and seed recorded: a run is a pure function of its scenario and seed, so a
// different hash on the same build means something read a map order, a clock or a goroutine
// schedule. The hash alone cannot say where the runs parted; FirstDifference can, given both
// traces. The violation is pinned to the last event.
func Determinism(events []trace.Event, ref Reference) Result {
	if ref.TraceHash == "" {
		return unknownResult(PropDeterminism, "the reference has no trace hash")
	}
	// A reference written before trace hash version 2 is checked under version 1.
	v, differ := CompareHashes(ref.TraceHash, trace.HashEventsAs(events, ref.TraceHash))
	if !differ {
		return newResult(PropDeterminism, nil)
	}
	end := lastEvent(events)
	v.Seq, v.T = end.Seq, end.T
	v.Message = fmt.Sprintf("%s (%d events)", v.Message, len(events))
	return newResult(PropDeterminism, []Violation{v})
}

// CompareHashes compares the trace hash of an original run with that of its replay and
// returns a violation (not pinned to any event) when they differ.
func CompareHashes(want, got string) (Violation, bool) {
	if want == got {
		return Violation{}, false
	}
	return Violation{
		Property: PropDeterminism,
		Message:  fmt.Sprintf("trace hash %s differs from the expected %s", short(got), short(want)),
	}, true
}

// FirstDifference compares an original trace with its replay event by event (by canonical
// line, so every field counts) and returns a violation at the first event of the replay that
// differs, or at the point where one trace ends before the other.
func FirstDifference(want, got []trace.Event) (Violation, bool) {
	n := min(len(want), len(got))
	for i := 0; i < n; i++ {
		w, g := want[i].String(), got[i].String()
		if w != g {
			return violationAt(PropDeterminism, &got[i], "replay differs at event %d: want %s, got %s", i, w, g), true
		}
	}
	switch {
	case len(got) > n:
		return violationAt(PropDeterminism, &got[n],
			"replay has %d events, the original %d; first extra: %s", len(got), len(want), got[n].String()), true
	case len(want) > n:
		v := violationAt(PropDeterminism, lastEvent(got),
			"replay ends after %d events, the original has %d; first missing: %s", len(got), len(want), want[n].String())
		return v, true
	}
	return Violation{}, false
}

// short abbreviates a hash for messages.
func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
