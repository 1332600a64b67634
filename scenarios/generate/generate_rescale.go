package generate

import (
	"slices"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// rescale draws, for one dataflow job in four without a swarm or a transaction timeout, a
// rescale in the fault phase, at a time or, half the time, as one of the checkpoints after
// it completes: the first operator, in a drawn order, that the engine can rescale
// (scenarios' RescaleAccepts) to one to eight tasks, the job's key groups raised to cover
// them. Half the time a crash follows on one of the first task restores after it, of the
// coordinator or of a task of the rescaled job, so that a rescaled restore is cut short and
// done again. The rescaled job starts in restore mode claim, no-claim or legacy, a third
// of the time each. Drawn after every other draw, so that adding it moved none.
func (g *generator) rescale(s *scenarios.Scenario) {
	timeout := s.Sink != nil && s.Sink.TransactionTimeout != 0 ||
		slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == faults.ExternalTimeout })
	if s.Mode == scenarios.ModeChandyLamport || s.Swarm != nil || timeout || g.r.IntN(4) != 3 {
		return
	}
	ops := s.Graph().Nodes
	order := g.r.Perm(len(ops))
	p := int(g.between(1, 8))
	most := p
	for _, n := range ops {
		most = max(most, n.Parallelism)
	}
	if s.Topology.MaxParallelism == 0 && g.r.IntN(4) != 0 {
		s.Topology.MaxParallelism = max(128, most) // Flink's default: key groups to rescale by
	}
	if s.Topology.MaxParallelism > 0 {
		s.Topology.MaxParallelism = max(s.Topology.MaxParallelism, most)
	}
	i := slices.IndexFunc(order, func(k int) bool { return s.RescaleAccepts(ops[k].Name, p) == nil })
	if i < 0 {
		return // a job the engine cannot rescale: left as drawn
	}
	op := ops[order[i]].Name
	at := g.between(1, int64(s.Limits.FaultPhase))
	when := faults.At(faults.Duration(at))
	if g.r.IntN(2) == 0 {
		// As a checkpoint completes, before its notifications go out: what it committed is
		// still pending in the sinks the rescale hands over.
		when = faults.Nth(int(g.between(1, 8)), faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator})
		when.After = faults.Duration(at)
	}
	s.Faults = append(s.Faults, faults.Entry{Trigger: when,
		Fault: faults.Fault{Kind: faults.Rescale, Operator: op, Parallelism: p}})
	// The restore mode is drawn last, after the crash, so that adding it moved no draw.
	entry := len(s.Faults) - 1 // an index: appending the crash may move the slice
	defer func() { s.Faults[entry].Fault.RestoreMode = []string{"", "no-claim", "legacy"}[g.r.IntN(3)] }()
	if g.r.IntN(2) == 0 {
		return
	}
	trigger := faults.Nth(int(g.between(1, 6)), faults.Match{Kind: trace.KindTaskRestore})
	trigger.After = faults.Duration(at)
	crash := faults.Fault{Kind: faults.CrashCoordinator}
	if g.r.IntN(2) == 0 {
		crash = faults.Fault{Kind: faults.CrashTask, Task: scenarios.TaskID(op, int(g.between(0, int64(p-1))))}
	}
	s.Faults = append(s.Faults, faults.Entry{Trigger: trigger, Fault: crash})
}
