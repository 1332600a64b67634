package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// manualCheckpoints draws, now and then, a job without periodic checkpoints (Flink's
// checkpointing interval left unset), with up to four checkpoints asked for in the fault
// phase (trigger.checkpoint). Only a bounded job's final checkpoint is then sure to come, and
// what the coordinator does by itself, with no newer checkpoint to cover for it, is all
// there is: asking for the final checkpoint again when it fails, and re-sending the
// notifications a lost message left unheard.
func (g *generator) manualCheckpoints(s *scenarios.Scenario) {
	if s.Mode == scenarios.ModeChandyLamport {
		return
	}
	// Drawn on the last value, so that a draw rapid shrinks leaves it out.
	if g.r.IntN(8) != 7 {
		return
	}
	off := false
	s.Checkpoint.Periodic = &off
	if s.Swarm != nil {
		return // a swarm is the schedule: it may draw trigger.checkpoint itself
	}
	phase := s.Limits.FaultPhase.Nanos()
	for range g.between(0, 4) {
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(g.between(0, phase-1)), Fault: faults.Fault{Kind: faults.TriggerCheckpoint}})
	}
}
