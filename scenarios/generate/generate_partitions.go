package generate

import "github.com/ckptsim/ckptsim/scenarios"

// partitions draws, for one dataflow job in four whose sources read one partition per
// subtask, more partitions than subtasks: up to twice the largest source's parallelism, so
// that a subtask reads several in turn and a rescale moves them between subtasks. The
// records per partition shrink to keep the input's size. Drawn after every other draw but
// the rescale, so that adding it moved none.
func (g *generator) partitions(s *scenarios.Scenario) {
	w := &s.Workload
	if w.Records == 0 || w.Splits > 0 || g.r.IntN(4) != 3 {
		return
	}
	most := 0
	for _, n := range s.Graph().Nodes {
		if n.Kind == scenarios.NodeSource {
			most = max(most, n.Parallelism)
		}
	}
	if most == 0 {
		return
	}
	w.Partitions = int(g.between(int64(most), int64(2*most)))
	w.Records = max(1, w.Records*most/w.Partitions)
}
