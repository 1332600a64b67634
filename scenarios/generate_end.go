package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// jobEnd draws one to three actions and faults at the end of a bounded job, where its
// checkpoints change shape and drawn faults rarely land by time alone: a savepoint or a
// checkpoint asked for while some tasks have finished and others still run (Flink's
// checkpoints after tasks finished, where final snapshots meet pending checkpoints and
// savepoints), notifications lost for a while (a task that finished early misses the
// completion it waits for), a slow store (see jobEndFault), a task crash, or a burst of
// savepoints (see savepointsAtEnd).
func (g *generator) jobEnd(s *Scenario, sys faults.System) []faults.Entry {
	var out []faults.Entry
	for range g.between(1, 3) {
		if g.r.IntN(6) == 5 {
			out = append(out, g.savepointsAtEnd(s)...)
			continue
		}
		out = append(out, faults.Entry{Trigger: g.endMoment(s), Fault: g.jobEndFault(s, sys)})
	}
	return out
}

// endMoment draws a moment of the job's end: half the time one near the end of the input
// (see nearInputEnd), else the k-th task.finish of the run or the first of one task.
func (g *generator) endMoment(s *Scenario) faults.Trigger {
	if at, ok := g.nearInputEnd(s); ok && g.r.IntN(2) == 0 {
		return faults.At(at)
	}
	tasks := s.Graph().Tasks()
	m := faults.Match{Kind: trace.KindTaskFinish}
	if g.r.IntN(2) == 0 {
		m.Task = pick(g, tasks)
		return faults.Nth(1, m)
	}
	return faults.Nth(int(g.between(1, int64(len(tasks)))), m)
}

// jobEndFault draws what jobEnd does at one of its moments.
func (g *generator) jobEndFault(s *Scenario, sys faults.System) faults.Fault {
	switch g.r.IntN(5) {
	case 0:
		return faults.Fault{Kind: faults.TriggerSavepoint}
	case 1:
		return faults.Fault{Kind: faults.TriggerCheckpoint}
	case 2:
		// To one task, or to every task: the first to finish misses the completion it
		// waits for while others, still running, complete newer checkpoints.
		window := g.between(1, max(1, s.Limits.FaultPhase.Nanos()/2))
		to := ""
		if g.r.IntN(2) == 0 {
			to = pick(g, sys.Tasks)
		}
		return faults.Fault{Kind: faults.NetDrop, Message: faults.MessageNotify, From: faults.Coordinator,
			To: to, Probability: 1, WindowNanos: window}
	case 3:
		return g.slowStore(s)
	}
	return faults.Fault{Kind: faults.CrashTask, Task: pick(g, sys.Tasks)}
}

// slowStore draws a slow state or metadata store for up to two checkpoints' worth of time,
// every write or, half the time, some. It holds what is in flight then: the uploads of the
// tasks that snapshot within the window (a newer checkpoint whose uploads were spared
// completes first and meets the older one still pending), or a metadata write, which keeps
// the slot of the checkpoint writing busy while more is asked for.
func (g *generator) slowStore(s *Scenario) faults.Fault {
	upTo := min(2*s.Checkpoint.Interval.Nanos(), Seconds(1).Nanos())
	f := faults.Fault{Kind: faults.StorageSlow, Store: pick(g, []string{StoreState, StoreMetadata}),
		DelayNanos: g.between(max(1, upTo/8), upTo), WindowNanos: g.between(1, 4*upTo)}
	if g.r.IntN(2) == 0 {
		f.Probability = float64(g.between(1, 5)) / 10
	}
	return f
}

// savepointsAtEnd asks for two to six savepoints at moments of the job's end and, half the
// time, slows a store at another: savepoints still pending when the last checkpoints
// complete, or queued behind them, as when savepoints are taken often.
func (g *generator) savepointsAtEnd(s *Scenario) []faults.Entry {
	var out []faults.Entry
	for range g.between(2, 6) {
		out = append(out, faults.Entry{Trigger: g.endMoment(s), Fault: faults.Fault{Kind: faults.TriggerSavepoint}})
	}
	if g.r.IntN(2) == 0 {
		out = append(out, faults.Entry{Trigger: g.endMoment(s), Fault: g.slowStore(s)})
	}
	return out
}

// nearInputEnd draws a time within two checkpoint intervals of the end of s's input (with
// staggered sources, of the first source subtask's end or of the last's), when that falls in
// the fault phase: the final checkpoints are then pending or about to be.
func (g *generator) nearInputEnd(s *Scenario) (int64, bool) {
	end, phase := inputEndNanos(s.Workload), s.Limits.FaultPhase.Nanos()
	if s.Workload.Stagger > 0 && g.r.IntN(2) == 0 {
		end -= s.Workload.Stagger.Nanos()
	}
	if end <= 0 || end >= phase {
		return 0, false
	}
	spread := 2 * s.Checkpoint.Interval.Nanos()
	return g.between(max(0, end-spread), min(phase-1, end+spread)), true
}
