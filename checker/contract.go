package checker

import (
	"github.com/ckptsim/ckptsim/trace"
)

// Contract checks that the engine kept to the protocol's contract, as far as the engine
// could tell: every contract.broken event is a violation, pinned to it. An engine traces one
// where the protocol handed it something the contract rules out (a second snapshot request
// for one checkpoint, channel state for a checkpoint that records none, an error where the
// contract promises none), and stops there instead of going on or crashing. Either side
// may be at fault: the event says only that the two no longer agree, which no correct pair
// of engine and protocol ever shows.
//
// The evidence is the trace itself, like well-formed's: a trace of an engine at work
// without contract.broken passes. One with no events at all is unknown, and one that holds
// only the run's phases and faults, nothing the engine did, is unexercised.
func Contract(events []trace.Event) Result {
	if len(events) == 0 {
		return unknownResult(PropContract, "the trace holds no events")
	}
	var violations []Violation
	atWork := false
	for i := range events {
		e := &events[i]
		atWork = atWork || (e.Kind != trace.KindPhase && e.Kind != trace.KindFault)
		if e.Kind != trace.KindContractBroken {
			continue
		}
		what, _ := e.Attr(trace.AttrWhat)
		detail, _ := e.Attr(trace.AttrDetail)
		switch {
		case what == "":
			violations = append(violations, violationAt(PropContract, e, "%s broke the protocol's contract, and did not say which promise", e.Task))
		case detail == "":
			violations = append(violations, violationAt(PropContract, e, "%s broke the protocol's contract: %s", e.Task, what))
		default:
			violations = append(violations, violationAt(PropContract, e, "%s broke the protocol's contract: %s: %s", e.Task, what, detail))
		}
	}
	if !atWork {
		return unexercisedResult(PropContract, "no event of the engine at work, only phases and faults")
	}
	return newResult(PropContract, violations)
}
