package generate

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// splitSources draws, for one dataflow job in five, split sources: from one split to three
// per source subtask, which the coordinator's split enumerator hands out as the subtasks ask.
// The records per split shrink so that the input is no larger than before, and ends no
// later. Half of those jobs without a swarm have a crash aimed at the splits: of the reader that just took
// one, before a checkpoint holds it, or of the coordinator (a third of them) as it sends
// one. Drawn after every other draw, so that adding it moved none.
func (g *generator) splitSources(s *scenarios.Scenario) {
	w := &s.Workload
	if w.Records == 0 || g.r.IntN(5) != 4 {
		return
	}
	least := 0
	for _, n := range s.Graph().Nodes {
		if n.Kind == scenarios.NodeSource && (least == 0 || n.Parallelism < least) {
			least = n.Parallelism
		}
	}
	if least == 0 {
		return
	}
	w.Splits = int(g.between(1, int64(3*least)))
	w.Records = max(1, w.Records*least/max(w.Splits, least))
	if g.r.IntN(2) == 0 || s.Swarm != nil {
		return // a swarm draws its own faults
	}
	match := faults.Match{Kind: trace.KindSplitAdd}
	crash := faults.Fault{Kind: faults.CrashTask, Task: pick(g, s.Graph().Tasks())}
	if g.r.IntN(3) == 0 {
		match, crash = faults.Match{Kind: trace.KindSplitAssign}, faults.Fault{Kind: faults.CrashCoordinator}
	}
	s.Faults = append(s.Faults, faults.Entry{Trigger: faults.Nth(int(g.between(1, int64(w.Splits))), match), Fault: crash})
}
