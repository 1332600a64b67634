package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

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
		f := faults.Fault{Kind: faults.ExternalTimeout, TimeoutNanos: min(timeout(), scenarios.MaxSpan).Nanos(),
			WindowNanos: g.between(1, phase-at)}
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(at), Fault: f})
	}
}
