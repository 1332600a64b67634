package scenarios

import (
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
)

// InModel reports whether fault f is one a correct engine must survive in a run of s, a
// complete scenario. Most kinds decide alone (faults.Kind.OutOfModel); two depend on the
// run. storage.lost is survivable where the engine reads every write back (no
// unverified_writes), which finds a lost write at once and handles it as a failed one.
// external.timeout is survivable where its timeout is above the longest a transaction
// may stay open in s (OpenTransactionBound), so that it aborts none. The generator (package generate)
// draws both only so.
func (s *Scenario) InModel(f faults.Fault) bool {
	switch f.Kind {
	case faults.StorageLost:
		return !s.Checkpoint.UnverifiedWrites
	case faults.ExternalTimeout:
		return Duration(f.Timeout) >= s.OpenTransactionBound()
	}
	return !f.OutOfModel()
}

// OpenTransactionBound is the longest a two-phase-commit sink's transaction may stay open
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
func (s *Scenario) OpenTransactionBound() Duration {
	c := s.Checkpoint
	if !c.IsPeriodic() {
		// Without periodic checkpoints a transaction may stay open from one trigger, or the
		// start, to the final checkpoint: no timeout is safe.
		return MaxSpan
	}
	cycle := c.Interval + c.MinPause + c.Timeout
	tolerable := 0
	if c.TolerableFailures != nil {
		tolerable = *c.TolerableFailures
	}
	bound := Duration(tolerable+2)*cycle + Seconds(1)
	restart := Duration(engine.DefaultConfig(engine.Graph{}).RestartDelay)
	if s.Swarm != nil {
		b := s.Budget(s.System())
		window := Duration(b.MaxWindow)
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
			extraRestart += Duration(fires) * Duration(f.Delay)
		}
		held += Duration(fires) * Duration(f.Window+f.Delay)
		failovers += fires
	}
	return bound + held + Duration(failovers)*(restart+extraRestart+cycle)
}
