// Package scenariotest provides a fake scenarios.Runner for tests of code that drives runs
// (the command line, shrinking, sweeps), so that they can check their own logic quickly and
// exactly without the engine.
package scenariotest

import (
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Fake is a deterministic stand-in for the simulation. A run emits a short trace derived
// from its plan (so its hash depends on the scenario, the seed and the schedule) and fails
// the properties Fails names.
type Fake struct {
	// Fails returns the properties a run of p violates; nil means DefaultFails.
	Fails func(p *scenarios.Plan) []checker.Property
	// Limit, if set and true for p, makes the run end with verdict limit.
	Limit func(p *scenarios.Plan) bool
	// PlanErr, if set, is what Plan returns, as if the scenario could not be assembled.
	PlanErr error
	// Salt changes every trace hash, to play a nondeterministic build.
	Salt string
	// Panic, if set and true for p, makes the run panic, as a broken invariant would.
	Panic func(p *scenarios.Plan) bool

	runs atomic.Int64
}

// MinFailingInput is the smallest input size at which DefaultFails lets a run fail, so that
// shrinking the input has a known answer.
const MinFailingInput = 10

// DefaultFails fails a run when its schedule holds a fault out of model in it
// (Scenario.InModel), or when it is a
// negative control with any fault at all, provided the input (records, token transfers, or
// script steps) is at least MinFailingInput. The property is the negative control's, or exactly-once for a scenario expected to pass.
func DefaultFails(p *scenarios.Plan) []checker.Property {
	s := p.Scenario
	size := s.Workload.Records
	switch {
	case len(s.Script) > 0:
		size = len(s.Script) // a script's steps are its input
	case s.Workload.Kind == scenarios.WorkloadTokens:
		size = s.Workload.Transfers
	}
	if size < MinFailingInput {
		return nil
	}
	trigger := false
	for _, e := range p.Faults.Entries {
		trigger = trigger || !s.InModel(e.Fault) || s.IsNegativeControl()
	}
	if !trigger {
		return nil
	}
	if s.IsNegativeControl() {
		return []checker.Property{s.Expect.Property}
	}
	return []checker.Property{checker.PropExactlyOnce}
}

// Runs returns how many runs the fake has executed.
func (f *Fake) Runs() int64 { return f.runs.Load() }

// Plan plans as the real simulation does (the swarm draws from the faults package), unless
// PlanErr is set.
func (f *Fake) Plan(s *scenarios.Scenario, seed uint64) (*scenarios.Plan, error) {
	if f.PlanErr != nil {
		return nil, f.PlanErr
	}
	return scenarios.PlanFor(s, seed)
}

// Run emits the fake trace of p and judges it by Fails.
func (f *Fake) Run(p *scenarios.Plan, opts scenarios.RunOptions) (*scenarios.Result, error) {
	f.runs.Add(1)
	if f.Panic != nil && f.Panic(p) {
		panic(fmt.Sprintf("fake invariant broken on seed %d", p.Seed))
	}
	s := p.Scenario
	rec := trace.NewRecorder(opts.Trace, trace.Header{Scenario: s.Name, Seed: p.Seed, Build: opts.Build})
	t := int64(0)
	emit := func(e trace.Event) trace.Event {
		t += 1_000_000
		return rec.Emit(t, e)
	}
	emit(trace.Event{Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: trace.AttrPhase, Value: "fault"}}})
	emit(trace.Event{Kind: "fake.scenario", Attrs: []trace.Attr{{Key: "json", Value: string(scenarios.Marshal(s))}, {Key: "salt", Value: f.Salt}}})
	for i, e := range p.Faults.Entries {
		emit(trace.Event{Kind: trace.KindFault, Fault: string(e.Fault.Kind), Attrs: []trace.Attr{{Key: "entry", Value: strconv.Itoa(i)}, {Key: "text", Value: e.String()}}})
	}
	completed := 3 + int(p.Seed%5)
	var checkpointNanos []int64
	for cp := 1; cp <= completed; cp++ {
		start := emit(trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: uint64(cp)})
		end := emit(trace.Event{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: uint64(cp)})
		checkpointNanos = append(checkpointNanos, end.T-start.T+int64(p.Seed%3)*1_000_000)
	}
	var recoveryNanos []int64
	if len(p.Faults.Entries) > 0 {
		recoveryNanos = []int64{int64(p.Seed%7+1) * 10_000_000}
	}
	res := &scenarios.Result{
		Scenario:             s.Name,
		Seed:                 p.Seed,
		Verdict:              scenarios.VerdictPass,
		CheckpointsCompleted: completed,
		CheckpointsAborted:   int(p.Seed % 2),
		Faults:               p.Faults.Entries,
		FaultsInjected:       len(p.Faults.Entries),
		RecoveryNanos:        recoveryNanos,
		CheckpointNanos:      checkpointNanos,
	}
	fails := DefaultFails
	if f.Fails != nil {
		fails = f.Fails
	}
	switch {
	case f.Limit != nil && f.Limit(p):
		res.Verdict, res.LimitReason = scenarios.VerdictLimit, "max_events reached"
	default:
		for _, property := range fails(p) {
			v := emit(trace.Event{Kind: "fake.violation", Task: "sum-0", CP: 2, Reason: string(property)})
			res.Verdict = scenarios.VerdictFail
			res.Violations = append(res.Violations, checker.Violation{
				Property: property, Message: "fake violation of " + string(property), Seq: v.Seq, T: v.T, Task: v.Task, CP: v.CP,
			})
		}
	}
	emit(trace.Event{Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: trace.AttrPhase, Value: "end"}}})
	if err := rec.Flush(); err != nil {
		return nil, errors.New("scenariotest: " + err.Error())
	}
	res.TraceHash, res.Events, res.VirtualNanos = rec.Hash(), rec.Len(), t
	return res, nil
}
