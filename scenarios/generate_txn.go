package scenarios

import (
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
)

// openTransactionBound is the longest a two-phase-commit sink's transaction may stay open
// (from its begin to its commit or abort) in a run of s, by its configuration and drawn
// faults. A transaction timeout above it is one a correct engine must survive; below it is
// the exactly-once trap control-short-txn-timeout shows. Flink states the same
// requirement: the transaction timeout must exceed the checkpoint interval plus the
// longest recovery.
//
// A transaction begins at one snapshot of its sink and is pre-committed at the next, which
// comes at most an interval, a pause and a timeout later (a checkpoint in flight holds the
// next trigger back until it completes or expires):
//
//	cycle    = interval + min_pause + timeout
//
// It is committed when a checkpoint that covers it completes; while checkpoints fail, each
// expiring after at most a cycle, it waits, until tolerable_failures + 1 failures in a row
// fail the job over; the restore commits it. So without faults it is open at most
//
//	attempts × cycle, attempts = tolerable_failures + 2
//
// Every fault adds what it can hold a run up for: its window and its delay (a partition
// stalls a channel, a paused host stops, storage that refuses writes fails checkpoints)
// and one failover (the engine's restart delay, every restart.delay in force, and a cycle
// to the first checkpoint after the restore), counted as often as its trigger may fire.
// A swarm is counted as its whole fault phase and max_faults failovers, each delayed by up
// to its largest window. One second covers the network's delays (a few milliseconds per
// message) and the store's latency:
//
//	bound = attempts × cycle + Σ_faults fires × (window + delay + failover) + 1s
//	failover = restart_delay + Σ restart.delay delays + cycle
func openTransactionBound(s *Scenario) Duration {
	c := s.Checkpoint
	cycle := c.Interval + c.MinPause + c.Timeout
	tolerable := 0
	if c.TolerableFailures != nil {
		tolerable = *c.TolerableFailures
	}
	bound := Duration(tolerable+2)*cycle + Seconds(1)
	restart := Duration(engine.DefaultConfig(engine.Graph{}).RestartDelay)
	if s.Swarm != nil {
		b := s.Budget(s.System())
		window := Duration(b.MaxWindowNanos)
		return bound + s.Limits.FaultPhase + Duration(b.MaxFaults)*(restart+window+window+cycle)
	}
	var extraRestart, held Duration
	failovers := 0
	for _, e := range s.Faults {
		fires := 1
		if e.Trigger.Type == faults.OnChance {
			fires = e.Trigger.Max
		}
		f := e.Fault
		if f.Kind == faults.ExternalTimeout {
			continue // above the bound, it aborts nothing, and so holds nothing up
		}
		if f.Kind == faults.RestartDelay {
			extraRestart += Duration(fires) * Duration(f.DelayNanos)
		}
		held += Duration(fires) * Duration(f.WindowNanos+f.DelayNanos)
		failovers += fires
	}
	return bound + held + Duration(failovers)*(restart+extraRestart+cycle)
}

// transactionTimeouts draws, for a two-phase-commit sink, transaction timeouts a correct
// engine must survive: a third of the time a configured one, a third of the time an
// external.timeout in the fault phase, each from one to three times the bound on how long
// a transaction may stay open (openTransactionBound). It runs after every fault is drawn,
// which the bound counts; an external.timeout above it aborts nothing, so the bound leaves
// it out, and adding one leaves the bound as it was.
func (g *generator) transactionTimeouts(s *Scenario) {
	if s.Sink == nil || s.Sink.Kind != SinkTwoPhaseCommit {
		return
	}
	// The bound of the scenario as it will run: with the defaults Complete fills in.
	c := s.Clone()
	c.applyDefaults()
	bound := openTransactionBound(c)
	timeout := func() Duration { return bound + Duration(g.between(0, 2*bound.Nanos())) }
	if t := &s.Sink.TransactionTimeout; *t != 0 && *t < bound {
		*t = min(bound, maxSpan) // the hour dataflow drew is short of a run that tolerates many failures
	}
	switch g.r.IntN(3) {
	case 0:
		s.Sink.TransactionTimeout = min(timeout(), maxSpan)
	case 1:
		if s.Swarm != nil {
			return
		}
		phase := s.Limits.FaultPhase.Nanos()
		at := g.between(0, phase-1)
		f := faults.Fault{Kind: faults.ExternalTimeout, TimeoutNanos: min(timeout(), maxSpan).Nanos(),
			WindowNanos: g.between(1, phase-at)}
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(at), Fault: f})
	}
}
