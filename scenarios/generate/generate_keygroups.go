package generate

import "github.com/ckptsim/ckptsim/scenarios"

// keyGroups draws, for one dataflow job in four, the job's key groups (max_parallelism):
// Flink's default of 128 now and then, else anywhere from the largest parallelism to
// 4,096, and to the most allowed once in a while, so that keyed operators own uneven
// ranges of groups rather than a key's hash modulo their parallelism. Drawn after every
// other draw, so that adding it moved none.
func (g *generator) keyGroups(s *scenarios.Scenario) {
	if s.Mode == scenarios.ModeChandyLamport || g.r.IntN(4) != 3 {
		return
	}
	most := 1
	for _, n := range s.Graph().Nodes {
		most = max(most, n.Parallelism)
	}
	switch g.r.IntN(8) {
	case 0:
		s.Topology.MaxParallelism = max(128, most)
	case 1:
		s.Topology.MaxParallelism = int(g.between(int64(most), scenarios.MaxKeyGroups))
	default:
		s.Topology.MaxParallelism = int(g.between(int64(most), 4096))
	}
}
