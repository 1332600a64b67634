package checker

import "sync"

// judgeConcurrently returns judge(p) for every p of props, in the order of props, running
// each on a goroutine of its own. The properties are pure functions of the trace, the
// reference and what traceIndex and the replay work out once (under a sync.Once), so they
// may run side by side; each result goes to its own slot, so the report is the same at any
// GOMAXPROCS and in any schedule. A panic of a property (a checker bug, which callers such
// as simrun check report as one) is raised again on the caller's goroutine once all have
// returned, the first in props order, as a sequential run would have raised it.
func judgeConcurrently(props []Property, judge func(Property) Result) []Result {
	if len(props) == 0 {
		return nil // as a report of no properties always was: no results, not an empty list
	}
	results := make([]Result, len(props))
	panics := make([]any, len(props))
	var wg sync.WaitGroup
	for i, p := range props {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			results[i] = judge(p)
		})
	}
	wg.Wait()
	for _, r := range panics {
		if r != nil {
			panic(r)
		}
	}
	return results
}
