package checker

import (
	"fmt"
	"runtime/debug"
	"sync"
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

// judgeConcurrently returns judge(p) for every p of props, in the order of props, running
// each on a goroutine of its own. The properties are pure functions of the trace, the
// reference and what traceIndex and the replay work out once (under a sync.Once), so they
// may run side by side; each result goes to its own slot, so the report is the same at any
// GOMAXPROCS and in any schedule. A panic of a property (a checker bug) is raised again on
// the caller's goroutine once all have returned, the first in props order, as a sequential
// run would have raised it, wrapped in a PropertyPanic that keeps the stack of the goroutine
// it happened on.
func judgeConcurrently(props []Property, judge func(Property) Result) []Result {
	if len(props) == 0 {
		return nil // as a report of no properties always was: no results, not an empty list
	}
	results := make([]Result, len(props))
	panics := make([]*PropertyPanic, len(props))
	var wg sync.WaitGroup
	for i, p := range props {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panics[i] = &PropertyPanic{Property: p, Value: r, Stack: debug.Stack()}
				}
			}()
			results[i] = judge(p)
		})
	}
	wg.Wait()
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
