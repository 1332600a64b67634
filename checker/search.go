package checker

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
	"github.com/ckptsim/ckptsim/trace"
)

// SearchOptions bound one linearizability search (porcupine's): a budget of model steps that
// decides, the same on every machine, when a history is too hard to judge, and a wall-clock
// safety net. Picture, when not nil, receives porcupine's drawing of a history that has no
// linearization (a self-contained HTML page); nothing is written to it when the history is
// fine, so a caller that wants a file only for a violation can buffer, or open the file on
// the first write.
type SearchOptions struct {
	Steps   int64         // zero: DefaultSearchSteps
	Timeout time.Duration // zero: DefaultSearchTimeout
	Picture io.Writer     // nil: no drawing
}

func (o SearchOptions) steps() int64 {
	if o.Steps <= 0 {
		return DefaultSearchSteps
	}
	return o.Steps
}

func (o SearchOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultSearchTimeout
	}
	return o.Timeout
}

// mergeOutcome folds porcupine's outcome into a result found by the linear checks. Illegal
// with no violation found so far is pinned to fallback (or the last event); unknown with no
// violation is an unknown verdict, never a pass.
func mergeOutcome(res Result, outcome linz.Outcome, events []trace.Event, fallback int, message string) Result {
	switch outcome.Result {
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
		res.Note = joinNote(res.Note, unknownNote(outcome))
	}
	return res
}

// unknownNote says why porcupine could not decide, and whether that depends on the machine.
func unknownNote(o linz.Outcome) string {
	if o.TimedOut {
		return "porcupine hit the wall-clock safety net (this verdict depends on the machine)"
	}
	return fmt.Sprintf("porcupine ran out of its budget of %d model steps", o.Steps)
}

func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}

// pictureNote is the note of a result whose history porcupine drew (SearchOptions.Picture).
const pictureNote = "porcupine drew the history without a linearization"
