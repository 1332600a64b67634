package checker

import (
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/trace"
)

// LinzOptions bound one porcupine check.
type LinzOptions struct {
	Timeout  time.Duration // zero: DefaultLinzTimeout
	HTMLPath string        // where to write the visualization of a violation; empty: nowhere
}

func (o LinzOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultLinzTimeout
	}
	return o.Timeout
}

// mergeOutcome folds porcupine's outcome into a result found by the linear checks. Illegal
// with no violation found so far is pinned to fallback (or the last event); unknown with no
// violation is an unknown verdict, never a pass.
func mergeOutcome(res Result, outcome porcupine.CheckResult, events []trace.Event, fallback int, message string) Result {
	switch outcome {
	case porcupine.Illegal:
		if len(res.Violations) == 0 {
			e := lastEvent(events)
			if fallback >= 0 {
				e = &events[fallback]
			}
			res.Violations = []Violation{violationAt(res.Property, e, "%s", message)}
			res.Verdict = VerdictFail
		}
	case porcupine.Unknown:
		if len(res.Violations) == 0 {
			res.Verdict = VerdictUnknown
		}
		res.Note = joinNote(res.Note, "porcupine timed out")
	}
	return res
}

func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}
