package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// jobEnd draws one to three actions and faults at the end of a bounded job, where its
// checkpoints change shape and drawn faults rarely land by time alone: a savepoint or a
// checkpoint asked for while some tasks have finished and others still run (Flink's
// checkpoints after tasks finished, where final snapshots meet pending checkpoints and
// savepoints), notifications lost for a while (a task that finished early misses the
// completion it waits for; with staggered sources, see unevenFinishNotifyLost), a slow store
// (see jobEndFault), a task crash, or savepoints taken often (see savepointsAtEnd).
func (g *generator) jobEnd(s *scenarios.Scenario, sys faults.System) []faults.Entry {
	g.endInFaultPhase(s)
	var out []faults.Entry
	if s.Workload.Stagger > 0 && g.r.IntN(2) == 0 {
		out = append(out, g.unevenFinishNotifyLost(s))
	}
	for range g.between(1, 3) {
		if g.r.IntN(3) == 2 {
			out = append(out, g.savepointsAtEnd(s)...)
			continue
		}
		out = append(out, faults.Entry{Trigger: g.endMoment(s), Fault: g.jobEndFault(s, sys)})
	}
	return out
}

// endInFaultPhase cuts an input that would end late in the fault phase or after it short, to
// end between a third and four fifths of the phase: event triggers fire only in the fault
// phase, and a job's end is where jobEnd aims them. A stagger is kept within a quarter of
// the phase. The limits drawn for the longer input stay, which only leaves more room.
func (g *generator) endInFaultPhase(s *scenarios.Scenario) {
	phase, w := s.Limits.FaultPhase.Nanos(), &s.Workload
	if w.InputEndNanos() < phase*4/5 {
		return
	}
	w.Stagger = min(w.Stagger, scenarios.Duration(phase/4))
	end := g.between(phase/3, phase*4/5) - w.Stagger.Nanos()
	w.Records = max(1, int(end/w.SourceInterval().Nanoseconds())+1)
}

// unevenFinishNotifyLost loses the notifications to every task (or, half the time, one) from
// around the end of the first source subtask's input for up to the stagger: the tasks that
// finish first miss the completion of their final checkpoint while the others, still
// running, complete newer ones over their final snapshots, and the re-sent notification
// names one of those.
func (g *generator) unevenFinishNotifyLost(s *scenarios.Scenario) faults.Entry {
	interval, stagger := s.Checkpoint.Interval.Nanos(), s.Workload.Stagger.Nanos()
	firstEnd := s.Workload.InputEndNanos() - stagger
	at := min(s.Limits.FaultPhase.Nanos()-1, g.between(max(0, firstEnd-interval), firstEnd+interval))
	f := faults.Fault{Kind: faults.NetDrop, Message: faults.MessageNotify, From: faults.Coordinator,
		Probability: 1, Window: faults.Duration(g.between(max(1, interval), max(1, stagger+interval)))}
	if g.r.IntN(2) == 0 {
		f.To = pick(g, s.System().Tasks)
	}
	return faults.Entry{Trigger: faults.At(faults.Duration(at)), Fault: f}
}

// endMoment draws a moment of the job's end: half the time one near the end of the input
// (see nearInputEnd), else the k-th task.finish of the run or the first of one task.
func (g *generator) endMoment(s *scenarios.Scenario) faults.Trigger {
	if at, ok := g.nearInputEnd(s); ok && g.r.IntN(2) == 0 {
		return faults.At(faults.Duration(at))
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
func (g *generator) jobEndFault(s *scenarios.Scenario, sys faults.System) faults.Fault {
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
			To: to, Probability: 1, Window: faults.Duration(window)}
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
func (g *generator) slowStore(s *scenarios.Scenario) faults.Fault {
	upTo := min(2*s.Checkpoint.Interval.Nanos(), scenarios.Seconds(1).Nanos())
	f := faults.Fault{Kind: faults.StorageSlow, Store: pick(g, []string{scenarios.StoreState, scenarios.StoreMetadata}),
		Delay: faults.Duration(g.between(max(1, upTo/8), upTo)), Window: faults.Duration(g.between(1, 4*upTo))}
	if g.r.IntN(2) == 0 {
		f.Probability = float64(g.between(1, 5)) / 10
	}
	return f
}

// savepointsAtEnd takes savepoints often, as some operators do: two to six at moments of the
// job's end or, half the time, now and then at a moment of the coordinator's (a checkpoint
// triggered, persisting, completed or aborted) from shortly before the end of the input on
// (see endFrom), the last checkpoint's included. Two times in three a store is slowed too, at another moment of the end or now and
// then at the same moments as the savepoints, some writes at a time: a savepoint whose
// uploads lag is still pending when the checkpoints after it complete, the last included,
// and one asked for while the last holds the slot waits behind it.
func (g *generator) savepointsAtEnd(s *scenarios.Scenario) []faults.Entry {
	var out []faults.Entry
	savepoint := faults.Fault{Kind: faults.TriggerSavepoint}
	moments := g.r.IntN(2) == 0
	m := faults.Match{Kind: pick(g, []string{trace.KindCheckpointTrigger, trace.KindCheckpointPersist,
		trace.KindCheckpointComplete, trace.KindCheckpointAbort}), Task: faults.Coordinator}
	nowAndThen := func() faults.Trigger {
		t := faults.Chance(float64(g.between(2, 6))/10, int(g.between(3, 30)), m)
		t.After = faults.Duration(g.endFrom(s))
		return t
	}
	if moments {
		out = append(out, faults.Entry{Trigger: nowAndThen(), Fault: savepoint})
	} else {
		for range g.between(2, 6) {
			out = append(out, faults.Entry{Trigger: g.endMoment(s), Fault: savepoint})
		}
	}
	if g.r.IntN(3) != 0 {
		slow, at := g.slowStore(s), g.endMoment(s)
		if moments {
			slow.Window = max(1, slow.Window/4) // one checkpoint's uploads
			slow.Probability = float64(g.between(1, 5)) / 10
			at = nowAndThen()
		}
		out = append(out, faults.Entry{Trigger: at, Fault: slow})
	}
	return out
}

// endFrom draws when the end of the job begins for an event trigger: half the time two
// checkpoint intervals before the end of the input (or of the first source subtask's, with
// a stagger), when that falls in the fault phase; else 0, all run long.
func (g *generator) endFrom(s *scenarios.Scenario) int64 {
	end := s.Workload.InputEndNanos() - s.Workload.Stagger.Nanos()
	from := max(0, end-2*s.Checkpoint.Interval.Nanos())
	if g.r.IntN(2) == 0 || from >= s.Limits.FaultPhase.Nanos() {
		return 0
	}
	return from
}

// nearInputEnd draws a time within two checkpoint intervals of the end of s's input (with
// staggered sources, of the first source subtask's end or of the last's), when that falls in
// the fault phase: the final checkpoints are then pending or about to be.
func (g *generator) nearInputEnd(s *scenarios.Scenario) (int64, bool) {
	end, phase := s.Workload.InputEndNanos(), s.Limits.FaultPhase.Nanos()
	if s.Workload.Stagger > 0 && g.r.IntN(2) == 0 {
		end -= s.Workload.Stagger.Nanos()
	}
	if end <= 0 || end >= phase {
		return 0, false
	}
	spread := 2 * s.Checkpoint.Interval.Nanos()
	return g.between(max(0, end-spread), min(phase-1, end+spread)), true
}
