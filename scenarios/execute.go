package scenarios

import (
	"fmt"
	"runtime/debug"
	"slices"
	"time"
)

// PropertyInvariant names the violation a panic inside a run becomes: a broken invariant in
// the engine, the protocol or the simulator. No scenario can expect it.
const PropertyInvariant = "invariant"

// Execute plans s on seed with r, runs the plan and judges the result against s.Expect. It
// measures the wall time of the run. A panic inside the run (a broken invariant) becomes a
// failed verdict with an invariant violation and the stack, so that a sweep goes on and the
// failure gets an artifact; an error means the scenario could not be assembled.
func Execute(r Runner, s *Scenario, seed uint64, opts RunOptions) (*Plan, *Result, error) {
	plan, err := r.Plan(s, seed)
	if err != nil {
		return nil, nil, err
	}
	res, err := Run(r, plan, opts)
	return plan, res, err
}

// Run runs a plan made by r.Plan and judges it, as Execute does.
func Run(r Runner, plan *Plan, opts RunOptions) (res *Result, err error) {
	start := time.Now()
	defer func() {
		if recovered := recover(); recovered != nil {
			res = panicResult(plan, recovered, debug.Stack())
			err = nil
		}
		if res != nil {
			res.WallNanos = time.Since(start).Nanoseconds()
			res.Judge(plan.Scenario.Expect)
		}
	}()
	return r.Run(plan, opts)
}

func panicResult(plan *Plan, recovered any, stack []byte) *Result {
	message := fmt.Sprint(recovered)
	return &Result{
		Scenario:   plan.Scenario.Name,
		Seed:       plan.Seed,
		Verdict:    VerdictFail,
		Violations: []Violation{{Property: PropertyInvariant, Message: "panic: " + message}},
		// A run that panicked has no complete trace; the hash of nothing keeps artifacts
		// well-formed, and a replay that panics the same way matches it.
		TraceHash: emptyTraceHash,
		Faults:    slices.Clone(plan.Faults.Entries),
		Panic:     message + "\n" + string(stack),
	}
}

// emptyTraceHash is the trace hash of a trace with no events (SHA-256 of nothing).
const emptyTraceHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
