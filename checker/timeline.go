package checker

import (
	"sort"

	"github.com/ckptsim/ckptsim/trace"
)

// Operation positions for porcupine histories (see package linz): the event at index i
// returns at returnPos(i), and an operation invoked at virtual time t is placed just before
// the first event at or after t. Using trace positions rather than nanoseconds keeps events at
// the same virtual time in the order the trace gives them.

func returnPos(i int) int64 { return 2*int64(i) + 1 }

// callPos returns where the operation ending with events[i] was invoked: from its start
// attribute when it has one, else at the event itself (an instantaneous operation).
func callPos(events []trace.Event, i int) int64 {
	start, ok := intAttr(&events[i], trace.AttrStart)
	if !ok || start > events[i].T {
		return returnPos(i)
	}
	j := sort.Search(i+1, func(j int) bool { return events[j].T >= start })
	return 2 * int64(j)
}
