package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Who owns the state: incremental snapshots, whose pieces later checkpoints share, and a
// job resubmitted from its latest checkpoint in a restore mode. Both are drawn after every
// other draw of a seed, so that adding them moved none.

// resubmissions are the operator actions that resubmit the job; resubmission draws them,
// after everything else, so that adding them moved no other draw.
var resubmissions = []faults.Kind{faults.ResubmitClaim, faults.ResubmitNoClaim, faults.ResubmitLegacy}

// incremental draws incremental snapshots for a third of the dataflow jobs, with runs
// merged after one to eight (or the engine's default): a bound of one rewrites the whole
// state at every other snapshot, a large one lets a snapshot refer to many earlier pieces.
func (g *generator) incremental(c *scenarios.Checkpoint, mode string) {
	if mode == scenarios.ModeChandyLamport || g.r.IntN(3) != 2 {
		return
	}
	c.Incremental = true
	if g.r.IntN(4) != 0 {
		c.Compaction = int(g.between(1, 8))
	}
}

// resubmission draws, for one dataflow job in eight without a swarm, a resubmission from
// the latest completed checkpoint in one of the three restore modes, when the j-th
// checkpoint completes. Not beside a transaction timeout: the bound that keeps a timeout
// in model (transactionTimeouts) knows nothing of the job's stop.
func (g *generator) resubmission(s *scenarios.Scenario) {
	timeout := s.Sink != nil && s.Sink.TransactionTimeout != 0
	if s.Mode == scenarios.ModeChandyLamport || s.Swarm != nil || timeout || g.r.IntN(8) != 7 {
		return
	}
	m := faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}
	s.Faults = append(s.Faults, faults.Entry{Trigger: faults.Nth(int(g.between(1, 8)), m), Fault: faults.Fault{Kind: pick(g, resubmissions)}})
}
