package checker

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// intAttr returns the integer attribute key of e. ok is false when the attribute is absent or
// not a decimal integer; well-formedness reports the second case, the other checks treat it
// as absent.
func intAttr(e *trace.Event, key string) (n int64, ok bool) {
	s, present := e.Attr(key)
	if !present {
		return 0, false
	}
	return parseInt(s)
}

// parseInt is strconv.ParseInt(s, 10, 64) for the checkers, which parse some million
// attribute values a large trace: a value of up to 18 decimal digits (every count and time a
// trace holds) is read here at a few instructions a digit, since it can neither overflow nor
// be anything ParseInt would read otherwise; anything else (a sign, more digits, no digits
// at all) is left to ParseInt.
func parseInt(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		n = 10*n + int64(d)
	}
	return n, true
}

// prefixedInts calls fn for every integer attribute of e whose key starts with prefix, with
// the rest of the key (a task id).
func prefixedInts(e *trace.Event, prefix string, fn func(task string, n int64)) {
	for _, a := range e.Attrs {
		rest, found := strings.CutPrefix(a.Key, prefix)
		if !found {
			continue
		}
		if n, ok := parseInt(a.Value); ok {
			fn(rest, n)
		}
	}
}

// isSavepointTrigger reports whether e is the trigger of a savepoint, stop-with-savepoint
// included: the user asked for it, it is aligned, its failure counts for nothing and its
// state is the user's.
func isSavepointTrigger(e *trace.Event) bool {
	v, ok := e.Attr(trace.AttrSavepoint)
	return ok && v == "true"
}

// isStopTrigger reports whether e is the trigger of a stop-with-savepoint.
func isStopTrigger(e *trace.Event) bool {
	v, ok := e.Attr(trace.AttrStop)
	return ok && v == "true" && isSavepointTrigger(e)
}

// isPlainSavepointTrigger reports whether e is the trigger of a savepoint that is not a
// stop-with-savepoint: never announced, never restored from, out of the checkpoint store.
// A completed stop-with-savepoint is all three, as a checkpoint is.
func isPlainSavepointTrigger(e *trace.Event) bool {
	return isSavepointTrigger(e) && !isStopTrigger(e)
}

// phaseOf returns the phase a phase event starts.
func phaseOf(e *trace.Event) string {
	v, _ := e.Attr(trace.AttrPhase)
	return v
}

// lastEvent returns the last event, or a zero event for an empty trace; absences are pinned
// to it.
func lastEvent(events []trace.Event) *trace.Event {
	if len(events) == 0 {
		return &trace.Event{}
	}
	return &events[len(events)-1]
}
