package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// savepointRestore draws a savepoint and a crash right after it completes, so that the
// job restores from the savepoint: a coordinator crash (its recovery finds the savepoint
// newest in the store) or a task crash (the failover restores the newest checkpoint or
// savepoint). The savepoint is asked for at the j-th completed checkpoint, and the crash
// comes at the next completion, which is the savepoint's unless a periodic checkpoint
// in flight completes first, or, one time in three, one to three completions later, so
// that later checkpoints are restored instead and the savepoint must be left alone.
func (g *generator) savepointRestore(s *Scenario) []faults.Entry {
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
