package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// savepointRestore draws a savepoint and a crash right after it completes, when it is the
// newest state in the store: a coordinator crash, whose recovery reads the store with the
// savepoint in it, or a task crash, whose failover picks what to restore. The protocol
// keeps savepoints out of the restorable list (they commit nothing and subsume nothing),
// so a correct job restores the checkpoint before it, and a recovery that takes the
// savepoint for the newest checkpoint shows. The savepoint is asked for at the j-th completed checkpoint, and the
// crash comes at the next completion, which is the savepoint's unless a periodic
// checkpoint in flight completes first, or, one time in three, one to three completions
// later, with checkpoints after the savepoint to restore instead.
func (g *generator) savepointRestore(s *scenarios.Scenario) []faults.Entry {
	m := faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}
	j := int(g.between(1, 5))
	after := 1
	if g.r.IntN(3) == 0 {
		after += int(g.between(1, 3))
	}
	crash := faults.Fault{Kind: faults.CrashCoordinator}
	if g.r.IntN(3) == 0 {
		crash = faults.Fault{Kind: faults.CrashTask, Task: pick(g, s.Graph().Tasks())}
	}
	return []faults.Entry{
		{Trigger: faults.Nth(j, m), Fault: faults.Fault{Kind: faults.TriggerSavepoint}},
		{Trigger: faults.Nth(j+after, m), Fault: crash},
	}
}
