package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
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

// jobEnd draws one to three actions and faults at the end of a bounded job, each on the
// k-th task.finish of the run (or of one task), or half the time at a moment near the end of
// the input (see nearInputEnd): a savepoint or a checkpoint asked for while
// some tasks have finished and others still run (Flink's checkpoints after tasks finished,
// where final snapshots meet pending checkpoints and savepoints), notifications to a task
// lost for a while (a task that finished early misses the completion it waits for), or a
// task crash. The end of input is where a job's checkpoints change shape; drawn faults
// rarely land on it by time alone.
func (g *generator) jobEnd(s *Scenario, sys faults.System) []faults.Entry {
	tasks := s.Graph().Tasks()
	var out []faults.Entry
	for range g.between(1, 3) {
		m := faults.Match{Kind: trace.KindTaskFinish}
		if g.r.IntN(2) == 0 {
			m.Task = pick(g, tasks)
		}
		trigger := faults.Nth(int(g.between(1, int64(len(tasks)))), m)
		if m.Task != "" {
			trigger = faults.Nth(1, m)
		}
		if at, ok := g.nearInputEnd(s); ok && g.r.IntN(2) == 0 {
			trigger = faults.At(at)
		}
		var f faults.Fault
		switch g.r.IntN(4) {
		case 0:
			f = faults.Fault{Kind: faults.TriggerSavepoint}
		case 1:
			f = faults.Fault{Kind: faults.TriggerCheckpoint}
		case 2:
			window := g.between(1, max(1, s.Limits.FaultPhase.Nanos()/2))
			f = faults.Fault{Kind: faults.NetDrop, Message: faults.MessageNotify, From: faults.Coordinator,
				To: pick(g, sys.Tasks), Probability: 1, WindowNanos: window}
		default:
			f = faults.Fault{Kind: faults.CrashTask, Task: pick(g, sys.Tasks)}
		}
		out = append(out, faults.Entry{Trigger: trigger, Fault: f})
	}
	return out
}

// nearInputEnd draws a time within two checkpoint intervals of the end of s's input, when
// that falls in the fault phase: the final checkpoints are then pending or about to be.
func (g *generator) nearInputEnd(s *Scenario) (int64, bool) {
	end, phase := inputEndNanos(s.Workload), s.Limits.FaultPhase.Nanos()
	if end <= 0 || end >= phase {
		return 0, false
	}
	spread := 2 * s.Checkpoint.Interval.Nanos()
	return g.between(max(0, end-spread), min(phase-1, end+spread)), true
}
