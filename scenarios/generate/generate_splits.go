package generate

import (
	"slices"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// splitSources draws, for one dataflow job in five, split sources: from one split to three
// per source subtask, which the coordinator's split enumerator hands out as the subtasks ask.
// The records per split shrink so that the input is no larger than before, and ends no
// later; a short checkpoint timeout is raised to the safe one (catchUpTimeout), so a job with
// a transaction timeout drawn against a short one gets no splits. Half of those jobs without a swarm have a fault aimed at the splits of a reader: its
// crash just after it took one, before a checkpoint holds it; a crash of the coordinator as
// it sends a split; or a partition that cuts the reader off from the coordinator as a split is
// on its way, for up to two checkpoint intervals, so that triggers may reach it while an
// assignment is lost. Drawn after every other draw, so that adding it moved none.
func (g *generator) splitSources(s *scenarios.Scenario) {
	w := &s.Workload
	if w.Records == 0 || g.r.IntN(5) != 4 || !mayRaiseTimeout(s) {
		return
	}
	least := 0
	var readers []string
	for _, n := range s.Graph().Nodes {
		if n.Kind != scenarios.NodeSource {
			continue
		}
		if least == 0 || n.Parallelism < least {
			least = n.Parallelism
		}
		for i := range n.Parallelism {
			readers = append(readers, scenarios.TaskID(n.Name, i))
		}
	}
	if least == 0 {
		return
	}
	end := w.InputEndNanos()
	w.Splits = int(g.between(1, int64(3*least)))
	w.Records = max(1, w.Records*least/max(w.Splits, least))
	paceSplits(w, least, end)
	catchUpTimeout(s)
	if g.r.IntN(2) == 0 || s.Swarm != nil {
		return // a swarm draws its own faults
	}
	reader := pick(g, readers)
	match := faults.Match{Kind: trace.KindSplitAdd, Task: reader}
	fault := faults.Fault{Kind: faults.CrashTask, Task: reader}
	switch g.r.IntN(3) {
	case 0:
		match, fault = faults.Match{Kind: trace.KindSplitAssign}, faults.Fault{Kind: faults.CrashCoordinator}
	case 1:
		window := g.between(int64(scenarios.Millis(1)), 2*int64(max(s.Checkpoint.Interval, scenarios.Millis(1))))
		match, fault = faults.Match{Kind: trace.KindSplitAssign}, faults.Fault{Kind: faults.NetPartition,
			From: faults.Coordinator, To: reader, Window: faults.Duration(window)}
	}
	most := max(1, w.Splits/len(readers)) // the splits a reader may expect to take
	s.Faults = append(s.Faults, faults.Entry{Trigger: faults.Nth(int(g.between(1, int64(most))), match), Fault: fault})
}

// paceSplits staggers the splits' starts so that a split handed out late does not arrive
// whole at once: a reader takes its next split about when the one before ends, so split k
// starts about k/readers split lengths after the first, as the input would arrive without
// splits. A burst of a whole split behind a slow checkpoint would otherwise outgrow the
// checkpoint timeout the job was drawn with, which is the generator's mistake, not the
// engine's. The input ends no later than end, the end the job was drawn for.
func paceSplits(w *scenarios.Workload, readers int, end int64) {
	split := int64(w.Records) * w.SourceInterval().Nanoseconds()
	want := split * int64(w.Splits-1) / int64(readers)
	room := end - (w.InputEndNanos() - w.Stagger.Nanos())
	w.Stagger = max(w.Stagger, scenarios.Duration(min(want, room)))
}

// mayRaiseTimeout reports whether catchUpTimeout may raise s's checkpoint timeout: not when a
// transaction timeout was drawn against it, which a longer checkpoint would outgrow.
func mayRaiseTimeout(s *scenarios.Scenario) bool {
	txn := s.Sink != nil && s.Sink.TransactionTimeout != 0 ||
		slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return e.Fault.Kind == faults.ExternalTimeout })
	return !txn || s.Checkpoint.Timeout >= max(scenarios.Seconds(1), 4*s.Checkpoint.Interval)
}

// catchUpTimeout raises a checkpoint timeout drawn below the generator's safe one (a second,
// and four intervals) to it, and the liveness bound with it. A restore hands the splits given
// out after its checkpoint out again from their start, whose records are all there by then:
// the job catches up on whole splits, and a checkpoint of that catch-up outlives a short
// timeout every time, fails the job over to the same checkpoint and starts it again
// (generated seed 77005). A job without splits catches up on what arrived since its
// checkpoint only, which the short timeouts are drawn for.
func catchUpTimeout(s *scenarios.Scenario) {
	c, l := &s.Checkpoint, &s.Limits
	safe := max(scenarios.Seconds(1), 4*c.Interval)
	if c.Timeout >= safe {
		return
	}
	bound := l.LivenessBound + 2*(safe-c.Timeout)
	if l.MaxVirtualTime != 0 {
		// The phases, the liveness phase a quarter past its bound, as limits drew it.
		l.MaxVirtualTime += bound*5/4 - l.LivenessBound*5/4
	}
	c.Timeout, l.LivenessBound = safe, bound
}
