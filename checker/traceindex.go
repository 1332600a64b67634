package checker

import (
	"iter"
	mathbits "math/bits"
	"slices"
	"sync"

	"github.com/ckptsim/ckptsim/trace"
)

// traceIndex is what Check works out about a trace once for all its properties. Most
// properties look at a few kinds of events only (a checkpoint's lifecycle, failovers, task
// restores), yet a trace is mostly sink writes, barriers and snapshots, and an event is some
// 200 bytes: a pass that reads every event's kind streams the whole trace through the caches
// for the few events it wants, and there were a score of such passes. The index reads each
// kind once, into a bit set per kind over the events, so that a property finds the events of
// the kinds it reacts to a word of 64 events at a time and touches no other.
//
// Its lazily computed parts are shared by properties that Check may run concurrently, so
// each is computed under a sync.Once.
type traceIndex struct {
	events []trace.Event
	// ofKind holds, per kind code, the events of that kind: bit i%64 of word i/64 is set
	// for event i. A kind the trace does not hold has no words.
	ofKind [64][]uint64

	faults  func() *faultSpans // faultSpansOf(events), computed on first use
	workers func() []worker    // workersOf(ix), computed on first use
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

// has reports whether kind is in the set; a kind outside the schema never is.
func (set kindSet) has(kind string) bool { return set&(1<<kindCodes[kind]) != 0 }

func newTraceIndex(events []trace.Event) *traceIndex {
	ix := &traceIndex{events: events}
	words := (len(events) + 63) / 64
	// Runs of one kind are the rule (a sink's writes, a round of barriers), and a kind
	// string is most often the very constant the last event used, which compares equal at
	// once; only a change of kind costs a map lookup.
	last, lastCode := "", kindCode(0)
	for i := range events {
		kind := events[i].Kind
		if kind != last {
			last, lastCode = kind, kindCodes[kind]
		}
		bits := ix.ofKind[lastCode]
		if bits == nil {
			bits = make([]uint64, words)
			ix.ofKind[lastCode] = bits
		}
		bits[i/64] |= 1 << (i % 64)
	}
	ix.faults = sync.OnceValue(func() *faultSpans { return faultSpansOf(ix) })
	ix.workers = sync.OnceValue(func() []worker { return workersOf(ix) })
	return ix
}

// eventSet is the events of a set of kinds: bit i%64 of word i/64 is set for event i.
type eventSet struct {
	n    int // events in the trace
	bits []uint64
}

// of returns the events whose kind is in set, the union of their kinds' bit sets (a word
// of 64 events costs one OR per kind, and the passes then read one word per 64 events).
func (ix *traceIndex) of(set kindSet) eventSet {
	es := eventSet{n: len(ix.events)}
	for code, bits := range ix.ofKind {
		if set&(1<<code) == 0 || bits == nil {
			continue
		}
		if es.bits == nil {
			es.bits = slices.Clone(bits)
			continue
		}
		for w, word := range bits {
			es.bits[w] |= word
		}
	}
	return es
}

// next returns the first event at or after from in es, or es.n if there is none.
func (es eventSet) next(from int) int {
	if from >= es.n || es.bits == nil {
		return es.n
	}
	w := from / 64
	bits := es.bits[w] &^ (1<<(from%64) - 1) // the events before from are not asked for
	for bits == 0 {
		if w++; w == len(es.bits) {
			return es.n
		}
		bits = es.bits[w]
	}
	return w*64 + mathbits.TrailingZeros64(bits)
}

// all yields the events of es in trace order.
func (es eventSet) all() iter.Seq[int] {
	return func(yield func(int) bool) {
		for w, word := range es.bits {
			for bits := word; bits != 0; bits &= bits - 1 {
				if !yield(w*64 + mathbits.TrailingZeros64(bits)) {
					return
				}
			}
		}
	}
}

// only yields, in trace order, the index of every event whose kind is in set.
func (ix *traceIndex) only(set kindSet) iter.Seq[int] { return ix.of(set).all() }

// any reports whether the trace holds an event of a kind in set.
func (ix *traceIndex) any(set kindSet) bool { return ix.of(set).next(0) < len(ix.events) }
