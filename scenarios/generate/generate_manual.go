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
// notifications a lost message left unheard. So a checkpoint asked for may have its
// barriers dropped for a while, which makes it expire, and the notices of its outcome
// dropped until after its timeout: nothing but a re-send then tells the tasks.
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
		at := g.between(0, phase-1)
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: faults.Fault{Kind: faults.TriggerCheckpoint}})
		g.outcomeUnheard(s, at)
	}
}

// outcomeUnheard may drop the barriers of a checkpoint asked for at at, so that it expires,
// and the notices of how it ended until after its timeout.
func (g *generator) outcomeUnheard(s *scenarios.Scenario, at int64) {
	timeout := s.Checkpoint.Timeout.Nanos()
	if g.r.IntN(2) == 0 {
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: faults.Fault{
			Kind: faults.NetDrop, Message: faults.MessageBarrier, Probability: 1, Window: faults.Duration(g.between(1, timeout))}})
	}
	if g.r.IntN(2) == 0 {
		s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: faults.Fault{
			Kind: faults.NetDrop, Message: faults.MessageNotify, Probability: 1, Window: faults.Duration(timeout + g.between(1, timeout))}})
	}
}
