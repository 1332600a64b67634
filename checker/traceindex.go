package checker

import (
	"iter"
	"slices"
	"sync"

	"github.com/ckptsim/ckptsim/trace"
)

// traceIndex is what Check works out about a trace once for all its properties. Most
// properties look at a few kinds of events only (a checkpoint's lifecycle, failovers, task
// restores), yet a trace is mostly sink writes, barriers and snapshots, and an event is some
// 200 bytes: a pass that reads every event's kind streams the whole trace through the caches
// for the few events it wants, and there were a score of such passes. The index reads each
// kind once into a byte per event, so that a property skips the events it ignores by
// looking at those bytes alone.
//
// Its lazily computed parts are shared by properties that Check may run concurrently, so
// each is computed under a sync.Once.
type traceIndex struct {
	events []trace.Event
	kinds  []kindCode // per event, the code of its kind

	faults func() *faultSpans // faultSpansOf(events), computed on first use
}

// kindCode numbers the kinds of the schema from 1, in trace.Kinds order; 0 is any other
// kind (a malformed event, which well-formed reports and no other property reacts to).
type kindCode uint8

// kindCodes maps each kind of the schema to its code.
var kindCodes = func() map[string]kindCode {
	kinds := trace.Kinds()
	if len(kinds) >= 64 {
		panic("checker: a kindSet holds at most 63 kinds")
	}
	codes := make(map[string]kindCode, len(kinds))
	for i, kind := range kinds {
		codes[kind] = kindCode(i + 1)
	}
	return codes
}()

// kindSet is a set of kind codes: bit c stands for code c.
type kindSet uint64

// kindsOf returns the set of the given kinds, which must be kinds of the schema.
func kindsOf(kinds ...string) kindSet {
	var set kindSet
	for _, kind := range kinds {
		code, ok := kindCodes[kind]
		if !ok {
			panic("checker: not a kind of the schema: " + kind)
		}
		set |= 1 << code
	}
	return set
}

func (s kindSet) has(c kindCode) bool { return s&(1<<c) != 0 }

func newTraceIndex(events []trace.Event) *traceIndex {
	ix := &traceIndex{events: events, kinds: make([]kindCode, len(events))}
	// Runs of one kind are the rule (a sink's writes, a round of barriers), and a kind
	// string is most often the very constant the last event used, which compares equal at
	// once; only a change of kind costs a map lookup.
	last, lastCode := "", kindCode(0)
	for i := range events {
		kind := events[i].Kind
		if kind != last {
			last, lastCode = kind, kindCodes[kind]
		}
		ix.kinds[i] = lastCode
	}
	ix.faults = sync.OnceValue(func() *faultSpans { return faultSpansOf(ix) })
	return ix
}

// only yields, in trace order, the index of every event whose kind is in set.
func (ix *traceIndex) only(set kindSet) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, k := range ix.kinds {
			if set.has(k) && !yield(i) {
				return
			}
		}
	}
}

// any reports whether the trace holds an event of a kind in set.
func (ix *traceIndex) any(set kindSet) bool {
	return slices.ContainsFunc(ix.kinds, set.has)
}
