package checker

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
)

// concurrentEvents is the length of trace from which Check judges its properties side by
// side. A goroutine per property costs its start and the growth of its stack, which a short
// trace does not repay: the runs of a sweep, a few thousand events each, judged one after
// another while other runs keep the other cores busy, take about 2% more instructions run
// concurrently and no less time. A trace from another engine, judged alone by simrun check,
// is often far longer.
const concurrentEvents = 1 << 16

// judgeInTurn returns judge(p) for every p of props, in order, on the caller's goroutine; a
// property's panic goes up as it is, with its stack.
func judgeInTurn(props []Property, judge func(Property) Result) []Result {
	if len(props) == 0 {
		return nil // as judgeConcurrently
	}
	results := make([]Result, len(props))
	for i, p := range props {
		results[i] = judge(p)
	}
	return results
}

// schedule orders the work of judgeConcurrently. The properties that read the sink replay
// (late) wait for it, and it is the longest single piece of work over a long trace, so it
// starts first (prepare), on a goroutine of its own, and those properties are taken last,
// when it is likely done, rather than each holding a goroutine while it waits.
type schedule struct {
	prepare func()              // work the late properties wait for; nil if none
	late    func(Property) bool // whether a property waits for prepare
}

// judgeConcurrently returns judge(p) for every p of props, in the order of props. As many
// goroutines as the Go runtime runs at once take the work in turn: prepare, the properties
// that do not wait for it, then those that do. The properties are pure functions of the
// trace, the reference and what traceIndex and the replay work out once (under a sync.Once),
// so they may run side by side; each result goes to its own slot, so the report is the same
// at any GOMAXPROCS and in any schedule. A panic of a property (a checker bug) is raised
// again on the caller's goroutine once all have returned, the first in props order, as a
// sequential run would have raised it, wrapped in a PropertyPanic that keeps the stack of
// the goroutine it happened on. A panic of prepare is raised as the first late property's,
// with prepare's stack: that property would have met it first in a sequential run.
func judgeConcurrently(props []Property, judge func(Property) Result, s schedule) []Result {
	if len(props) == 0 {
		return nil // as a report of no properties always was: no results, not an empty list
	}
	const prepare = -1
	var order []int // indices into props, or prepare
	firstLate := -1
	for i, p := range props {
		if s.late == nil || !s.late(p) {
			order = append(order, i)
		} else if firstLate < 0 {
			firstLate = i
		}
	}
	if firstLate >= 0 {
		if s.prepare != nil {
			order = slices.Insert(order, 0, prepare)
		}
		for i := firstLate; i < len(props); i++ {
			if s.late(props[i]) {
				order = append(order, i)
			}
		}
	}
	results := make([]Result, len(props))
	panics := make([]*PropertyPanic, len(props))
	var prepared *PropertyPanic
	run := func(i int) {
		defer func() {
			if r := recover(); r != nil {
				if i == prepare {
					prepared = &PropertyPanic{Property: props[firstLate], Value: r, Stack: debug.Stack()}
				} else {
					panics[i] = &PropertyPanic{Property: props[i], Value: r, Stack: debug.Stack()}
				}
			}
		}()
		if i == prepare {
			s.prepare()
			return
		}
		results[i] = judge(props[i])
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < len(order); k = int(next.Add(1)) - 1 {
				run(order[k])
			}
		})
	}
	wg.Wait()
	if prepared != nil {
		panics[firstLate] = prepared
	}
	for _, pp := range panics {
		if pp != nil {
			panic(pp)
		}
	}
	return results
}

// PropertyPanic is what Check panics with when a property panicked: which one, the value it
// panicked with and the stack where it did. Properties run on goroutines of their own, so
// the stack of the goroutine that raises the panic again would not show where it began.
type PropertyPanic struct {
	Property Property
	Value    any
	Stack    []byte
}

func (p *PropertyPanic) String() string { return fmt.Sprintf("%s: %v", p.Property, p.Value) }
