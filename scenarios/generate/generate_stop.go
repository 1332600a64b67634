package generate

import (
	"slices"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// stopEvents are the events a fault aimed at a stop-with-savepoint fires on: the sources
// taking the trigger, a snapshot taken or acked while it is under way, and the
// notifications of its completion, after which the tasks exit.
var stopEvents = []string{trace.KindTriggerRecv, trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindNotifyComplete}

// stopWithSavepoint draws, for one dataflow job in six without a swarm or a transaction
// timeout, a stop-with-savepoint at a time in the fault phase, and for half of them a
// crash aimed at it: of a task or the coordinator, on one of the first events of the stop
// (stopEvents). Whether the stop fails or ends the job, a correct engine passes: the job
// runs on, or its output ends at the savepoint's cut. One stop in three drains (drawn
// last). Not beside a transaction timeout: drawn in model for the faults before it, it
// may not be for these. Drawn after every other draw, so that adding it moved none.
func (g *generator) stopWithSavepoint(s *scenarios.Scenario) {
	timeout := s.Sink != nil && s.Sink.TransactionTimeout != 0 ||
		slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == faults.ExternalTimeout })
	if s.Mode == scenarios.ModeChandyLamport || s.Swarm != nil || timeout || g.r.IntN(6) != 5 {
		return
	}
	at := g.between(1, int64(s.Limits.FaultPhase))
	s.Faults = append(s.Faults, faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: faults.Fault{Kind: faults.StopWithSavepoint}})
	stop := &s.Faults[len(s.Faults)-1].Fault
	if g.r.IntN(2) != 0 {
		g.crashAtStop(s, at)
		stop = &s.Faults[len(s.Faults)-2].Fault
	}
	if g.r.IntN(3) == 0 {
		stop.Kind = faults.StopWithSavepointDrain
	}
}

// crashAtStop draws a crash of a task or the coordinator on one of the first events of
// a stop-with-savepoint asked for at at.
func (g *generator) crashAtStop(s *scenarios.Scenario, at int64) {
	trigger := faults.Nth(int(g.between(1, 4)), faults.Match{Kind: pick(g, stopEvents)})
	trigger.After = faults.Duration(at)
	crash := faults.Fault{Kind: faults.CrashTask, Task: pick(g, s.Graph().Tasks())}
	if g.r.IntN(3) == 0 {
		crash = faults.Fault{Kind: faults.CrashCoordinator}
	}
	s.Faults = append(s.Faults, faults.Entry{Trigger: trigger, Fault: crash})
}
