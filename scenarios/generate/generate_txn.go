package generate

import (
	"slices"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// pendingTransactions draws, now and then, a two-phase-commit sink that holds at most one to
// three pending transactions, so that a lost or late completion notice makes it decline the
// next snapshots (too-many-pending) until the notice comes again. A sink whose transactions
// may time out is left alone: its declines keep a transaction open longer than the bound
// the timeout was drawn against counts. So is a job that takes savepoints: no completion
// is announced for a savepoint, so its transaction holds a place until the next checkpoint
// completes, and a bound no larger than the savepoints outstanding declines every checkpoint
// until the failure budget fails the job over, as Flink's Kafka producer does with its pool
// used up (generated seed 34586 of an earlier draw: 327 failures tolerated, none completed).
func (g *generator) pendingTransactions(s *scenarios.Scenario) {
	if s.Sink == nil || s.Sink.Kind != scenarios.SinkTwoPhaseCommit || !timeoutsSpare(s) || takesSavepoints(s) {
		return
	}
	// Drawn on the last value, so that a draw rapid shrinks leaves it out.
	if g.r.IntN(2) == 1 {
		s.Sink.MaxPendingTransactions = int(g.between(1, 3))
	}
}

// takesSavepoints reports whether a fault of s asks for a savepoint.
func takesSavepoints(s *scenarios.Scenario) bool {
	return slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == faults.TriggerSavepoint })
}

// timeoutsSpare reports whether no transaction of s can time out: no timeout configured
// (or the hour that outlives every run), no external.timeout fault and no swarm to draw one.
func timeoutsSpare(s *scenarios.Scenario) bool {
	if t := s.Sink.TransactionTimeout; s.Swarm != nil || t != 0 && t != scenarios.Seconds(3600) {
		return false
	}
	for _, e := range s.Faults {
		if e.Fault.Kind == faults.ExternalTimeout {
			return false
		}
	}
	return true
}

// transactionTimeouts draws, for a two-phase-commit sink, transaction timeouts a correct
// engine must survive: a third of the time a configured one, a third of the time an
// external.timeout in the fault phase, each from one to three times the bound on how long
// a transaction may stay open (openTransactionBound). It runs after every fault is drawn,
// which the bound counts; an external.timeout above it aborts nothing, so the bound leaves
// it out, and adding one leaves the bound as it was.
func (g *generator) transactionTimeouts(s *scenarios.Scenario) {
	if s.Sink == nil || s.Sink.Kind != scenarios.SinkTwoPhaseCommit {
		return
	}
	// The bound of the scenario as it will run: with the defaults Complete fills in.
	c := s.WithDefaults()
	bound := c.OpenTransactionBound()
	timeout := func() scenarios.Duration { return bound + scenarios.Duration(g.between(0, 2*bound.Nanos())) }
	if t := &s.Sink.TransactionTimeout; *t != 0 && *t < bound {
		*t = min(bound, scenarios.MaxSpan) // the hour dataflow drew is short of a run that tolerates many failures
	}
	switch g.r.IntN(3) {
	case 0:
		s.Sink.TransactionTimeout = min(timeout(), scenarios.MaxSpan)
	case 1:
		if s.Swarm != nil {
			return
		}
		phase := s.Limits.FaultPhase.Nanos()
		at := g.between(0, phase-1)
		f := faults.Fault{Kind: faults.ExternalTimeout, Timeout: min(timeout(), scenarios.MaxSpan),
			Window: faults.Duration(g.between(1, phase-at))}
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: f})
	}
}
