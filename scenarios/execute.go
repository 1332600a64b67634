package scenarios

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// PropertyInvariant and PropertyPanic name the violation a panic inside a run becomes.
// Invariant: the protocol's own check of its state failed (a *protocol.InvariantError: every
// simulated run turns the checks on), or one of the engine's (*engine.InvariantError), a
// verdict as good as a property's. Panic: anything else panicked (a runtime error of the
// engine or the simulator), which says something broke but not what rule it broke. Neither is a property of package checker (no checker
// judges it, and no scenario can name or expect it), but they share checker's type so that
// a run's violations are all checker.Violation.
const (
	PropertyInvariant checker.Property = "invariant"
	PropertyPanic     checker.Property = "panic"
)

// Execute plans s on seed with r, runs the plan and judges the result against s.Expect. It
// measures the wall time of the run. A panic inside the run becomes a failed verdict with
// an invariant violation (a protocol invariant check failed) or a panic violation, pinned to the last event recorded before it
// when the Runner says which (RunPanic), and the stack, so that a sweep goes on and the
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

// RunPanic is a panic inside a run together with where the run had got to: a Runner that
// knows its trace panics with one (Simulation does), so that the violation points
// at the last event recorded before the panic instead of at the start of the run.
type RunPanic struct {
	Value any
	// Stack is the stack of the panic, taken where it was recovered first.
	Stack []byte
	// Last is the last event recorded before the panic, if Recorded; Events and
	// VirtualNanos how many there were and the virtual time then.
	Last         trace.Event
	Recorded     bool
	Events       uint64
	VirtualNanos int64
}

func (p *RunPanic) String() string { return fmt.Sprint(p.Value) }

func panicResult(plan *Plan, recovered any, stack []byte) *Result {
	v := checker.Violation{Property: PropertyPanic}
	res := &Result{
		Scenario: plan.Scenario.Name,
		Seed:     plan.Seed,
		Verdict:  VerdictFail,
		// A run that panicked has no complete trace; the hash of nothing keeps artifacts
		// well-formed, and a replay that panics the same way matches it.
		TraceHash: emptyTraceHash,
		Faults:    slices.Clone(plan.Faults.Entries),
	}
	where, beforeAnyEvent := "", false
	if rp, ok := recovered.(*RunPanic); ok {
		recovered, stack = rp.Value, rp.Stack
		res.Events, res.VirtualNanos = rp.Events, rp.VirtualNanos
		v.T = rp.VirtualNanos
		if rp.Recorded {
			v.Seq, v.T, v.Task, v.CP = rp.Last.Seq, rp.Last.T, rp.Last.Task, rp.Last.CP
			where = " (after " + rp.Last.Kind + ")"
		} else {
			where, beforeAnyEvent = " (before any event)", true
		}
	}
	message := fmt.Sprint(recovered)
	v.Message = "panic" + where + ": " + message
	if err, ok := recovered.(error); ok {
		var broken *protocol.InvariantError
		var engineBroken *engine.InvariantError
		if errors.As(err, &broken) || errors.As(err, &engineBroken) {
			v.Property = PropertyInvariant
			v.Message = err.Error() + where
		}
	}
	if beforeAnyEvent && v.Property == PropertyPanic {
		// Validation refuses bad input with an error, so a job that panics before its first
		// event is one this build cannot start: job-accepted, as for a refusal.
		v.Property = PropertyJobAccepted
		v.Message = "this build cannot start the job: it panicked before its first event: " + message
	}
	res.Violations = []checker.Violation{v}
	res.Panic = message + "\n" + string(stack)
	return res
}

// emptyTraceHash is the trace hash of a trace with no events.
var emptyTraceHash = trace.HashEvents(nil)
