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
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// prefixedInts calls fn for every integer attribute of e whose key starts with prefix, with
// the rest of the key (a task id).
func prefixedInts(e *trace.Event, prefix string, fn func(task string, n int64)) {
	for _, a := range e.Attrs {
		rest, found := strings.CutPrefix(a.Key, prefix)
		if !found {
			continue
		}
		if n, err := strconv.ParseInt(a.Value, 10, 64); err == nil {
			fn(rest, n)
		}
	}
}

// isSavepointTrigger reports whether e is the trigger of a savepoint.
func isSavepointTrigger(e *trace.Event) bool {
	v, ok := e.Attr(trace.AttrSavepoint)
	return ok && v == "true"
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
